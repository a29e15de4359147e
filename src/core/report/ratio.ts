/**
 * The ratio table: one row per test (scenario order), one column per thread count, each cell
 * `numerator / denominator * 100` of a metric (median over repeats) with its confidence interval and verdict.
 * Pure: takes records, returns a model. Renderers live beside it.
 */
import { InputError } from "../errors.ts";
import type { CellRecord, RunManifest } from "../results.ts";
import type { SysbenchResult } from "../sysbench/result.ts";
import { DEFAULT_CV_THRESHOLD_PCT, median, ratioEstimate, type Pairing, type Verdict } from "../stats.ts";

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
  return metric === "qps" ? "q/s" : metric === "tps" ? "t/s" : metric === "p95" ? `p${percentile} latency` : "avg latency";
}

/** A ratio cell's state: measured, failed, skipped or missing. */
export type CellStatus = "ok" | "failed" | "skipped" | "missing";

/** One cell of the ratio table: the ratio with its confidence interval, verdict, repeats and CVs. */
export interface RatioCell {
  threads: number;
  /** Percentages; null unless status is "ok". */
  ratio: number | null;
  low: number | null;
  high: number | null;
  verdict: Verdict;
  /** Complete pairs (paired) or min(n_a, n_b) (unpaired). */
  n: number;
  status: CellStatus;
  /** Why the verdict is "unknown". */
  reason?: string;
  cvNumerator: number | null;
  cvDenominator: number | null;
  numeratorMedian: number | null;
  denominatorMedian: number | null;
  /** The metric of each repeat (index = repeat - 1), null where missing or failed. */
  numeratorValues: Array<number | null>;
  denominatorValues: Array<number | null>;
  /** Repeats that failed on either side. */
  failedRepeats: number;
}

/** One test's row of the ratio table. */
export interface RatioRow {
  test: string;
  cells: RatioCell[];
}

/** The ratio table: numerator / denominator × 100 per test and thread count. */
export interface RatioTable {
  metric: Metric;
  /** Server ids. */
  numerator: string;
  denominator: string;
  threads: number[];
  rows: RatioRow[];
  /** Extra fields (not in the fixed shape). */
  inverted: boolean;
  pairing: Pairing;
  cvThreshold: number;
  confidence: number;
  /** Human labels for legends, e.g. "MariaDB" / "MySQL", or "NEW mariadb" / "BASE mariadb". */
  numeratorLabel: string;
  denominatorLabel: string;
  /** Latency percentile rank behind "p95" (the scenario's workload.percentile). */
  percentile: number;
}

/** One side of a comparison: the records of one server (in one run). */
export interface Side {
  id: string;
  label: string;
  records: CellRecord[];
}

