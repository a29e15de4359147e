import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { TwinbenchError } from "../../../src/core/base/errors.ts";
import { baseImageChanges, baseImageSpec, debootstrapArgs } from "../../../src/core/images/base.ts";
import {
  aptSources,
  contextDirs,
  imageLabels,
  mirrorBuildArgs,
  renderContext,
  renderTemplate,
  shQuote,
  type BaseImageRef,
} from "../../../src/core/images/context.ts";
import { parseLock, type Family } from "../../../src/core/images/lock.ts";

const imagesUrl = new URL("../../../images/", import.meta.url);
const lock = parseLock(readFileSync(new URL("lock.yaml", imagesUrl), "utf8"), "images/lock.yaml");

/** The repository's real build-context files for a family, as the adapter reads them. */
function contextFiles(family: Family): Record<string, string> {
  const out: Record<string, string> = {};
  for (const d of contextDirs(family)) {
    for (const f of readdirSync(new URL(`${d}/`, imagesUrl))) {
      if (!(f in out)) out[f] = readFileSync(new URL(`${d}/${f}`, imagesUrl), "utf8");
    }
  }
  return out;
}

const base: BaseImageRef = { tag: "twinbench/base:sid-0123456789ab", id: `sha256:${"1".repeat(64)}` };
const digest = `sha256:${"ab".repeat(32)}`;
const withDigest = (name: string) => {
  const e = lock.images[name]!;
  return { ...e, official: { ...e.official, digest } };
};

