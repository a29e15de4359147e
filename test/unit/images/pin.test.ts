import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { TwinbenchError } from "../../../src/core/base/errors.ts";
import { parseLock } from "../../../src/core/images/lock.ts";
import { digestRef, formatPinDiff, setOfficialDigests, splitImageRef } from "../../../src/core/images/pin.ts";

const realLock = readFileSync(new URL("../../../images/lock.yaml", import.meta.url), "utf8");
const FILE = "images/lock.yaml";
const d = (c: string) => `sha256:${c.repeat(64)}`;

function codeOf(f: () => unknown): string | undefined {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(TwinbenchError);
    return (e as TwinbenchError).code;
  }
  return undefined;
}

describe("splitImageRef / digestRef", () => {
  it.each([
    ["mariadb:11.8", "mariadb", "11.8"],
    ["debian:bookworm", "debian", "bookworm"],
    ["library/mysql:9.7", "library/mysql", "9.7"],
    ["127.0.0.1:5000/library/mariadb:11.8", "127.0.0.1:5000/library/mariadb", "11.8"],
    ["registry.example.org/team/mysql:9.7.4", "registry.example.org/team/mysql", "9.7.4"],
  ])("%s → %s + %s", (ref, repo, tag) => {
    expect(splitImageRef(ref)).toEqual({ repo, tag });
    expect(digestRef(ref, d("a"))).toBe(`${repo}@${d("a")}`);
  });

  it.each(["mariadb", "127.0.0.1:5000/library/mariadb", "mariadb:", "mariadb@sha256:00"])(
    "%s has no tag: refused",
    (ref) => {
      expect(codeOf(() => splitImageRef(ref))).toBe("LOCK_INVALID");
    },
  );
});

describe("the lock accepts refs on another registry", () => {
  it("127.0.0.1:PORT/library/mariadb:11.8 parses; a ref without a tag does not", () => {
    const withRef = (ref: string) => realLock.replace("ref: mariadb:11.8", `ref: ${ref}`);
    expect(parseLock(withRef("127.0.0.1:5000/library/mariadb:11.8"), FILE).images["mariadb-11.8"]!.official.ref).toBe(
      "127.0.0.1:5000/library/mariadb:11.8",
    );
    expect(codeOf(() => parseLock(withRef("127.0.0.1:5000/library/mariadb"), FILE))).toBe("LOCK_INVALID");
  });
});

describe("setOfficialDigests on the shipped lock", () => {
  const digests = { "mariadb-11.8": d("1"), "mariadb-10.11": d("2"), "mysql-9.7": d("3"), "sysbench-1.0": d("4") };

  it("changes exactly the four digest lines, nothing else (comments, quoting, flow lists stay)", () => {
    const r = setOfficialDigests(realLock, FILE, digests);
    const before = realLock.split("\n");
    const after = r.text.split("\n");
    expect(after.length).toBe(before.length);
    const changed = before.map((l, i) => (l === after[i] ? -1 : i + 1)).filter((i) => i > 0);
    expect(changed).toEqual(r.edits.map((e) => e.line));
    expect(changed).toHaveLength(4);
    for (const e of r.edits) {
      expect(before[e.line - 1]).toBe(e.lineBefore);
      expect(after[e.line - 1]).toBe(e.lineAfter);
      expect(e.lineBefore).toMatch(/^\s+digest: PLACEHOLDER$/);
      expect(e.lineAfter).toBe(e.lineBefore.replace("PLACEHOLDER", digests[e.name as keyof typeof digests]));
    }
    const lock = parseLock(r.text, FILE);
    for (const [n, dg] of Object.entries(digests)) expect(lock.images[n]!.official.digest).toBe(dg);
    expect(r.unchanged).toEqual([]);
  });

  it("pins only the named image, and a second pin with the same digest changes nothing", () => {
    const one = setOfficialDigests(realLock, FILE, { "mysql-9.7": d("3") });
    expect(one.edits.map((e) => e.name)).toEqual(["mysql-9.7"]);
    expect(parseLock(one.text, FILE).images["mariadb-11.8"]!.official.digest).toBe("PLACEHOLDER");
    const again = setOfficialDigests(one.text, FILE, { "mysql-9.7": d("3") });
    expect(again.edits).toEqual([]);
    expect(again.unchanged).toEqual(["mysql-9.7"]);
    expect(again.text).toBe(one.text);
    const moved = setOfficialDigests(one.text, FILE, { "mysql-9.7": d("5") });
    expect(moved.edits).toMatchObject([{ name: "mysql-9.7", before: d("3"), after: d("5") }]);
  });

  it("replaces a quoted digest and one in a flow map in place", () => {
    const raw = `schema: 1\nimages:\n  m:\n    family: mariadb\n    version: 11.8.9\n    suites: [sid]\n    package: mariadb-server\n    packages: { mariadb-server: "1:11.8.9+ds-4" }\n    official: { ref: "mariadb:11.8", digest: "PLACEHOLDER" } # keep me\n`;
    const r = setOfficialDigests(raw, FILE, { m: d("a") });
    expect(r.text).toBe(raw.replace('"PLACEHOLDER"', d("a")));
    expect(parseLock(r.text, FILE).images["m"]!.official.digest).toBe(d("a"));
  });

  it("refuses an unknown image and a value that is not a sha256 digest", () => {
    expect(codeOf(() => setOfficialDigests(realLock, FILE, { nope: d("1") }))).toBe("IMAGE_UNKNOWN");
    expect(codeOf(() => setOfficialDigests(realLock, FILE, { "mysql-9.7": "sha256:xyz" }))).toBe(
      "IMAGE_DIGEST_INVALID",
    );
  });

  it("formatPinDiff: one hunk per edit, naming the image and its ref", () => {
    const r = setOfficialDigests(realLock, FILE, { "mariadb-11.8": d("1") });
    const diff = formatPinDiff(FILE, r.edits);
    const line = r.edits[0]!.line;
    expect(diff).toEqual([
      `--- ${FILE}`,
      `+++ ${FILE}`,
      `@@ -${line} +${line} @@ mariadb-11.8 (mariadb:11.8)`,
      "-      digest: PLACEHOLDER",
      `+      digest: ${d("1")}`,
    ]);
    expect(formatPinDiff(FILE, [])).toEqual([]);
  });
});
