import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { scan } from "../../../../src/core/model/sysbench/scan.ts";
import { isLegacyDraft, toLegacyResult } from "../../../../src/core/model/sysbench/parse-legacy.ts";

const root = join(import.meta.dirname, "../../../fixtures/sysbench");
const read = (dir: string, name: string) => readFileSync(join(root, dir, name), "utf8");
/** Every recorded or hand-written log of `dir` with its golden result(s). */
const fixturesOf = (dir: string) =>
  readdirSync(join(root, dir))
    .filter((n) => /\.(log|txt)$/.test(n) && n !== "VERSIONS.txt")
    .sort()
    .map((name) => {
      const expected: unknown = JSON.parse(read(dir, name.replace(/\.(log|txt)$/, ".expected.json")));
      return { name, text: read(dir, name), expected: Array.isArray(expected) ? expected : [expected] };
    });

describe.each(fixturesOf("legacy"))("legacy/$name", ({ text, expected }) => {
  it("every output is a 0.4/0.5 one and reads as its golden result", () => {
    const drafts = scan(text);
    expect(drafts.map(isLegacyDraft)).toEqual(expected.map(() => true));
    expect(drafts.map(toLegacyResult)).toEqual(expected);
  });
});

describe("isLegacyDraft on 1.0 logs", () => {
  it.each(["oltp_read_write-t4.log", "default-no-interval.log", "fail-bad-password.log"])("%s is not legacy", (n) => {
    expect(scan(read("1.0", n)).map(isLegacyDraft)).toEqual([false]);
  });
});

describe("refusals", () => {
  it("a 1.0 output read as a 0.4/0.5 one is refused, not misread", () => {
    const [d] = scan(read("1.0", "oltp_read_write-t4.log"));
    expect(() => toLegacyResult(d)).toThrow("the output mixes 1.0 interval lines with a 0.4/0.5 report");
  });
});
