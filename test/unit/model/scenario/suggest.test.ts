/** "Did you mean" helpers (src/core/model/scenario/suggest.ts), table-driven. */
import { describe, expect, it } from "vitest";
import { closest, didYouMean, levenshtein, show } from "../../../../src/core/model/scenario/suggest.ts";

describe("levenshtein", () => {
  it.each([
    ["", "", 0],
    ["", "abc", 3],
    ["abc", "", 3],
    ["kitten", "sitting", 3],
    ["flaw", "lawn", 2],
    ["same", "same", 0],
  ])("%j → %j: %i", (a, b, d) => {
    expect(levenshtein(a, b)).toBe(d);
    expect(levenshtein(b, a)).toBe(d);
  });
});

describe("closest and didYouMean", () => {
  const names = ["oltp_read_only", "oltp_point_select", "tableSize", "threads"];
  it.each([
    ["OLTP-READ-ONLY", "oltp_read_only"], // case, - and _ ignored first
    ["oltp_read_onyl", "oltp_read_only"],
    ["tablesize", "tableSize"],
    ["thread", "threads"],
    ["duration", undefined], // nothing close enough
    ["xyz", undefined],
  ])("%j → %j", (word, want) => expect(closest(word, names)).toBe(want));

  it("the limit is max(2, a third of the word's length)", () => {
    expect(closest("ab", ["xy"])).toBe("xy"); // distance 2 ≤ 2
    expect(closest("abc", ["xyz"])).toBeUndefined(); // distance 3 > 2
    expect(closest("abcdefghi", ["abcdefxyz"])).toBe("abcdefxyz"); // 3 ≤ 9/3
  });

  it("didYouMean phrases the suggestion, or says nothing", () => {
    expect(didYouMean("thread", names)).toBe('; did you mean "threads"?');
    expect(didYouMean("xyz", names)).toBe("");
  });
});

describe("show", () => {
  it.each([
    [undefined, "nothing"],
    ["x", '"x"'],
    [3, "3"],
    [null, "null"],
    [{ a: [1, 2] }, '{"a":[1,2]}'],
    [10n, "10"], // not JSON: its plain string form
    ["y".repeat(70), `"${"y".repeat(56)}...`],
  ])("%# → %s", (v, want) => expect(show(v)).toBe(want));
});
