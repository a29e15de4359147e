/**
 * Records with a latency histogram whose p50, p95 and p99 are the given values (ms): the unit tests of the latency
 * readings build their runs from these.
 */
import type { CellRecord } from "../../src/core/model/results.ts";
import { cellRecord, sysbench } from "./record.ts";

/** A histogram of 100 events whose p50, p95 and p99 (as sysbench reads them) are exactly the three values. */
export function histogramOf(p50: number, p95: number, p99: number): Array<[number, number]> {
  return [
    [p50, 50],
    [p95, 45],
    [p99, 4],
    [p99 * 1.5, 1],
  ];
}

/** A measured record of `server` with that histogram (and sysbench's printed p95), plus any other fields. */
export function latencyRecord(
  server: string,
  repeat: number,
  p: readonly [number, number, number],
  over: Partial<CellRecord> = {},
): CellRecord {
  return cellRecord({
    server,
    repeat,
    startedAt: `2024-01-01T00:00:${String(repeat * 2 + (server === "a" ? 0 : 1)).padStart(2, "0")}Z`,
    metrics: sysbench({
      qps: 1000,
      latencyMs: { min: null, avg: null, max: null, sum: null, percentile: 95, percentileValue: p[1] },
      histogram: histogramOf(...p),
    }),
    ...over,
  });
}
