/**
 * The metric a ratio table reads (q/s, t/s, a latency percentile or the average latency): its name, which way is
 * better, the figure of a sysbench result it reads, and its short label.
 */
import { InputError } from "../base/errors.ts";
import type { SysbenchResult } from "../model/sysbench/result.ts";

export const METRICS = ["qps", "tps", "p95", "avg"] as const;

/** The metric of a ratio table: `qps`, `tps`, `p95` or `avg` latency (latency ratios are inverted so above 100 still means better). */
export type Metric = (typeof METRICS)[number];

/** Latency metrics are "lower is better": their ratio is inverted so that above 100 still means numerator better. */
export function isInverted(metric: Metric): boolean {
  return metric === "p95" || metric === "avg";
}

export function parseMetric(v: string): Metric {
  if ((METRICS as readonly string[]).includes(v)) return v as Metric;
  throw new InputError(`unknown metric "${v}"`, { code: "REPORT_METRIC", hint: `use one of ${METRICS.join(", ")}` });
}

/** The figure of a sysbench result a metric reads. `p95` is the printed latency percentile, whatever its rank. */
export function metricValue(m: SysbenchResult | null, metric: Metric): number | null {
  if (!m) return null;
  switch (metric) {
    case "qps":
      return m.qps;
    case "tps":
      return m.tps;
    case "p95":
      return m.latencyMs?.percentileValue ?? null;
    case "avg":
      return m.latencyMs?.avg ?? null;
  }
}

/** Short unit label used in legends: `q/s`, `t/s`, `p95 latency`, `avg latency`. */
export function metricLabel(metric: Metric, percentile = 95): string {
  return metric === "qps"
    ? "q/s"
    : metric === "tps"
      ? "t/s"
      : metric === "p95"
        ? `p${percentile} latency`
        : "avg latency";
}
