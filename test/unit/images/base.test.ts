import { describe, expect, it } from "vitest";
import { BASE_REPO, baseImageChanges, baseImageSpec, debootstrapArgs } from "../../../src/core/images/base.ts";
import { canonicalJson, sha256, type Mirrors } from "../../../src/core/images/lock.ts";

const mirrors = (debian: string): Mirrors => ({ debian, security: "http://mirror.example/security" });

describe("baseImageSpec", () => {
  it.each([
    ["bookworm", "http://mirror.example/debian"],
    ["trixie", "http://mirror.example/debian"],
    ["bookworm", "http://other.example/debian"],
  ])("%s from %s: tag is repo:<suite>-<hash12> of the recipe", (suite, debian) => {
    const s = baseImageSpec(suite, mirrors(debian));
    const hash = sha256(canonicalJson({ recipe: 1, variant: "minbase", suite, mirror: debian }));
    expect(s).toEqual({
      suite,
      mirror: debian,
      hash,
      tagSuffix: `${suite}-${hash.slice(0, 12)}`,
      repo: BASE_REPO,
      tag: `twinbench/base:${suite}-${hash.slice(0, 12)}`,
    });
  });

  it("the suite and the Debian mirror change the tag; the security mirror does not", () => {
    const a = baseImageSpec("bookworm", mirrors("http://mirror.example/debian"));
    expect(baseImageSpec("trixie", mirrors("http://mirror.example/debian")).tag).not.toBe(a.tag);
    expect(baseImageSpec("bookworm", mirrors("http://other.example/debian")).tag).not.toBe(a.tag);
    const sameDebian = { debian: "http://mirror.example/debian", security: "http://elsewhere.example/sec" };
    expect(baseImageSpec("bookworm", sameDebian).tag).toBe(a.tag);
  });
});

describe("debootstrap arguments and image changes", () => {
  const spec = baseImageSpec("bookworm", mirrors("http://mirror.example/debian"));

  it("debootstrap gets variant, suite, target dir and mirror, in that order", () => {
    expect(debootstrapArgs(spec, "/tmp/root")).toEqual([
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
