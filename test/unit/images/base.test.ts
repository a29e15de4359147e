import { describe, expect, it } from "vitest";
import { BASE_REPO, baseImageChanges, baseImageSpec, debootstrapArgs } from "../../../src/core/images/base.ts";
import { canonicalJson, sha256 } from "../../../src/core/images/lock.ts";

describe("baseImageSpec", () => {
  it.each(["bookworm", "trixie"])("%s: tag is repo:<suite>-<hash12> of the recipe", (suite) => {
    const s = baseImageSpec(suite);
    const hash = sha256(canonicalJson({ recipe: 1, variant: "minbase", suite }));
    expect(s).toEqual({
      suite,
      hash,
      tagSuffix: `${suite}-${hash.slice(0, 12)}`,
      repo: BASE_REPO,
      tag: `twinbench/base:${suite}-${hash.slice(0, 12)}`,
    });
  });

  it("the suite changes the tag", () => {
    expect(baseImageSpec("trixie").tag).not.toBe(baseImageSpec("bookworm").tag);
  });
});

describe("debootstrap arguments and image changes", () => {
  const spec = baseImageSpec("bookworm");

  it("debootstrap gets variant, suite, target dir and mirror, in that order", () => {
    expect(debootstrapArgs(spec, "/tmp/root", "http://mirror.example/debian")).toEqual([
      "--variant=minbase",
      "bookworm",
      "/tmp/root",
      "http://mirror.example/debian",
    ]);
  });

  it("the import labels the image as the base of its suite and sets env and command", () => {
    const [label, env, cmd] = baseImageChanges(spec, "2020-01-01T00:00:00Z");
    expect(label).toBe(
      "LABEL " +
        [
          `twinbench.image="base"`,
          `twinbench.family="base"`,
          `twinbench.suite="bookworm"`,
          `twinbench.mode="debian"`,
          `twinbench.content-hash="${spec.hash}"`,
          `twinbench.build-time="2020-01-01T00:00:00Z"`,
        ].join(" "),
    );
    expect(env).toMatch(/^ENV LANG=C\.UTF-8 PATH=\/usr\/local\/sbin:/);
    expect(cmd).toBe('CMD ["bash"]');
  });
});
