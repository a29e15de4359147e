/**
 * Which records of a cell count and what they read: the measure records (the last attempt wins), a record's usable
 * figure of a metric, a side's state, the records by cell and by repeat, and how an adaptive run's cells stopped.
 */
import type { CellRecord, RunManifest } from "../model/results.ts";
import type { CellInput } from "./estimate.ts";
import { readsHistogram, recordMetric, type LatencySource, type Metric } from "./metric.ts";
import type { CellStatus } from "./ratio-model.ts";

/**
 * How each cell of an adaptive run stopped (run.json's adaptive summary), by `test|threads`: a cell with no `done`
 * was still open when the run ended (cancelled, or a failure). Empty for a fixed count.
 */
export function adaptiveStops(manifest: RunManifest): Map<string, NonNullable<CellInput["stop"]>> {
  return new Map((manifest.adaptive?.cells ?? []).map((c) => [`${c.test}|${c.threads}`, c.done ?? "open"]));
}

/** Measure records only, the last record per key winning (a retried cell replaces its earlier attempt). */
export function measureRecords(cells: readonly CellRecord[]): CellRecord[] {
  const byKey = new Map<string, CellRecord>();
  for (const c of cells) {
    if (c.phase === "warmup") continue;
    const k = `${c.host ?? ""}|${c.server}|${c.test}|${c.threads}|${c.repeat}`;
    byKey.delete(k);
    byKey.set(k, c);
  }
  return [...byKey.values()];
}

/**
 * A record's figure of the metric when it can be used (a measured, positive number), else null. A latency percentile
 * reads `source` ({@link latencySource}; default: the record's histogram when it has one).
 */
export function usableValue(r: CellRecord, metric: Metric, source?: LatencySource): number | null {
  if (!measured(r)) return null;
  // workload.trim: the rates without the cell's first seconds stand for the whole cell's.
  const v = r.trimmed && (metric === "qps" || metric === "tps") ? r.trimmed[metric] : recordMetric(r, metric, source);
  return typeof v === "number" && Number.isFinite(v) && v > 0 ? v : null;
}

/** A record with a usable sysbench result. */
const measured = (r: CellRecord) => r.status === "ok" && r.metrics !== null && r.metrics.status !== "failed";

/**
 * Where one table's latency percentiles come from (undefined for another metric): the histograms when every measured
 * record has one, else sysbench's printed percentile for all of them, so that a table never mixes the two readings.
 */
export function latencySource(records: readonly CellRecord[], metric: Metric): LatencySource | undefined {
  if (!readsHistogram(metric)) return undefined;
  const used = records.filter((r) => r.phase !== "warmup" && measured(r));
  return used.length > 0 && used.every((r) => (r.metrics?.histogram?.length ?? 0) > 0) ? "histogram" : "printed";
}

/** One side's state in a cell: ok when any record is usable, else failed, skipped or missing. */
export function sideStatus(records: CellRecord[], metric: Metric, source?: LatencySource): CellStatus {
  if (records.some((r) => usableValue(r, metric, source) !== null)) return "ok";
  if (records.some((r) => r.status === "failed" || r.metrics?.status === "failed")) return "failed";
  if (records.some((r) => r.status === "skipped")) return "skipped";
  return "missing";
}

/** Records by cell (`test|threads`). */
export function groupByCell(records: CellRecord[]): Map<string, CellRecord[]> {
  const m = new Map<string, CellRecord[]>();
  for (const r of records) {
    const k = `${r.test}|${r.threads}`;
    const list = m.get(k) ?? [];
    list.push(r);
    m.set(k, list);
  }
  return m;
}

/** The metric of each repeat (index = repeat - 1), null where missing or failed. */
export function repeatValues(
  records: CellRecord[],
  metric: Metric,
  length: number,
  source?: LatencySource,
): Array<number | null> {
  const out: Array<number | null> = Array.from({ length }, () => null);
  for (const r of records) if (r.repeat >= 1) out[r.repeat - 1] = usableValue(r, metric, source);
  return out;
}

/** Each run's measure records (see {@link measureRecords}). */
export function measureRuns(runs: CellRecord[][]): CellRecord[][] {
  return runs.map((rs) => measureRecords(rs));
}
