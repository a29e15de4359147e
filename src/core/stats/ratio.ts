/**
 * The ratio table: one row per test (scenario order), one column per thread count. Each cell carries two figures:
 * - `ratio`: median(numerator) / median(denominator) * 100, the seed tables' figure (the first text table);
 * - `estimate`: exp(mean log pair ratio) * 100 with its [low, high] interval and verdict, from the run-level
 *   pooled estimator (src/core/stats/estimate.ts; docs/stats.md). Every other format shows this one.
 * Pure: takes records, returns a model. Renderers live beside it.
 */
import { InputError } from "../base/errors.ts";
import type { CellRecord, RunManifest } from "../model/results.ts";
import { adaptiveRepeats, reportMarginPct } from "../model/scenario/schema.ts";
import { primaryPair } from "../model/scenario/pairs.ts";
import type { SysbenchResult } from "../model/sysbench/result.ts";
import { coefficientOfVariation, median } from "../base/distributions.ts";
import { STEADY_THRESHOLD_PCT_PER_10S, notSteady, steadySlope } from "../measure/levers.ts";
import { testWrites } from "../model/scenario/legacy.ts";
import { errorMarks, isLoadBound } from "../measure/cellstate.ts";
import {
  DEFAULT_CONFIDENCE,
  QUANTISATION_SD,
  benjaminiHochberg,
  estimateRun,
  estimateUnpaired,
  expectedFalseVerdicts,
  orderEffect,
  outlierPairs,
  type CellEstimate,
  type CellInput,
  type OrderEffect,
  type PairObs,
  type RunEstimate,
  type UnpairedInput,
} from "./estimate.ts";
import { DEFAULT_MARGIN_PCT } from "../model/scenario/schema.ts";
import { FDR, cellVerdict, type Direction, type Equivalence, type FdrReading, type Verdict } from "../model/verdict.ts";

export type { Direction, Equivalence, FdrReading, Verdict } from "../model/verdict.ts";
export { FDR } from "../model/verdict.ts";
export type Pairing = "paired" | "unpaired";

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

/** A ratio cell's state: measured, failed, skipped or missing. */
export type CellStatus = "ok" | "failed" | "skipped" | "missing";

/** One cell of the ratio table: the ratio with its confidence interval, verdict, repeats and CVs. */
export interface RatioCell {
  threads: number;
  /** median(numerator) / median(denominator) * 100: the seed tables' figure. Null unless status is "ok". */
  ratio: number | null;
  /** exp(mean log pair ratio) * 100, the centre of the interval; null unless status is "ok". */
  estimate: number | null;
  /** The interval of `estimate`, in %. */
  low: number | null;
  high: number | null;
  /** The verdict kind (verdict.ts): direction and equivalence in one, e.g. `faster-within`. */
  verdict: Verdict;
  /** faster / slower / none (the interval includes 100) / unknown (no interval). */
  direction: Direction;
  /** within / beyond / undetermined against 100 ± marginPct; unknown without an interval. */
  equivalence: Equivalence;
  /** Whether a faster/slower direction holds under Benjamini–Hochberg at FDR (q ≤ 0.05); null for the others. */
  fdr: FdrReading;
  /** Complete pairs (paired), min(n_a, n_b) (unpaired), or runs per side (compare with several runs). */
  n: number;
  status: CellStatus;
  /** Why there is no interval or no verdict (too-few-pairs, zero-width, no-data, failed, skipped, missing). */
  reason?: string;
  /** Server instances the pairs ran on (1 when the records carry none). */
  instances: number;
  /** Degrees of freedom of the interval's t quantile; null without an interval. */
  df: number | null;
  /** Two-sided p-value of "no difference", and its Benjamini–Hochberg q-value over the table's cells. */
  p: number | null;
  q: number | null;
  /** Why the cell is unstable (a stalled per-second series, an outlier pair, a repeat disturbed by outside work); empty when it is not. */
  unstable: string[];
  cvNumerator: number | null;
  cvDenominator: number | null;
  numeratorMedian: number | null;
  denominatorMedian: number | null;
  /** The metric of each repeat (index = repeat - 1), null where missing or failed. */
  numeratorValues: Array<number | null>;
  denominatorValues: Array<number | null>;
  /** Repeats that failed on either side. */
  failedRepeats: number;
  /** The half-width (%) an adaptive run's stop rule reads (CellEstimate.stopHalfWidthPct); null without one. */
  stopHalfWidthPct?: number | null;
  /** The interval's variance is the held-out half's of a sequential run's split (estimateRun). */
  split?: boolean;
  /** Most of the cell's measured repeats (both sides) were load-bound (src/core/measure/cellstate.ts): no verdict. */
  loadBound: boolean;
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
  confidence: number;
  /** Equivalence margin: `equivalent` when the interval lies inside 100 ± marginPct. */
  marginPct: number;
  /** How the cells' variance was pooled and what it includes. */
  method: TableMethod;
  /** Human labels for legends, e.g. "MariaDB" / "MySQL", or "NEW mariadb" / "BASE mariadb". */
  numeratorLabel: string;
  denominatorLabel: string;
  /** Latency percentile rank behind "p95" (the scenario's workload.percentile). */
  percentile: number;
}

