import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { InputError } from "../../../src/core/base/errors.ts";
import { canonicalJson, lockEntry, lockEntryHash, parseLock } from "../../../src/core/images/lock.ts";

const realLock = readFileSync(new URL("../../../images/lock.yaml", import.meta.url), "utf8");

const good = `
schema: 1
images:
  mariadb-11.8:
    family: mariadb
    version: 11.8.9
    suites: [sid]
    package: mariadb-server
    packages: { mariadb-server: "1:11.8.9+ds-4" }
    official: { ref: "mariadb:11.8", digest: PLACEHOLDER }
`;

function problemsOf(raw: string): string[] {
  try {
    parseLock(raw, "images/lock.yaml");
  } catch (e) {
    expect(e).toBeInstanceOf(InputError);
    expect((e as InputError).code).toBe("LOCK_INVALID");
    return (e as InputError).problems;
  }
  throw new Error("expected the lock to be rejected");
}

describe("parseLock", () => {
  it("accepts the repository's images/lock.yaml with the four pinned images", () => {
    const lock = parseLock(realLock, "images/lock.yaml");
    expect(Object.keys(lock.images).sort()).toEqual(["mariadb-10.11", "mariadb-11.8", "mysql-9.7", "sysbench-1.0"]);
    expect(lock.images["mariadb-11.8"]!.packages["mariadb-server"]).toBe("1:11.8.9+ds-4");
    expect(lock.images["mariadb-10.11"]!.suites).toEqual(["bookworm", "bookworm-security"]);
    expect(lock.images["mariadb-10.11"]!.packages["mariadb-server"]).toBe("1:10.11.19-0+deb12u1");
    expect(lock.images["mysql-9.7"]!.packages["mysql-server"]).toBe("9.7.4-2");
    const sb = lock.images["sysbench-1.0"]!;
    expect(sb.suites[0]).toBe("bookworm");
    expect(sb.packages).toMatchObject({ sysbench: "1.0.20+ds-5", libmariadb3: "1:10.11.19-0+deb12u1" });
    expect(Object.keys(sb.packages).some((p) => p.startsWith("mysql"))).toBe(false);
    // No mirror of its own: builds take the host's (the lock may still override it).
    expect(lock.mirrors).toEqual({ debian: null, security: null });
  });

  it("takes the host's mirrors unless the lock names its own, and keeps the file name", () => {
    const host = {
      debian: { uri: "http://mirror.example.test/debian", from: "/etc/apt/sources.list.d/debian.sources:1" },
      security: { uri: "http://mirror.example.test/debian-security", from: "/etc/apt/sources.list.d/debian.sources:7" },
    };
    const lock = parseLock(good, "x/lock.yaml", host);
    expect(lock.file).toBe("x/lock.yaml");
    expect(lock.mirrors).toEqual(host);
    const own = parseLock(
      `${good}\nmirrors: { debian: "http://snapshot.example.test/archive/debian/" }\n`,
      "x/lock.yaml",
      host,
    );
    expect(own.mirrors).toEqual({
      debian: { uri: "http://snapshot.example.test/archive/debian", from: "x/lock.yaml mirrors.debian" },
      security: host.security,
    });
  });

  it("refuses a mirror apt could not use", () => {
    expect(problemsOf(`${good}\nmirrors: { debian: "ftp://mirror.example.test/debian" }\n`).join("\n")).toMatch(
      /mirrors\.debian: expected an http\(s\) URL/,
    );
    try {
      parseLock(`${good}\nmirrors: { debian: "http://mirror.example.test/$(reboot)" }\n`, "l");
      expect.unreachable("a mirror with a shell expansion was accepted");
    } catch (e) {
      expect((e as InputError).problems?.join("\n")).toContain("mirrors.debian");
    }
  });

  it.each([
    [
      "bad family",
      good.replace("family: mariadb", "family: postgres"),
      "images/lock.yaml: images.mariadb-11.8.family:",
    ],
    [
      "version with letters",
      good.replace('"1:11.8.9+ds-4"', '"latest ver"'),
      "images.mariadb-11.8.packages.mariadb-server: expected an exact Debian version",
    ],
    [
      "main package not pinned",
      good.replace("package: mariadb-server", "package: mariadb-client"),
      'images.mariadb-11.8.packages: must pin the main package "mariadb-client"',
    ],
    ["no suites", good.replace("suites: [sid]", "suites: []"), "images.mariadb-11.8.suites:"],
    [
      "security suite first",
      good.replace("suites: [sid]", "suites: [bookworm-security]"),
      "images.mariadb-11.8.suites.0: the first suite must be a base suite",
    ],
    ["short digest", good.replace("digest: PLACEHOLDER", "digest: sha256:abc"), "images.mariadb-11.8.official.digest:"],
    [
      "unknown key",
      good.replace("    version: 11.8.9", "    version: 11.8.9\n    colour: red"),
      "images.mariadb-11.8:",
    ],
    ["bad schema", good.replace("schema: 1", "schema: 2"), "images/lock.yaml: schema:"],
    ["bad image name", good.replace("mariadb-11.8:", "MariaDB 11.8:"), "images/lock.yaml: images.MariaDB 11.8:"],
  ])("rejects %s, naming file and path", (_, raw, expected) => {
    const problems = problemsOf(raw);
    expect(
      problems.some((p) => p.startsWith("images/lock.yaml: ") && p.includes(expected)),
      problems.join("\n"),
    ).toBe(true);
  });

  it("rejects YAML syntax errors with the file name", () => {
    const problems = problemsOf("schema: [1\nimages: {");
    expect(problems[0]).toMatch(/^images\/lock\.yaml: /);
  });

  it("accepts a real sha256 digest", () => {
    const d = `sha256:${"ab".repeat(32)}`;
    const lock = parseLock(good.replace("digest: PLACEHOLDER", `digest: "${d}"`), "l.yaml");
    expect(lock.images["mariadb-11.8"]!.official.digest).toBe(d);
  });

  it("names the known images for an unknown one", () => {
    const lock = parseLock(realLock, "images/lock.yaml");
    expect(() => lockEntry(lock, "mariadb-12")).toThrow(/unknown image "mariadb-12"/);
    try {
      lockEntry(lock, "mariadb-12");
    } catch (e) {
      expect((e as InputError).hint).toContain("mysql-9.7");
    }
  });
});

describe("lock hashes", () => {
  it("do not depend on key order", () => {
    expect(canonicalJson({ b: 1, a: [{ y: 2, x: 1 }] })).toBe(canonicalJson({ a: [{ x: 1, y: 2 }], b: 1 }));
    const a = parseLock(good, "a");
    const b = parseLock(
      good.replace("    family: mariadb\n    version: 11.8.9\n", "    version: 11.8.9\n    family: mariadb\n"),
      "b",
    );
    expect(lockEntryHash(a.images["mariadb-11.8"]!)).toBe(lockEntryHash(b.images["mariadb-11.8"]!));
  });

  it("change with a package version, not with the mirror (the packages are pinned by version)", () => {
    const a = parseLock(good, "a");
    const b = parseLock(good.replace("+ds-4", "+ds-5"), "b");
    const h = (l: typeof a) => lockEntryHash(l.images["mariadb-11.8"]!);
    expect(h(a)).not.toBe(h(b));
    const c = parseLock(`${good}\nmirrors: { debian: "http://mirror.example.test/debian" }\n`, "c");
    expect(h(a)).toBe(h(c));
  });
});
