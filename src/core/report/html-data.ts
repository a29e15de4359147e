/**
 * What report.html's charts need, gathered from the records (pure): per test the metric per server and thread count,
 * the per-second series of warm-ups and measured repeats, and the latency histograms.
 */
import type { CellRecord, RunManifest } from "../model/results.ts";
import { measureRecords } from "../stats/records.ts";
import { recordMetric, type Metric } from "../stats/metric.ts";
import type { RunReport } from "./model.ts";

/** The median of xs, null when there is none. */
function median(xs: number[]): number | null {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

export interface MetricChart {
  test: string;
  metric: Metric;
  threads: number[];
  series: Array<{ server: string; medians: Array<number | null>; points: Array<{ x: string; y: number }> }>;
}

export interface TimeSeriesChart {
  test: string;
  threads: number;
  field: "qps" | "tps";
  series: Array<{ server: string; repeat: number; warmup: boolean; threads?: number; points: Array<[number, number]> }>;
}

export interface HistogramChart {
  test: string;
  threads: number;
  series: Array<{ server: string; repeat: number; points: Array<[number, number]> }>;
}

/** Everything report.html shows: the ratio table, charts, server and storage facts. Built by {@link buildHtmlData}. */
export interface HtmlData {
  title: string;
  servers: string[];
  metricCharts: MetricChart[];
  timeSeries: TimeSeriesChart[];
  histograms: HistogramChart[];
  report: RunReport;
  manifest: RunManifest;
}

/** Gather what the charts need from the records (pure). */
export function buildHtmlData(manifest: RunManifest, cells: readonly CellRecord[], report: RunReport): HtmlData {
  const metric: Metric = report.table?.metric ?? "qps";
  const tests = report.table?.rows.map((r) => r.test) ?? [...manifest.scenario.workload.tests];
  const threads = report.table?.threads ?? [...manifest.scenario.workload.threads];
  const servers = manifest.scenario.servers.map((s) => s.id);
  const measured = measureRecords(cells).filter((c) => c.status === "ok" && c.metrics);
  const warmups = cells.filter((c) => c.phase === "warmup" && c.status === "ok" && c.metrics);
  const field: "qps" | "tps" = metric === "tps" ? "tps" : "qps";

  const metricCharts: MetricChart[] = tests.map((test) => ({
    test,
    metric,
    threads,
    series: servers.map((server) => {
      const points: Array<{ x: string; y: number }> = [];
      const medians = threads.map((t) => {
        const vals = measured
          .filter((c) => c.server === server && c.test === test && c.threads === t)
          .map((c) => recordMetric(c, metric))
          .filter((v): v is number => typeof v === "number" && Number.isFinite(v));
        for (const y of vals) points.push({ x: String(t), y });
        return median(vals);
      });
      return { server, medians, points };
    }),
  }));

  const timeSeries: TimeSeriesChart[] = [];
  const histograms: HistogramChart[] = [];
  for (const test of tests) {
    for (const t of threads) {
      const ts: TimeSeriesChart = { test, threads: t, field, series: [] };
      const hist: HistogramChart = { test, threads: t, series: [] };
      for (const server of servers) {
        // The engine warms up once per server × test (at the largest thread count): chart it with that thread
        // count, or with the first one when it ran at a count the table does not show.
        const warm = warmups.filter(
          (c) =>
            c.server === server &&
            c.test === test &&
            (c.threads === t || (!threads.includes(c.threads) && t === threads[0])),
        );
        for (const w of warm) {
          const iv = w.metrics!.intervals ?? [];
          const end = iv.length ? Math.max(...iv.map((s) => s.t)) : 0;
          if (iv.length)
            ts.series.push({
              server,
              repeat: w.repeat,
              warmup: true,
              threads: w.threads,
              points: iv.map((s) => [s.t - end, s[field]]),
            });
        }
        const meas = measured
          .filter((c) => c.server === server && c.test === test && c.threads === t)
          .sort((a, b) => a.repeat - b.repeat);
        for (const m of meas) {
          const iv = m.metrics!.intervals ?? [];
          if (iv.length)
            ts.series.push({ server, repeat: m.repeat, warmup: false, points: iv.map((s) => [s.t, s[field]]) });
          const h = m.metrics!.histogram;
          if (h && h.length) hist.series.push({ server, repeat: m.repeat, points: h.map(([v, n]) => [v, n]) });
        }
      }
      if (ts.series.length) timeSeries.push(ts);
      if (hist.series.length) histograms.push(hist);
    }
  }
  const names = report.ladder
    ? servers.join("/")
    : report.table
      ? `${report.table.numeratorLabel}/${report.table.denominatorLabel}`
      : servers.join("/");
  return {
    title: `${names} sysbench comparison: ${report.scenarioName} (${report.runId})`,
    servers,
    metricCharts,
    timeSeries,
    histograms,
    report,
    manifest,
  };
}