export interface TableMethod {
  /** Prior of the cells' variances: df d0 (Infinity: one variance for all cells) and its sd in log units. */
  priorDf: number | null;
  priorSd: number | null;
  /** sd between server instances (log units), when some cell ran on 2 or more instances. */
  instanceSd: number | null;
  /** Cells whose interval includes the level between instances (or, in compare, between runs). */
  instanceCells: number;
  /** "repeats": the replication unit is the pair or repeat; "runs": each run's cell value (compare, ≥ 2 runs a side). */
  unit: "repeats" | "runs";
  /** Cells with an interval, and the false faster/slower verdicts chance alone gives over them. */
  intervals: number;
  expectedFalse: number;
  /** faster/slower verdicts, and how many hold at a 5% false-discovery rate (Benjamini–Hochberg). */
  verdicts: number;
  verdictsAtFdr: number;
  /** Paired tables: numerator-first against denominator-first, pooled over cells. */
  order: OrderEffect | null;
  /** df of the variance within server instances (0: every instance held one pair, the levels are not separable). */
  withinDf?: number;
  /** Cells whose interval uses the held-out half of a sequential run's split (estimateRun). */
  splitCells?: number;
  /** Cells of a sequential run stopped by max or the budget (or still open), whose interval uses all their units. */
  allUnitsCells?: number;
  /** The smallest and largest df of the cells' t quantiles. */
  dfRange?: [number, number] | null;
}

/** One side of a comparison: the records of one server (in one run, or in several runs). */
export interface Side {
  id: string;
  label: string;
  records: CellRecord[];
  /** Several runs of this side (compare): each run's records. With 2 or more on both sides, runs are the unit. */
  runs?: CellRecord[][];
}

export interface RatioTableOptions {
  metric?: Metric;
  /** Equivalence margin in percent (default 5). */
  marginPct?: number;
  pairing?: Pairing;
  percentile?: number;
  /** The run stopped its cells on their estimated width (adaptive repeats): estimateRun's split. */
  sequential?: boolean;
  /** How each cell of an adaptive run stopped, by `test|threads` (adaptiveStops): estimateRun's `stop`. */
  stops?: ReadonlyMap<string, NonNullable<CellInput["stop"]>>;
}

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

function usableValue(r: CellRecord, metric: Metric): number | null {
  if (r.status !== "ok" || !r.metrics || r.metrics.status === "failed") return null;
  // workload.trim: the rates without the cell's first seconds stand for the whole cell's.
  const v = r.trimmed && (metric === "qps" || metric === "tps") ? r.trimmed[metric] : metricValue(r.metrics, metric);
  return typeof v === "number" && Number.isFinite(v) && v > 0 ? v : null;
}

function sideStatus(records: CellRecord[], metric: Metric): CellStatus {
  if (records.some((r) => usableValue(r, metric) !== null)) return "ok";
  if (records.some((r) => r.status === "failed" || r.metrics?.status === "failed")) return "failed";
  if (records.some((r) => r.status === "skipped")) return "skipped";
  return "missing";
}

const round = (x: number | null, digits = 4): number | null => (x === null ? null : Number(x.toFixed(digits)));