export interface RatioTableOptions {
  metric?: Metric;
  cvThresholdPct?: number;
  pairing?: Pairing;
  percentile?: number;
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

function usableValue(r: CellRecord, metric: Metric): number | null {
  if (r.status !== "ok" || !r.metrics || r.metrics.status === "failed") return null;
  const v = metricValue(r.metrics, metric);
  return typeof v === "number" && Number.isFinite(v) && v > 0 ? v : null;
}

function sideStatus(records: CellRecord[], metric: Metric): CellStatus {
  if (records.some((r) => usableValue(r, metric) !== null)) return "ok";
  if (records.some((r) => r.status === "failed" || r.metrics?.status === "failed")) return "failed";
  if (records.some((r) => r.status === "skipped")) return "skipped";
  return "missing";
}

const round = (x: number | null, digits = 4): number | null => (x === null ? null : Number(x.toFixed(digits)));

/** Build the table from two sides. Tests and threads give the order; cells not in them are ignored. */
export function ratioTableFromSides(
  num: Side,
  den: Side,
  tests: readonly string[],
  threads: readonly number[],
  opts: RatioTableOptions = {},
): RatioTable {
  const metric = opts.metric ?? "qps";
  const inverted = isInverted(metric);
  const pairing = opts.pairing ?? "paired";
  const cvThreshold = opts.cvThresholdPct ?? DEFAULT_CV_THRESHOLD_PCT;
  const group = (records: CellRecord[]) => {
    const m = new Map<string, CellRecord[]>();
    for (const r of records) {
      const k = `${r.test}|${r.threads}`;
      const list = m.get(k) ?? [];
      list.push(r);
      m.set(k, list);
    }
    return m;
  };
  const numGroups = group(measureRecords(num.records));
  const denGroups = group(measureRecords(den.records));

  const rows: RatioRow[] = tests.map((test) => ({
    test,
    cells: threads.map((t): RatioCell => {
      const a = numGroups.get(`${test}|${t}`) ?? [];
      const b = denGroups.get(`${test}|${t}`) ?? [];
      const maxRepeat = Math.max(0, ...a.map((r) => r.repeat), ...b.map((r) => r.repeat));
      const values = (records: CellRecord[]) => {
        const out: Array<number | null> = Array.from({ length: maxRepeat }, () => null);
        for (const r of records) if (r.repeat >= 1) out[r.repeat - 1] = usableValue(r, metric);
        return out;
      };
      const av = values(a);
      const bv = values(b);
      const failedRepeats = new Set(
        [...a, ...b].filter((r) => r.status === "failed" || r.metrics?.status === "failed").map((r) => r.repeat),
      ).size;
      const sa = sideStatus(a, metric);
      const sb = sideStatus(b, metric);
      const status: CellStatus =
        sa === "ok" && sb === "ok"
          ? "ok"
          : sa === "failed" || sb === "failed"
            ? "failed"
            : sa === "skipped" || sb === "skipped"
              ? "skipped"
              : "missing";
      const finiteOf = (xs: Array<number | null>) => xs.filter((x): x is number => x !== null);
      const numMedian = finiteOf(av).length ? median(finiteOf(av)) : null;
      const denMedian = finiteOf(bv).length ? median(finiteOf(bv)) : null;
      if (status !== "ok") {
        return {
          threads: t, ratio: null, low: null, high: null, verdict: "unknown", n: 0, status, reason: status,
          cvNumerator: null, cvDenominator: null, numeratorMedian: numMedian, denominatorMedian: denMedian,
          numeratorValues: av, denominatorValues: bv, failedRepeats,
        };
      }
      const est = ratioEstimate(av, bv, { invert: inverted, pairing, cvThresholdPct: cvThreshold });
      return {
        threads: t,
        ratio: round(est.ratio),
        low: round(est.low),
        high: round(est.high),
        verdict: est.verdict,
        n: est.n,
        status,
        ...(est.reason ? { reason: est.reason } : {}),
        cvNumerator: round(est.cvNumeratorPct, 3),
        cvDenominator: round(est.cvDenominatorPct, 3),
        numeratorMedian: numMedian,
        denominatorMedian: denMedian,
        numeratorValues: av,
        denominatorValues: bv,
        failedRepeats,
      };
    }),
  }));
  return {
    metric,
    numerator: num.id,
    denominator: den.id,
    threads: [...threads],
    rows,
    inverted,
    pairing,
    cvThreshold,
    confidence: 0.95,
    numeratorLabel: num.label,
    denominatorLabel: den.label,
    percentile: opts.percentile ?? 95,
  };
}

const FAMILY_NAMES: Record<string, string> = { mariadb: "MariaDB", mysql: "MySQL" };

/**
 * Numerator and denominator of a run: the scenario's `compare` key, else the first two servers.
 * Explicit ids win over both.
 */
export function pickServers(manifest: RunManifest, explicit?: { numerator?: string; denominator?: string }): [string, string] | null {
  const ids = manifest.scenario.servers.map((s) => s.id);
  const known = new Set([...ids, ...manifest.servers.map((s) => s.id)]);
  const cmp = manifest.scenario.compare;
  let num: string | undefined = explicit?.numerator ?? (typeof cmp === "object" ? cmp.numerator : ids[0]);
  let den: string | undefined = explicit?.denominator ?? (typeof cmp === "object" ? cmp.denominator : ids[1]);
  if (explicit?.numerator && !explicit.denominator) den = ids.find((i) => i !== num);
  if (explicit?.denominator && !explicit.numerator) num = ids.find((i) => i !== den);
  for (const id of [num, den]) {
    if (id !== undefined && !known.has(id)) {
      throw new InputError(`unknown server "${id}" in run ${manifest.runId}`, {
        code: "REPORT_SERVER",
        hint: `the run has servers ${[...known].join(", ")}`,
      });
    }
  }
  if (num === undefined || den === undefined) return null;
  return [num, den];
}

/** Legend labels: family names when the two families differ ("MariaDB" / "MySQL"), else the server ids. */
export function serverLabels(manifest: RunManifest, num: string, den: string): [string, string] {
  const fam = (id: string) => manifest.servers.find((s) => s.id === id)?.family;
  const fa = fam(num);
  const fb = fam(den);
  if (fa && fb && fa !== fb) return [FAMILY_NAMES[fa] ?? fa, FAMILY_NAMES[fb] ?? fb];
  return [num, den];
}

/** Tests in scenario order, then any others found in the records. Same for threads (scenario order, then ascending). */
export function axes(manifest: RunManifest, cells: readonly CellRecord[]): { tests: string[]; threads: number[] } {
  const tests = [...manifest.scenario.workload.tests];
  const threads = [...manifest.scenario.workload.threads];
  for (const c of cells) if (!tests.includes(c.test)) tests.push(c.test);
  const extra = [...new Set(cells.map((c) => c.threads))].filter((t) => !threads.includes(t)).sort((a, b) => a - b);
  return { tests, threads: [...threads, ...extra] };
}

/** The ratio table of one run: numerator/denominator from the scenario, paired repeats. */
export function buildRatioTable(
  manifest: RunManifest,
  cells: readonly CellRecord[],
  opts: RatioTableOptions & { numerator?: string; denominator?: string } = {},
): RatioTable | null {
  const pair = pickServers(manifest, opts);
  if (!pair) return null;
  const [num, den] = pair;
  const [ln, ld] = serverLabels(manifest, num, den);
  const { tests, threads } = axes(manifest, cells);
  return ratioTableFromSides(
    { id: num, label: ln, records: cells.filter((c) => c.server === num) },
    { id: den, label: ld, records: cells.filter((c) => c.server === den) },
    tests,
    threads,
    { pairing: "paired", percentile: manifest.scenario.workload.percentile ?? 95, ...opts },
  );
}

/** The fixed JSON shape plus the extra fields. */
export function ratioTableJson(t: RatioTable): object {
  return {
    metric: t.metric,
    numerator: t.numerator,
    denominator: t.denominator,
    threads: t.threads,
    rows: t.rows.map((r) => ({
      test: r.test,
      cells: r.cells.map((c) => ({
        threads: c.threads,
        ratio: c.ratio,
        low: c.low,
        high: c.high,
        verdict: c.verdict,
        n: c.n,
        status: c.status,
        ...(c.reason ? { reason: c.reason } : {}),
        cvNumerator: c.cvNumerator,
        cvDenominator: c.cvDenominator,
        numeratorMedian: c.numeratorMedian,
        denominatorMedian: c.denominatorMedian,
        failedRepeats: c.failedRepeats,
      })),
    })),
    inverted: t.inverted,
    pairing: t.pairing,
    cvThreshold: t.cvThreshold,
    confidence: t.confidence,
    numeratorLabel: t.numeratorLabel,
    denominatorLabel: t.denominatorLabel,
  };
}
