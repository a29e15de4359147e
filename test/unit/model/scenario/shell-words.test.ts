/** The shell word splitter for pasted command lines (src/core/model/scenario/shell-words.ts), table-driven. */
import { describe, expect, it } from "vitest";
import { shellWords } from "../../../../src/core/model/scenario/shell-words.ts";

describe("shellWords", () => {
  const cases: Array<[string, string, string[]]> = [
    ["spaces and newlines", "a  b\n c", ["a", "b", "c"]],
    ["backslash-newline continuation", "sysbench \\\n--a=1 \\\n--b=2", ["sysbench", "--a=1", "--b=2"]],
    ["single quotes", "--x='a b' c", ["--x=a b", "c"]],
    ["double quotes and escapes", '--x="a \\"b\\" $V" c\\ d', ['--x=a "b" $V', "c d"]],
    ["variables stay literal", "--test=${TEST_DIR}/${SYSBENCH_TEST}", ["--test=${TEST_DIR}/${SYSBENCH_TEST}"]],
    ["comments", "a # b c\nd", ["a", "d"]],
  ];
  it.each(cases)("%s", (_n, input, expected) => expect(shellWords(input)).toEqual(expected));
  it("unterminated quote", () => expect(() => shellWords("a 'b")).toThrow(/unterminated single quote/));
  it("quoted operators are words", () =>
    expect(shellWords(`a '|' "&&" \\; 'x>y'`)).toEqual(["a", "|", "&&", ";", "x>y"]));
});