function groupByCell(records: CellRecord[]): Map<string, CellRecord[]> {
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
function repeatValues(records: CellRecord[], metric: Metric, length: number): Array<number | null> {
  const out: Array<number | null> = Array.from({ length }, () => null);
  for (const r of records) if (r.repeat >= 1) out[r.repeat - 1] = usableValue(r, metric);
  return out;
}

/**
 * The steady-state check of a write cell: "not steady: q/s slope +4.1% per 10 s [1.2, 7.0]" when the slope of its
 * per-second q/s (after workload.trim) is steeper than STEADY_THRESHOLD_PCT_PER_10S with an interval excluding 0.
 */
export function unsteadyNote(r: CellRecord): string | null {
  const trim = r.trimmed?.seconds ?? 0;
  const s = steadySlope((r.metrics?.intervals ?? []).filter((x) => x.t > trim).map((x) => x.qps));
  if (!s || !notSteady(s)) return null;
  const f = (x: number) => `${x >= 0 ? "+" : ""}${x.toFixed(1)}`;
  return `not steady: q/s slope ${f(s.pctPer10s)}% per 10 s [${f(s.low)}, ${f(s.high)}] (threshold ±${STEADY_THRESHOLD_PCT_PER_10S}%)`;
}

/** Seconds of a record's per-second series with no throughput at all (the server stalled). */
export function stalledSeconds(r: CellRecord): number {
  return (r.metrics?.intervals ?? []).filter((s) => s.qps === 0 && s.tps === 0).length;
}

interface Pending {
  row: number;
  col: number;
  a: CellRecord[];
  b: CellRecord[];
  av: Array<number | null>;
  bv: Array<number | null>;
  unstable: string[];
  input?: CellInput;
  pairRepeats?: number[];
  unpaired?: UnpairedInput;
}

/** One pair of a cell: its log ratio d, the server instance it ran on, and which side ran first (x: the numerator's record). */
export function pairObs(d: number, x: CellRecord | undefined, y: CellRecord | undefined): PairObs {
  const pair: PairObs = { d };
  const inst = x?.instance ?? y?.instance;
  if (inst !== undefined) pair.instance = inst;
  if (x && y && x.startedAt !== y.startedAt) pair.order = x.startedAt < y.startedAt ? 1 : -1;
  return pair;
}

/** The pairs of a cell: d = ±ln(a/b) per repeat with both values, its instance, and which side ran first. */
function pairsOf(p: Pending, sign: number): { pairs: PairObs[]; repeats: number[] } {
  const pairs: PairObs[] = [];
  const repeats: number[] = [];
  const byRepeat = (rs: CellRecord[]) => new Map(rs.filter((r) => r.repeat >= 1).map((r) => [r.repeat, r]));
  const ra = byRepeat(measureRecords(p.a));
  const rb = byRepeat(measureRecords(p.b));
  p.av.forEach((a, i) => {
    const b = p.bv[i];
    if (a === null || b === null) return;
    pairs.push(pairObs(sign * Math.log(a / b), ra.get(i + 1), rb.get(i + 1)));
    repeats.push(i + 1);
  });
  return { pairs, repeats };
}

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
  const marginPct = opts.marginPct ?? DEFAULT_MARGIN_PCT;
  const confidence = DEFAULT_CONFIDENCE;
  const sign = inverted ? -1 : 1;
  // Printed latency percentiles are rounded to sysbench's histogram buckets: no pair sd below that rounding.
  const floorSd = metric === "p95" ? QUANTISATION_SD : 0;
  const numGroups = groupByCell(measureRecords(num.records));
  const denGroups = groupByCell(measureRecords(den.records));
  const byRuns = pairing === "unpaired" && (num.runs?.length ?? 0) >= 2 && (den.runs?.length ?? 0) >= 2;

  const pending: Pending[] = [];
  const rows: RatioRow[] = tests.map((test, row) => ({
    test,
    cells: threads.map((t, col): RatioCell => {
      const a = numGroups.get(`${test}|${t}`) ?? [];
      const b = denGroups.get(`${test}|${t}`) ?? [];
      const maxRepeat = Math.max(0, ...a.map((r) => r.repeat), ...b.map((r) => r.repeat));
      const av = repeatValues(a, metric, maxRepeat);
      const bv = repeatValues(b, metric, maxRepeat);
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
      const cv = (xs: Array<number | null>) => {
        const c = coefficientOfVariation(finiteOf(xs));
        return c === null ? null : round(c * 100, 3);
      };
      const cell: RatioCell = {
        threads: t,
        ratio: null,
        estimate: null,
        low: null,
        high: null,
        verdict: "unknown",
        direction: "unknown",
        equivalence: "unknown",
        fdr: null,
        n: 0,
        status,
        instances: 1,
        df: null,
        p: null,
        q: null,
        unstable: [],
        cvNumerator: null,
        cvDenominator: null,
        numeratorMedian: numMedian,
        denominatorMedian: denMedian,
        numeratorValues: av,
        denominatorValues: bv,
        failedRepeats,
        loadBound: false,
      };
      if (status !== "ok") return { ...cell, reason: status };
      cell.ratio = round((inverted ? denMedian! / numMedian! : numMedian! / denMedian!) * 100);
      cell.cvNumerator = cv(av);
      cell.cvDenominator = cv(bv);
      const unstable: string[] = [];
      for (const [side, rs] of [
        [num.id, a],
        [den.id, b],
      ] as const) {
        for (const r of rs) {
          const z = stalledSeconds(r);
          if (r.status === "ok" && z > 0)
            unstable.push(`${side} repeat ${r.repeat} stalled: ${z} second${z === 1 ? "" : "s"} with no throughput`);
          if (r.status === "ok" && r.interference?.disturbed)
            unstable.push(`${side} repeat ${r.repeat} disturbed: ${r.interference.reasons.join("; ")}`);
          // Ignored errors and reconnects: the repeat's q/s counts failed work or waits for a connection (issue 24 item 3).
          const marks = r.status === "ok" ? errorMarks(r.metrics) : [];
          if (marks.length) unstable.push(`${side} repeat ${r.repeat} had ${marks.join(" and ")}`);
          const steady = r.status === "ok" && testWrites(test) ? unsteadyNote(r) : null;
          if (steady) unstable.push(`${side} repeat ${r.repeat} ${steady}`);
        }
      }
      const p: Pending = { row, col, a, b, av, bv, unstable };
      if (pairing === "paired") {
        const { pairs, repeats } = pairsOf(p, sign);
        const stop = opts.stops?.get(`${test}|${t}`);
        p.input = { pairs, floorSd, ...(stop ? { stop } : {}) };
        p.pairRepeats = repeats;
      } else if (byRuns) {
        const runMeans = (runs: CellRecord[][]) =>
          runs.flatMap((rs) => {
            const vs = finiteOf(
              rs
                .filter((r) => r.test === test && r.threads === t && r.phase !== "warmup")
                .map((r) => usableValue(r, metric)),
            );
            return vs.length ? [vs.reduce((x, v) => x + Math.log(v), 0) / vs.length] : [];
          });
        const ma = runMeans(measureRuns(num.runs!));
        const mb = runMeans(measureRuns(den.runs!));
        p.unpaired = { a: ma.map((x) => sign * x), b: mb.map((x) => sign * x), floorSd };
      } else {
        p.unpaired = {
          a: finiteOf(av).map((x) => sign * Math.log(x)),
          b: finiteOf(bv).map((x) => sign * Math.log(x)),
          floorSd,
        };
      }
      pending.push(p);
      return cell;
    }),
  }));

  let run: RunEstimate;
  let order: OrderEffect | null = null;
  if (pairing === "paired") {
    const inputs = pending.map((p) => p.input!);
    run = estimateRun(inputs, { confidence, marginPct, sequential: opts.sequential === true });
    order = orderEffect(inputs, confidence);
    outlierPairs(
      inputs,
      run.cells.map((c) => (c.s2Moderated === null ? null : Math.sqrt(c.s2Moderated))),
    ).forEach((idx, i) => {
      for (const j of idx) {
        const r = pending[i].pairRepeats![j];
        const d = inputs[i].pairs[j].d;
        pending[i].unstable.push(`repeat ${r} is an outlier pair (ratio ${(Math.exp(d) * 100).toFixed(1)})`);
      }
    });
  } else {
    run = estimateUnpaired(
      pending.map((p) => p.unpaired!),
      { confidence, marginPct },
    );
  }
  const qs = benjaminiHochberg(run.cells.map((c) => c.p));
  pending.forEach((p, i) => {
    const e: CellEstimate = run.cells[i];
    const cell = rows[p.row].cells[p.col];
    Object.assign(cell, {
      estimate: round(e.estimate),
      low: round(e.low),
      high: round(e.high),
      ...cellVerdict({ low: e.low, high: e.high, q: qs[i] }, marginPct, FDR),
      n: e.n,
      instances: e.instances,
      df: round(e.df, 3),
      p: round(e.p, 6),
      q: round(qs[i], 6),
      unstable: p.unstable,
      stopHalfWidthPct: e.stopHalfWidthPct ?? null,
      split: e.split === true,
    });
    if (e.reason) cell.reason = e.reason;
    // Load-bound: sysbench, not the server, limited most repeats, so the ratio says nothing about the servers. The
    // estimate and interval stay for the reader; the verdict does not. Most, not any: one noisy repeat among many
    // does not take the cell's verdict away.
    const used = [...p.a, ...p.b].filter((r) => r.status === "ok");
    if (used.length > 0 && used.filter(isLoadBound).length * 2 > used.length) {
      cell.loadBound = true;
      Object.assign(cell, { verdict: "unknown", direction: "unknown", equivalence: "unknown", fdr: null });
      cell.reason = "load-bound";
    }
  });
  const decided = pending
    .map((p) => rows[p.row].cells[p.col])
    .filter((c) => c.direction === "faster" || c.direction === "slower");
  const intervals = run.cells.filter((c) => c.low !== null).length;
  const tau2 = run.instanceLevel.tau2;
  const ip = run.intervalPrior ?? run.prior;
  const method: TableMethod = {
    priorDf: pending.length ? (Number.isFinite(ip.d0) ? round(ip.d0, 3) : Infinity) : null,
    priorSd: ip.s02 > 0 ? round(Math.sqrt(ip.s02), 6) : null,
    instanceSd: tau2 === null ? null : round(Math.sqrt(tau2), 6),
    instanceCells: byRuns ? intervals : run.instanceLevel.cells,
    unit: byRuns ? "runs" : "repeats",
    intervals,
    expectedFalse: expectedFalseVerdicts(intervals, confidence),
    verdicts: decided.length,
    verdictsAtFdr: decided.filter((c) => c.fdr === "holds").length,
    order,
    withinDf: run.instanceLevel.withinDf ?? 0,
    splitCells: run.cells.filter((c) => c.split === true && c.low !== null).length,
    allUnitsCells: run.cells.filter((c) => c.allUnits === true && c.low !== null).length,
    dfRange: (() => {
      const dfs = run.cells.map((c) => c.df).filter((d): d is number => d !== null);
      return dfs.length ? [round(Math.min(...dfs), 2)!, round(Math.max(...dfs), 2)!] : null;
    })(),
  };
  return {
    metric,
    numerator: num.id,
    denominator: den.id,
    threads: [...threads],
    rows,
    inverted,
    pairing,
    confidence,
    marginPct,
    method,
    numeratorLabel: num.label,
    denominatorLabel: den.label,
    percentile: opts.percentile ?? 95,
  };
}

