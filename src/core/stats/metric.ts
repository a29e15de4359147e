/**
 * The metric a ratio table reads (q/s, t/s, a latency percentile, the average latency, or the TPC-C-like workload's
 * new-orders per minute): its name, which way is better, the figure of a record it reads, and its short label.
 */
import { InputError } from "../base/errors.ts";
import type { CellRecord } from "../model/results.ts";
import type { SysbenchResult } from "../model/sysbench/result.ts";
import { histogramPercentile } from "./histogram.ts";

export const METRICS = ["qps", "tps", "p95", "avg", "p50", "p99", "nopm"] as const;

/**
 * The metric of a ratio table: `qps`, `tps`, a latency percentile (`p50`, `p95`, `p99`), `avg` latency, or `nopm`
 * (new-orders per minute of a TPC-C-like cell). Latency ratios are inverted so that above 100 still means better.
 */
export type Metric = (typeof METRICS)[number];

/** The latency percentiles a report reads from each cell's histogram, in the order it shows them. */
export const LATENCY_PERCENTILES = ["p50", "p95", "p99"] as const;
export type LatencyPercentile = (typeof LATENCY_PERCENTILES)[number];

/** The rank of a latency percentile metric (50, 95, 99), or null for another metric. */
export function percentileRank(metric: Metric): number | null {
  return metric === "p50" ? 50 : metric === "p95" ? 95 : metric === "p99" ? 99 : null;
}

/** Latency metrics are "lower is better": their ratio is inverted so that above 100 still means numerator better. */
export function isInverted(metric: Metric): boolean {
  return percentileRank(metric) !== null || metric === "avg";
}

/** Does the metric read sysbench's latency histogram (whose buckets round every value it gives)? */
export function readsHistogram(metric: Metric): boolean {
  return percentileRank(metric) !== null;
}

export function parseMetric(v: string): Metric {
  if ((METRICS as readonly string[]).includes(v)) return v as Metric;
  throw new InputError(`unknown metric "${v}"`, { code: "REPORT_METRIC", hint: `use one of ${METRICS.join(", ")}` });
}

/**
 * Where a table's latency percentiles come from: each repeat's `histogram` (as sysbench reads its own percentile, so
 * the histogram's p95 is the printed 95th percentile, with three decimals where sysbench prints two), or the
 * `printed` percentile. A table reads one source for all its records (records.ts latencySource): the histograms when
 * every record has one, else the printed percentile.
 */
export type LatencySource = "histogram" | "printed";

/**
 * The figure of a sysbench result a metric reads (null for `nopm`, which is not sysbench's: {@link recordMetric}).
 * A percentile reads `source` (default: the histogram when the result has one, else the printed percentile). From the
 * printed percentile `p95` is that percentile whatever its rank (older records; the table's label names that rank),
 * and `p50`/`p99` are it only at their own rank.
 */
export function metricValue(m: SysbenchResult | null, metric: Metric, source?: LatencySource): number | null {
  if (!m) return null;
  switch (metric) {
    case "qps":
      return m.qps;
    case "tps":
      return m.tps;
    case "avg":
      return m.latencyMs?.avg ?? null;
    case "nopm":
      return null;
    case "p50":
    case "p95":
    case "p99": {
      const rank = percentileRank(metric)!;
      const histogram = source === "histogram" || (source === undefined && (m.histogram?.length ?? 0) > 0);
      if (histogram) return m.histogram?.length ? histogramPercentile(m.histogram, rank) : null;
      const printed = m.latencyMs?.percentileValue ?? null;
      return metric === "p95" || m.latencyMs?.percentile === rank ? printed : null;
    }
  }
}

/** The figure of a record a metric reads: `nopm` from its TPC-C-like figures, the others from its sysbench result. */
export function recordMetric(r: CellRecord, metric: Metric, source?: LatencySource): number | null {
  return metric === "nopm" ? (r.tpcc?.nopm ?? null) : metricValue(r.metrics, metric, source);
}

/**
 * The rank a percentile table's label names: a percentile metric's own rank, except `p95` read from the printed
 * percentile, whose rank is the scenario's `percentile` (`printed`).
 */
export function labelRank(metric: Metric, source: LatencySource | undefined, printed: number): number {
  const rank = percentileRank(metric);
  if (rank === null || (metric === "p95" && source === "printed")) return printed;
  return rank;
}

/** Short unit label used in legends: `q/s`, `t/s`, `p95 latency`, `avg latency`, `NOPM`. */
export function metricLabel(metric: Metric, percentile = 95): string {
  switch (metric) {
    case "qps":
      return "q/s";
    case "tps":
      return "t/s";
    case "avg":
      return "avg latency";
    case "nopm":
      return "NOPM";
    case "p95":
      return `p${percentile} latency`;
    default:
      return `p${percentileRank(metric)} latency`;
  }
}
