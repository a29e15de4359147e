import { describe, expect, it } from "vitest";
import {
  countOf,
  emptyFairness,
  emptyLatency,
  intOf,
  numOf,
  parseIntervalLine,
  rateOf,
  secondsToMs,
  splitLines,
  statementCounts,
  type Value,
} from "../../../../src/core/model/sysbench/grammar.ts";

describe("parseIntervalLine (live display)", () => {
  it.each([
    [
      "[ 1s ] thds: 4 tps: 1251.11 qps: 25087.03 (r/w/o: 17573.38/4370.42/3143.23) lat (ms,99%): 5.47 err/s: 1.00 reconn/s: 0.00",
      {
        t: 1,
        threads: 4,
        tps: 1251.11,
        qps: 25087.03,
        readsPerSec: 17573.38,
        writesPerSec: 4370.42,
        otherPerSec: 3143.23,
        latencyPercentile: 99,
        latencyMs: 5.47,
        errorsPerSec: 1,
        reconnectsPerSec: 0,
      },
    ],
    ["Threads started!", null],
    ["[ 1s ] thds: 4 tps: 12", null],
    ["[ 1s ] queue length: 5, concurrency: 0", null],
  ])("%s", (line, want) => {
    expect(parseIntervalLine(line)).toEqual(want);
  });
});

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

describe("value readers", () => {
  const int: Value = { kind: "int", n: 7 } as Value;
  const num: Value = { kind: "number", n: 1.5 } as Value;
  const cr: Value = { kind: "countRate", n: 100, perSec: 9.5 } as Value;
  it.each([
    ["int", int, [7, null, null, null]],
    ["number", num, [null, 1.5, null, null]],
    ["count and rate", cr, [null, null, 100, 9.5]],
    ["absent", undefined, [null, null, null, null]],
  ])("%s", (_, v, want) => {
    expect([intOf(v), numOf(v), countOf(v), rateOf(v)]).toEqual(want);
  });

  it("statement counts read each named value, null when absent", () => {
    const st = new Map<string, Value>([
      ["read", { kind: "int", n: 10 } as Value],
      ["write", { kind: "int", n: 4 } as Value],
      ["transactions", cr],
    ]);
    expect(statementCounts(st)).toEqual({
      reads: 10,
      writes: 4,
      other: null,
      totalQueries: null,
      transactions: 100,
      tps: 9.5,
    });
    expect(Object.values(statementCounts(undefined))).toEqual([null, null, null, null, null, null]);
  });

  it("empty latency and fairness hold only nulls", () => {
    expect(Object.values(emptyLatency()).every((v) => v === null)).toBe(true);
    expect(Object.keys(emptyLatency())).toEqual(["min", "avg", "max", "sum", "percentile", "percentileValue"]);
    expect(emptyFairness()).toEqual({ eventsAvg: null, eventsStddev: null, execAvg: null, execStddev: null });
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
