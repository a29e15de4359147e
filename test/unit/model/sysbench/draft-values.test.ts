import { describe, expect, it } from "vitest";
import {
  countOf,
  emptyFairness,
  emptyLatency,
  intOf,
  numOf,
  rateOf,
  statementCounts,
} from "../../../../src/core/model/sysbench/draft-values.ts";
import type { Value } from "../../../../src/core/model/sysbench/blocks.ts";

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