describe("renderContext, debian mode", () => {
  it.each([
    ["mariadb-11.8", "mariadbd", "mariadb-server=1:11.8.9+ds-4"],
    ["mariadb-10.11", "mariadbd", "mariadb-server=1:10.11.19-0+deb12u1"],
    ["mysql-9.7", "mysqld", "mysql-server=9.7.4-2"],
  ])("%s: FROM the base image, pinned packages, uid 999, entrypoint and config", (name, server, pin) => {
    const e = lock.images[name]!;
    const r = renderContext(name, e, "debian", contextFiles(e.family), { base });
    const df = r.files["Dockerfile"]!;
    expect(df).toMatch(/^FROM twinbench\/base:sid-0123456789ab$/m);
    expect(df).toContain(pin);
    expect(df).toContain("procps=");
    expect(df).toContain("-o Acquire::Check-Valid-Until=false");
    expect(df).toContain("groupadd --system --gid 999 mysql");
    expect(df).toContain("useradd --system --uid 999 --gid 999");
    // The user is created before the packages are installed.
    expect(df.indexOf("useradd")).toBeLessThan(df.indexOf("install -y"));
    expect(df).toContain(`TWINBENCH_SERVER=${server}`);
    expect(df).toContain(`CMD ["${server}", "--defaults-file=/etc/twinbench/my.cnf"]`);
    expect(df).not.toMatch(/\{\{[A-Z_ ]+\}\}/);
    expect(Object.keys(r.files).sort()).toEqual(["Dockerfile", "docker-entrypoint.sh", "my.cnf"]);
    expect(r.files["my.cnf"]).toContain("socket = /run/mysqld/mysqld.sock");
    expect(r.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(r.tagSuffix).toBe(r.hash.slice(0, 12));
  });

  it("adds the bookworm-security source for bookworm entries, the mirrors as build arguments only", () => {
    const e = lock.images["mariadb-10.11"]!;
    const df = renderContext("mariadb-10.11", e, "debian", contextFiles("mariadb"), { base }).files["Dockerfile"]!;
    expect(df).toContain(
      `"deb \${TWINBENCH_DEBIAN_MIRROR} bookworm main" "deb \${TWINBENCH_SECURITY_MIRROR} bookworm-security main"`,
    );
    // Declared before the RUN that uses them, and no mirror host written into the file.
    expect(df.indexOf("ARG TWINBENCH_SECURITY_MIRROR")).toBeLessThan(df.indexOf("printf '%s\\n' \"deb"));
    expect(df).not.toMatch(/https?:\/\//);
  });

  it("sysbench: libmariadb3 pinned, the Lua scripts shipped, no MySQL", () => {
    const e = lock.images["sysbench-1.0"]!;
    const r = renderContext("sysbench-1.0", e, "debian", contextFiles("sysbench"), { base });
    const df = r.files["Dockerfile"]!;
    expect(df).toContain("sysbench=1.0.20+ds-5");
    expect(df).toContain("libmariadb3=1:10.11.19-0+deb12u1");
    expect(df).not.toMatch(/mysql-(server|client)=/);
    expect(df).toContain("COPY select.lua tb_conninfo.lua /usr/share/sysbench/");
    expect(r.files["select.lua"]).toContain('require("oltp_common")');
    expect(r.files["select.lua"]).toContain('"SELECT pad FROM sbtest%d WHERE id=%d"');
    expect(r.files["tb_conninfo.lua"]).toContain("twinbench.ssl_cipher=");
  });

  it("requires a base image", () => {
    const e = lock.images["mysql-9.7"]!;
    expect(() => renderContext("mysql-9.7", e, "debian", contextFiles("mysql"), {})).toThrow(TwinbenchError);
  });
});

describe("renderContext, official mode", () => {
  it.each([
    ["mariadb-11.8", "mariadb"],
    ["mariadb-10.11", "mariadb"],
    ["mysql-9.7", "mysql"],
    ["sysbench-1.0", "debian"],
  ])("%s: FROM %s@<digest> (the tag dropped: what official mode pulls)", (name, repo) => {
    const e = withDigest(name);
    const r = renderContext(name, e, "official", contextFiles(e.family), {});
    expect(r.files["Dockerfile"]).toMatch(new RegExp(`^FROM ${repo}@${digest}$`, "m"));
    expect(r.files["Dockerfile"]).not.toMatch(/\{\{[A-Z_ ]+\}\}/);
  });

  it("server images keep the official entrypoint but ship twinbench's my.cnf", () => {
    const e = withDigest("mysql-9.7");
    const df = renderContext("mysql-9.7", e, "official", contextFiles("mysql"), {}).files["Dockerfile"]!;
    expect(df).toContain("COPY my.cnf /etc/twinbench/my.cnf");
    expect(df).not.toContain("ENTRYPOINT");
  });

  it.each(Object.keys(lock.images))("%s: refuses a PLACEHOLDER digest with a clear error", (name) => {
    const e = lock.images[name]!;
    try {
      renderContext(name, e, "official", contextFiles(e.family), {});
      throw new Error("expected a refusal");
    } catch (err) {
      expect(err).toBeInstanceOf(TwinbenchError);
      const t = err as TwinbenchError;
      expect(t.code).toBe("IMAGE_DIGEST_PLACEHOLDER");
      expect(t.message).toContain(e.official.ref);
      expect(t.message).toContain("PLACEHOLDER");
      expect(t.hint).toContain(`images.${name}.official.digest`);
      expect(t.hint).toContain("--mode debian");
      expect(t.hint).toContain(`twinbench images pin ${name}`);
    }
  });
});

describe("content hash", () => {
  const e = lock.images["mariadb-11.8"]!;
  const files = contextFiles("mariadb");
  const hashOf = (
    over: Partial<{ entry: typeof e; files: Record<string, string>; base: BaseImageRef; name: string }> = {},
  ) =>
    renderContext(over.name ?? "mariadb-11.8", over.entry ?? e, "debian", over.files ?? files, {
      base: over.base ?? base,
    }).hash;

  it("is stable for the same inputs (and independent of file order)", () => {
    const reversed = Object.fromEntries(Object.entries(files).reverse());
    expect(hashOf()).toBe(hashOf());
    expect(hashOf({ files: reversed })).toBe(hashOf());
  });

  it.each([
    ["a package version", { entry: { ...e, packages: { ...e.packages, "mariadb-server": "1:11.8.9+ds-5" } } }],
    ["a context file", { files: { ...files, "my.cnf": `${files["my.cnf"]}\n# changed\n` } }],
    ["a template", { files: { ...files, "Dockerfile.debian": `${files["Dockerfile.debian"]}\n# changed\n` } }],
    ["the base image id", { base: { ...base, id: `sha256:${"2".repeat(64)}` } }],
    ["the image name", { name: "mariadb-11.8b" }],
  ])("changes with %s", (_, over) => {
    expect(hashOf(over as never)).not.toBe(hashOf());
  });

  it("ignores the other mode's template", () => {
    // Dockerfile.official is not copied into a debian build context.
    const r = renderContext("mariadb-11.8", e, "debian", files, { base });
    expect(Object.keys(r.files)).not.toContain("Dockerfile.official");
    const changed = { ...files, "Dockerfile.official": "FROM x\n" };
    expect(hashOf({ files: changed })).toBe(hashOf());
  });
});

describe("labels", () => {
  it("carry family, version, package version, lock hash, build time, name, mode and the mysql uid", () => {
    const e = lock.images["mariadb-10.11"]!;
    const r = renderContext("mariadb-10.11", e, "debian", contextFiles("mariadb"), { base });
    const l = imageLabels("mariadb-10.11", e, "debian", r, {
      mirrors: { TWINBENCH_DEBIAN_MIRROR: "http://mirror.example.test/debian" },
      buildTime: "2026-01-02T03:04:05.000Z",
      session: "s1",
    });
    expect(l).toMatchObject({
      "twinbench.family": "mariadb",
      "twinbench.version": "10.11.19",
      "twinbench.package-version": "1:10.11.19-0+deb12u1",
      "twinbench.build-time": "2026-01-02T03:04:05.000Z",
      "twinbench.image": "mariadb-10.11",
      "twinbench.mode": "debian",
      "twinbench.mysql-uid": "999",
      "twinbench.content-hash": r.hash,
      "twinbench.session": "s1",
      "twinbench.mirror": "http://mirror.example.test/debian",
    });
    expect(l["twinbench.lock-hash"]).toMatch(/^[0-9a-f]{64}$/);
    expect(l["twinbench.run"]).toBeUndefined();
  });

  it("sysbench has no mysql uid label", () => {
    const e = lock.images["sysbench-1.0"]!;
    const r = renderContext("sysbench-1.0", e, "debian", contextFiles("sysbench"), { base });
    expect(imageLabels("sysbench-1.0", e, "debian", r, { buildTime: "t" })["twinbench.mysql-uid"]).toBeUndefined();
  });
});

describe("helpers", () => {
  it("renderTemplate fills placeholders and rejects unknown ones", () => {
    expect(renderTemplate("a {{X}} b {{ Y }}", { X: "1", Y: "2" }, "t")).toBe("a 1 b 2");
    expect(() => renderTemplate("{{NOPE}}", { X: "1" }, "images/x/Dockerfile.debian")).toThrow(
      /images\/x\/Dockerfile\.debian: unknown template placeholder \{\{NOPE\}\}/,
    );
  });

  it("shQuote quotes single quotes", () => {
    expect(shQuote("it's")).toBe(`'it'\\''s'`);
  });

  it("aptSources maps -security suites to the security mirror's build argument", () => {
    expect(aptSources(["bookworm", "bookworm-security", "bookworm-updates"])).toEqual([
      '"deb ${TWINBENCH_DEBIAN_MIRROR} bookworm main"',
      '"deb ${TWINBENCH_SECURITY_MIRROR} bookworm-security main"',
      '"deb ${TWINBENCH_DEBIAN_MIRROR} bookworm-updates main"',
    ]);
  });

  it("mirrorBuildArgs: the mirrors an entry's suites need, MIRROR_NONE naming the lock when one is missing", () => {
    const mirrors = {
      debian: { uri: "http://mirror.example.test/debian", from: "/etc/apt/sources.list.d/debian.sources:1" },
      security: { uri: "http://mirror.example.test/debian-security", from: "/etc/apt/sources.list.d/debian.sources:7" },
    };
    expect(mirrorBuildArgs(lock.images["mariadb-10.11"]!, mirrors)).toEqual({
      TWINBENCH_DEBIAN_MIRROR: "http://mirror.example.test/debian",
      TWINBENCH_SECURITY_MIRROR: "http://mirror.example.test/debian-security",
    });
    expect(mirrorBuildArgs(lock.images["mysql-9.7"]!, mirrors)).toEqual({
      TWINBENCH_DEBIAN_MIRROR: "http://mirror.example.test/debian",
    });
    // A host whose sources name no security mirror: sid images still build, bookworm-security ones cannot.
    const noSecurity = { ...mirrors, security: null };
    expect(mirrorBuildArgs(lock.images["mysql-9.7"]!, noSecurity)).toHaveProperty("TWINBENCH_DEBIAN_MIRROR");
    try {
      mirrorBuildArgs(lock.images["mariadb-10.11"]!, noSecurity, "images/lock.yaml");
      expect.unreachable("built without a security mirror");
    } catch (err) {
      expect((err as TwinbenchError).code).toBe("MIRROR_NONE");
      expect((err as TwinbenchError).message).toContain("bookworm-security");
      expect((err as TwinbenchError).hint).toContain("images/lock.yaml");
    }
  });

  it("the image hash does not depend on the mirror (the packages are pinned by version)", () => {
    // renderContext takes no mirror at all: the same files, and the same hash, whatever mirror a host uses.
    const e = lock.images["mariadb-10.11"]!;
    const a = renderContext("mariadb-10.11", e, "debian", contextFiles("mariadb"), { base });
    const other = parseLock(
      `${readFileSync(new URL("lock.yaml", imagesUrl), "utf8")}\nmirrors: { debian: "http://other.example.test/debian" }\n`,
      "images/lock.yaml",
    );
    const b = renderContext("mariadb-10.11", other.images["mariadb-10.11"]!, "debian", contextFiles("mariadb"), {
      base,
    });
    expect(b.hash).toBe(a.hash);
  });

  it("base images: tag per suite (not per mirror), debootstrap minbase arguments, labels", () => {
    const a = baseImageSpec("sid");
    expect(a.tag).toMatch(/^twinbench\/base:sid-[0-9a-f]{12}$/);
    expect(baseImageSpec("sid").tag).toBe(a.tag);
    expect(baseImageSpec("bookworm").tag).not.toBe(a.tag);
    expect(debootstrapArgs(a, "/tmp/r", "http://mirror.example.test/debian")).toEqual([
      "--variant=minbase",
      "sid",
      "/tmp/r",
      "http://mirror.example.test/debian",
    ]);
    const changes = baseImageChanges(a, "2026-01-01T00:00:00.000Z");
    expect(changes[0]).toContain('twinbench.image="base"');
    expect(changes[0]).toContain('twinbench.suite="sid"');
    expect(changes).toContain('CMD ["bash"]');
  });
});
