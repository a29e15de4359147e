import { describe, expect, it } from "vitest";
import { secondsToMs, splitLines } from "../../../../src/core/model/sysbench/lines.ts";

describe("secondsToMs", () => {
  it.each([
    ["13.5697", 13569.7],
    ["0.0153", 15.3],
    ["49958.1731", 49958173.1],
    ["2", 2000],
    ["0.2502", 250.2],
    ["0.0001", 0.1],
    ["0.00001", 0.01],
  ])("%s s → %d ms", (s, ms) => {
    expect(secondsToMs(s)).toBe(ms);
  });
});

describe("splitLines", () => {
  const long = `FATAL: ${"x".repeat(4095)}`;
  it.each([
    [
      "numbered from 1, CRLF or LF, no trailing empty line",
      "a\nb\r\nc\n",
      [
        [1, "a"],
        [2, "b"],
        [3, "c"],
      ],
    ],
    ["a message of exactly 4095 characters stays whole", long, [[1, long]]],
    [
      "a cut message and the one that ran on into its line are split apart, on the same line number",
      `${long}WARNING: next\nend`,
      [
        [1, long],
        [1, "WARNING: next"],
        [2, "end"],
      ],
    ],
    ["a long line that is no message is not split", "y".repeat(5000), [[1, "y".repeat(5000)]]],
  ])("%s", (_, text, want) => {
    expect(splitLines(text).map((l) => [l.no, l.raw])).toEqual(want);
  });
});
