/**
 * The latency percentiles of a report (pure): p50, p95 and p99 of every cell, per server, from the latency histogram
 * sysbench prints (histogram.ts), and the paired ratio of each percentile across repeats. Each percentile is one
 * ratio table of the shipped engine (ratioTableFromSides with a percentile metric: the same pairs, estimator,
 * interval and verdict as q/s, with the histogram's rounding as a floor on the pair sd); the caller builds them, one
 * per compared pair (or server, in a comparison of runs) and percentile. Here they become one family: one
 * Benjamini–Hochberg adjustment over every latency reading of the report (fdr.ts jointFdr), as the q/s verdicts use.
 *
 * Direction: the engine inverts a latency ratio (denominator / numerator × 100) so that above 100 means the
 * numerator is faster, as in the q/s table; the report shows the plain latency ratio, numerator / denominator
 * (0.82×: the numerator's latency is 0.82 of the denominator's, lower is better), whose verdict words are the same.
 */
import type { CellRecord } from "../model/results.ts";
import { expectedFalseVerdicts, jointFdr } from "./fdr.ts";
import { BUCKET_LOG_WIDTH, narrowerThanBucket } from "./histogram.ts";
import { LATENCY_PERCENTILES, type LatencyPercentile } from "./metric.ts";
import type { RatioCell, RatioTable } from "./ratio-model.ts";
import { measureRecords } from "./records.ts";
import { DEFAULT_CONFIDENCE } from "./estimate.ts";

/** One latency table: a percentile of one compared pair (or server), with q over the whole section. */
export interface LatencyTable {
  percentile: LatencyPercentile;
  table: RatioTable;
}

/** The latency section of a report: its tables, and the family its verdicts are adjusted over. */
export interface LatencySection {
  /** Pair (or server) by pair, each in percentile order; empty when no measured record has a histogram. */
  tables: LatencyTable[];
  /** Latency readings (cells with an interval) over every table: the Benjamini–Hochberg family. */
  readings: number;
  /** False faster/slower readings that chance alone gives over them at the tables' confidence. */
  expectedFalse: number;
  /** faster/slower readings, and how many hold at a 5% false-discovery rate over the family. */
  verdicts: number;
  verdictsAtFdr: number;
  /** Readings whose interval is narrower than one histogram bucket. */
  atResolution: number;
  /** Measured records with a usable result: with a latency histogram, and without one. */
  withHistogram: number;
  withoutHistogram: number;
  /** The distance between two histogram buckets, in percent (about 1.8). */
  bucketPct: number;
}

/** A cell's plain latency ratio, numerator / denominator (the engine's inverted estimate read back), and interval. */
export interface LatencyRatio {
  ratio: number;
  low: number | null;
  high: number | null;
}

/** The plain latency ratio of a cell of an inverted table (1 = equal; below 1: the numerator is faster). */
export function latencyRatio(c: Pick<RatioCell, "estimate" | "low" | "high">): LatencyRatio | null {
  if (c.estimate === null || !(c.estimate > 0)) return null;
  const back = (x: number | null) => (x === null || !(x > 0) ? null : 100 / x);
  return { ratio: 100 / c.estimate, low: back(c.high), high: back(c.low) };
}

/** Is a cell's interval narrower than one histogram bucket (the data cannot resolve it)? */
export function atHistogramResolution(c: Pick<RatioCell, "low" | "high">): boolean {
  return narrowerThanBucket(c.low, c.high);
}

/**
 * The latency section from its tables, built by `build` for each percentile (one table per compared pair or server,
 * in the same order for every percentile) from `records` (every record the tables read). Null without tables (fewer
 * than two servers). Without any histogram the section has no tables and says so (withHistogram 0).
 */
export function latencySection(
  build: (metric: LatencyPercentile) => RatioTable[],
  records: readonly CellRecord[],
): LatencySection | null {
  const usable = measureRecords(records).filter((r) => r.status === "ok" && r.metrics && r.metrics.status !== "failed");
  const withHistogram = usable.filter((r) => (r.metrics?.histogram?.length ?? 0) > 0).length;
  const bucketPct = Math.round((Math.exp(BUCKET_LOG_WIDTH) - 1) * 1000) / 10;
  const perPercentile = LATENCY_PERCENTILES.map((p) => build(p));
  if (!perPercentile[0]!.length) return null;
  const base = { withHistogram, withoutHistogram: usable.length - withHistogram, bucketPct };
  if (withHistogram === 0)
    return { tables: [], readings: 0, expectedFalse: 0, verdicts: 0, verdictsAtFdr: 0, atResolution: 0, ...base };
  // Pair by pair, each in percentile order.
  const order: Array<{ percentile: LatencyPercentile; table: RatioTable }> = [];
  perPercentile[0]!.forEach((_, i) =>
    LATENCY_PERCENTILES.forEach((p, k) => {
      const t = perPercentile[k]![i];
      if (t) order.push({ percentile: p, table: t });
    }),
  );
  const adjusted = jointFdr(order.map((x) => x.table));
  const tables = order.map((x, i) => ({ percentile: x.percentile, table: adjusted[i]! }));
  const cells = adjusted.flatMap((t) => t.rows.flatMap((r) => r.cells));
  const decided = cells.filter((c) => c.direction === "faster" || c.direction === "slower");
  const readings = cells.filter((c) => c.low !== null && c.high !== null).length;
  return {
    tables,
    readings,
    expectedFalse: expectedFalseVerdicts(readings, adjusted[0]?.confidence ?? DEFAULT_CONFIDENCE),
    verdicts: decided.length,
    verdictsAtFdr: decided.filter((c) => c.fdr === "holds").length,
    atResolution: cells.filter(atHistogramResolution).length,
    ...base,
  };
}