function measureRuns(runs: CellRecord[][]): CellRecord[][] {
  return runs.map((rs) => measureRecords(rs));
}

const FAMILY_NAMES: Record<string, string> = { mariadb: "MariaDB", mysql: "MySQL" };

/**
 * Numerator and denominator of a run: the scenario's `compare` key, else the first two servers.
 * Explicit ids win over both.
 */
export function pickServers(
  manifest: RunManifest,
  explicit?: { numerator?: string; denominator?: string },
): [string, string] | null {
  const ids = manifest.scenario.servers.map((s) => s.id);
  const known = new Set([...ids, ...manifest.servers.map((s) => s.id)]);
  const primary = primaryPair(manifest.scenario);
  let num: string | undefined = explicit?.numerator ?? primary?.[0];
  let den: string | undefined = explicit?.denominator ?? primary?.[1];
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
    // The margin: the caller's (report --margin), else the scenario's report.margin, as the run's screen used.
    {
      pairing: "paired",
      percentile: manifest.scenario.workload.percentile ?? 95,
      sequential: adaptiveRepeats(manifest.scenario.workload) !== undefined,
      stops: adaptiveStops(manifest),
      ...opts,
      marginPct: opts.marginPct ?? reportMarginPct(manifest.scenario),
    },
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
        estimate: c.estimate,
        ratio: c.ratio,
        low: c.low,
        high: c.high,
        verdict: c.verdict,
        direction: c.direction,
        equivalence: c.equivalence,
        fdr: c.fdr,
        n: c.n,
        status: c.status,
        ...(c.reason ? { reason: c.reason } : {}),
        instances: c.instances,
        df: c.df,
        p: c.p,
        q: c.q,
        unstable: c.unstable,
        cvNumerator: c.cvNumerator,
        cvDenominator: c.cvDenominator,
        numeratorMedian: c.numeratorMedian,
        denominatorMedian: c.denominatorMedian,
        failedRepeats: c.failedRepeats,
        loadBound: c.loadBound,
      })),
    })),
    inverted: t.inverted,
    pairing: t.pairing,
    confidence: t.confidence,
    marginPct: t.marginPct,
    method: { ...t.method, priorDf: t.method.priorDf === Infinity ? "Infinity" : t.method.priorDf },
    numeratorLabel: t.numeratorLabel,
    denominatorLabel: t.denominatorLabel,
  };
}
