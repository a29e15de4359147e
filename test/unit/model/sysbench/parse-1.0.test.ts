import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { scan } from "../../../../src/core/model/sysbench/scan.ts";
import { toResult10 } from "../../../../src/core/model/sysbench/parse-1.0.ts";
import { isLegacyDraft } from "../../../../src/core/model/sysbench/parse-legacy.ts";

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

describe.each(fixturesOf("1.0"))("1.0/$name", ({ text, expected }) => {
  it("is a 1.0 output and reads as its golden result", () => {
    const drafts = scan(text);
    expect(drafts.map(isLegacyDraft)).toEqual(expected.map(() => false));
    expect(drafts.map(toResult10)).toEqual(expected);
  });
});

describe("refusals", () => {
  const rw = read("1.0", "oltp_read_write-t4.log");
  it.each([
    ["a statistics block without its queries line", /^\s+queries:/, "the SQL statistics block has no 'queries' line"],
    [
      "a fairness block without execution time",
      /^\s+execution time \(avg\/stddev\):/,
      "the Threads fairness block lacks 'events' or 'execution time'",
    ],
  ])("%s", (_, line, message) => {
    const cut = rw
      .split("\n")
      .filter((l) => !line.test(l))
      .join("\n");
    const [d] = scan(cut);
    expect(() => toResult10(d)).toThrow(message);
  });
});
