/** One cell of the ratio table before its estimate: medians, CVs, status, notes, and the estimator's input. */
import { describe, expect, it } from "vitest";
import type { CellRecord } from "../../../src/core/model/results.ts";
import { pairObs, ratioCell, type CellContext } from "../../../src/core/stats/ratio-cell.ts";
import { groupByCell } from "../../../src/core/stats/records.ts";
import { cellRecord, sysbench } from "../../support/record.ts";

const rec = (server: string, repeat: number, qps: number | null, over: Partial<CellRecord> = {}) =>
  cellRecord({
    server,
    repeat,
    metrics: qps === null ? null : sysbench({ qps, tps: qps / 20, latencyMs: { avg: 1000 / qps } as never }),
    startedAt: `2026-01-01T00:00:0${repeat}${server === "a" ? "0" : "1"}`,
    ...over,
  });
const ctxOf = (a: CellRecord[], b: CellRecord[], over: Partial<CellContext> = {}): CellContext => ({
  num: { id: "a", label: "A", records: a },
  den: { id: "b", label: "B", records: b },
  metric: "qps",
  inverted: false,
  pairing: "paired",
  sign: 1,
  floorSd: 0.001,
  numGroups: groupByCell(a),
  denGroups: groupByCell(b),
  byRuns: false,
  ...over,
});
const A = [rec("a", 1, 1100), rec("a", 2, 1000), rec("a", 3, 1200)];
const B = [rec("b", 1, 1000), rec("b", 2, 1000), rec("b", 3, 1000)];

describe("ratioCell", () => {
  it("a measured cell: medians, the ratio of medians, the CVs and the repeat values", () => {
    const { cell, pending } = ratioCell(ctxOf(A, B), "oltp_read_only", 1, 0, 0);
    expect(cell).toMatchObject({
      threads: 1,
      status: "ok",
      numeratorMedian: 1100,
      denominatorMedian: 1000,
      ratio: 110,
      numeratorValues: [1100, 1000, 1200],
      denominatorValues: [1000, 1000, 1000],
      cvDenominator: 0,
      failedRepeats: 0,
      estimate: null,
    });
    expect(cell.cvNumerator).toBeCloseTo(9.091, 3);
    expect(pending).toMatchObject({ row: 0, col: 0, pairRepeats: [1, 2, 3] });
  });

  it("paired: one pair per repeat with both values, d = ln(a/b), numerator first", () => {
    const { pending } = ratioCell(
      ctxOf(A, [B[0]!, rec("b", 2, null, { status: "failed" }), B[2]!]),
      "oltp_read_only",
      1,
      2,
      3,
    );
    expect(pending!.pairRepeats).toEqual([1, 3]);
    expect(pending!.input!.pairs.map((p) => p.d)).toEqual([Math.log(1.1), Math.log(1.2)]);
    expect(pending!.input!.pairs.every((p) => p.order === 1)).toBe(true);
    expect(pending!.input!.floorSd).toBe(0.001);
  });

  it("a latency metric is inverted: the ratio is den/num and d changes sign", () => {
    const { cell, pending } = ratioCell(
      ctxOf(A, B, { metric: "avg", inverted: true, sign: -1 }),
      "oltp_read_only",
      1,
      0,
      0,
    );
    expect(cell.ratio).toBeCloseTo(110, 2);
    expect(pending!.input!.pairs[0]!.d).toBeCloseTo(-Math.log(1000 / 1100 / (1000 / 1000)), 12);
  });

  it("unpaired: the two sides' log values as two samples", () => {
    const { pending } = ratioCell(ctxOf(A, B, { pairing: "unpaired" }), "oltp_read_only", 1, 0, 0);
    expect(pending!.input).toBeUndefined();
    expect(pending!.unpaired!.a).toEqual([1100, 1000, 1200].map(Math.log));
    expect(pending!.unpaired!.b).toEqual([1000, 1000, 1000].map(Math.log));
  });

  it("unpaired by runs: each run's mean log value is one observation", () => {
    const runs = (rs: CellRecord[]) => rs.map((r) => [r]);
    const ctx = ctxOf(A, B, {
      pairing: "unpaired",
      byRuns: true,
      num: { id: "a", label: "A", records: A, runs: runs(A) },
      den: { id: "b", label: "B", records: B, runs: [B] },
    });
    const { pending } = ratioCell(ctx, "oltp_read_only", 1, 0, 0);
    expect(pending!.unpaired!.a).toEqual([1100, 1000, 1200].map(Math.log));
    expect(pending!.unpaired!.b).toHaveLength(1);
    expect(pending!.unpaired!.b[0]).toBeCloseTo(Math.log(1000), 12);
  });

  it("a side with nothing usable: the cell takes its status as the reason and has no estimator input", () => {
    const failed = [rec("b", 1, null, { status: "failed" })];
    expect(ratioCell(ctxOf(A, failed), "oltp_read_only", 1, 0, 0)).toEqual({
      cell: expect.objectContaining({ status: "failed", reason: "failed", ratio: null, failedRepeats: 1 }),
    });
    expect(ratioCell(ctxOf(A, [rec("b", 1, null, { status: "skipped" })]), "oltp_read_only", 1, 0, 0).cell.reason).toBe(
      "skipped",
    );
    expect(ratioCell(ctxOf(A, []), "oltp_read_only", 1, 0, 0).cell).toMatchObject({
      status: "missing",
      denominatorMedian: null,
    });
  });

  it("the adaptive stop of the cell goes with its pairs", () => {
    const { pending } = ratioCell(
      ctxOf(A, B, { stops: new Map([["oltp_read_only|1", "precision"]]) }),
      "oltp_read_only",
      1,
      0,
      0,
    );
    expect(pending!.input!.stop).toBe("precision");
  });

  it("carries the unstable notes of both sides", () => {
    const stalled = [rec("a", 1, 1000, { metrics: sysbench({ qps: 1000, intervals: [{ t: 1, qps: 0, tps: 0 }] }) })];
    const { pending } = ratioCell(ctxOf(stalled, [B[0]!]), "oltp_read_only", 1, 0, 0);
    expect(pending!.unstable).toEqual(["a repeat 1 stalled: 1 second with no throughput"]);
  });
});

describe("pairObs", () => {
  it("the instance of either record, and which ran first", () => {
    const x = rec("a", 1, 1, { instance: 2, startedAt: "2026-01-01T00:00:02Z" });
    const y = rec("b", 1, 1, { startedAt: "2026-01-01T00:00:01Z" });
    expect(pairObs(0.1, x, y)).toEqual({ d: 0.1, instance: 2, order: -1 });
    expect(pairObs(0.1, y, x)).toEqual({ d: 0.1, instance: 2, order: 1 });
    expect(pairObs(0.1, x, undefined)).toEqual({ d: 0.1, instance: 2 });
    expect(pairObs(0.1, undefined, undefined)).toEqual({ d: 0.1 });
  });
});
