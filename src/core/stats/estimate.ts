/**
 * The run-level estimator behind every ratio in twinbench (pure). docs/stats.md explains it with a worked example.
 *
 * Each cell is a set of pairs; a pair's value is d = ln(a / b) (inverted for latency). The cell's estimate is
 * exp(mean d) * 100 with a t-interval whose variance is pooled over the run's cells:
 * - within-instance variance: each cell's sample variance is moderated toward the run's prior (empirical Bayes as
 *   in limma's squeezeVar: s̃² = (d0·s0² + d·s²) / (d0 + d), t with d0 + d df, capped at the pooled df);
 * - between server instances: when pairs carry an `instance` index, a variance component τ² (instances within
 *   cells) is estimated from all cells together and added to each cell's variance of the mean (Satterthwaite df).
 * Verdicts (direction and equivalence) are decided in verdict.ts from the interval; a cell without one (fewer
 * than 2 pairs, or a zero-width interval) is `unknown`.
 */
import stdlibDigamma from "@stdlib/math-base-special-digamma";
import polygamma from "@stdlib/math-base-special-polygamma";
import stdlibTrigamma from "@stdlib/math-base-special-trigamma";
import { mean, median, tCdf, tQuantile } from "../base/distributions.ts";
import { verdictOf, type Verdict } from "../model/verdict.ts";
import { DEFAULT_MARGIN_PCT } from "../model/scenario/schema.ts";

export type { Verdict } from "../model/verdict.ts";
export { verdictOf } from "../model/verdict.ts";

// ---- special functions (for the prior's degrees of freedom; ψ, ψ', ψ'' from @stdlib) ---------------------------

/** ψ(x), the digamma function, for x > 0. */
export const digamma = (x: number): number => stdlibDigamma(x);

/** ψ'(x), the trigamma function, for x > 0. */
export const trigamma = (x: number): number => stdlibTrigamma(x);

/** ψ''(x), for x > 0. */
const tetragamma = (x: number): number => polygamma(2, x);

/** The x with trigamma(x) = y (limma's Newton iteration). */
export function trigammaInverse(y: number): number {
  if (!(y > 0)) return Number.NaN;
  if (y > 1e7) return 1 / Math.sqrt(y);
  if (y < 1e-6) return 1 / y;
  let x = 0.5 + 1 / y;
  for (let i = 0; i < 50; i++) {
    const tri = trigamma(x);
    const dif = (tri * (1 - tri / y)) / tetragamma(x);
    x += dif;
    if (-dif / x < 1e-8) break;
  }
  return x;
}

// ---- variance moderation ------------------------------------------------------------------------------------

export interface VarianceObs {
  /** Sample variance (may be 0). */
  s2: number;
  /** Its degrees of freedom (> 0 to count). */
  df: number;
}

export interface VariancePrior {
  /** Prior degrees of freedom (Infinity: every cell shares one variance). 0 when there is nothing to pool. */
  d0: number;
  /** Prior variance. */
  s02: number;
  /** Sum of the cells' own df: the cap on a moderated variance's df. */
  dfPooled: number;
  /** Cells that entered the estimate. */
  cells: number;
  /** mean(ln s² − ψ(df/2) + ln(df/2)) over those cells (limma's e): gives the prior variance at another d0. */
  logMean?: number;
}

/**
 * Fit the prior of the cells' variances (limma's fitFDist, no covariate): method of moments on log s².
 * Cells with df ≤ 0 or s² ≤ 0 do not enter the moments (the log needs a positive value). With fewer than 2 usable
 * cells there is no prior (d0 = 0). When the cells vary no more than sampling explains, d0 is infinite.
 */
export function fitVariancePrior(obs: readonly VarianceObs[]): VariancePrior {
  const use = obs.filter((o) => o.df > 0 && o.s2 > 0 && Number.isFinite(o.s2));
  const dfPooled = obs.reduce((a, o) => a + (o.df > 0 ? o.df : 0), 0);
  if (use.length < 2) {
    const s02 = use.length === 1 ? use[0].s2 : 0;
    return { d0: 0, s02, dfPooled, cells: use.length };
  }
  const e = use.map(logVarianceE);
  const emean = mean(e);
  const evar = e.reduce((a, x) => a + (x - emean) ** 2, 0) / (e.length - 1) - mean(use.map((o) => trigamma(o.df / 2)));
  if (evar > 0) {
    const d0 = 2 * trigammaInverse(evar);
    return {
      d0,
      s02: Math.exp(emean + digamma(d0 / 2) - Math.log(d0 / 2)),
      dfPooled,
      cells: use.length,
      logMean: emean,
    };
  }
  // No spread beyond sampling: one variance for all cells. limma's exp(mean e) rather than the arithmetic pooled
  // variance: the latter, taken only when the cells' variances happen to agree, covers 92.6% in the simulation of
  // test/unit/estimate.test.ts where this covers 94.6%.
  return { d0: Number.POSITIVE_INFINITY, s02: Math.exp(emean), dfPooled, cells: use.length, logMean: emean };
}

/** limma's e of one variance: ln s² − ψ(df/2) + ln(df/2), unbiased for ln σ² up to a constant of the prior. */
const logVarianceE = (o: VarianceObs): number => Math.log(o.s2) - digamma(o.df / 2) + Math.log(o.df / 2);

/** The prior df of cell variances fitted over several groups (see {@link fitPooledPriorDf}). */
export interface PooledPriorDf {
  /** The prior df: Infinity when the cells vary no more than sampling explains, but never above `df`. */
  d0: number;
  /** Groups and cells that entered, and the sum of those cells' df (the cap on d0). */
  groups: number;
  cells: number;
  df: number;
}

/**
 * How unequal cells' variances are, fitted over groups (the runs) of cells: limma's method of moments on
 * e = ln s² − ψ(df/2) + ln(df/2), centred on each group's own mean (the host's noise level moves between runs; the
 * prior df is about the cells of one run), the spread pooled over the groups (df Σ(k − 1)), less the sampling part
 * (the mean ψ'(df/2)). d0 = 2·ψ'⁻¹(excess), Infinity with no excess, capped at the cells' summed df: the data cannot
 * claim cells more equal than they themselves could show. Null when no group has 2 usable cells.
 */
export function fitPooledPriorDf(groups: ReadonlyArray<readonly VarianceObs[]>): PooledPriorDf | null {
  let ss = 0;
  let dof = 0;
  let cells = 0;
  let used = 0;
  let tri = 0;
  let df = 0;
  for (const g of groups) {
    const use = g.filter((o) => o.df > 0 && o.s2 > 0 && Number.isFinite(o.s2));
    if (use.length < 2) continue;
    const e = use.map(logVarianceE);
    const m = mean(e);
    ss += e.reduce((a, x) => a + (x - m) ** 2, 0);
    dof += use.length - 1;
    cells += use.length;
    used++;
    tri += use.reduce((a, o) => a + trigamma(o.df / 2), 0);
    df += use.reduce((a, o) => a + o.df, 0);
  }
  if (dof === 0) return null;
  const excess = ss / dof - tri / cells;
  const d0 = excess > 0 ? 2 * trigammaInverse(excess) : Number.POSITIVE_INFINITY;
  return { d0: Math.min(d0, df), groups: used, cells, df };
}

/** The moderated variance of one cell and its df (capped at the pooled df, as limma's df.total). */
export function moderate(o: VarianceObs, prior: VariancePrior): VarianceObs {
  const d = Math.max(0, o.df);
  if (prior.d0 === 0) return { s2: o.s2, df: d };
  const df = Math.min(prior.d0 + d, Math.max(prior.dfPooled, d));
  if (!Number.isFinite(prior.d0)) return { s2: prior.s02, df };
  return { s2: (prior.d0 * prior.s02 + d * o.s2) / (prior.d0 + d), df };
}

/**
 * The moderated variance that cannot make a cell overconfident (issue 23, item 2):
 * - the prior's df is capped at what the OTHER cells' data hold (dfPooled − the cell's own df): a method of moments
 *   on a handful of cells with 1–2 df each often gives d0 = ∞ (the cells vary no more than sampling explains), which
 *   would let one cell borrow more certainty than the whole table has; at the capped d0 the prior variance is the
 *   one that d0 implies;
 * - the variance never falls below the cell's own: a noisy cell among quiet ones keeps its own spread (the prior
 *   may widen a lucky-quiet cell, never narrow a noisy one). The df still gains the prior's.
 * A cell with no df of its own takes the prior (capped at the others' df).
 */
export function moderateRobust(o: VarianceObs, prior: VariancePrior): VarianceObs {
  const d = Math.max(0, o.df);
  const d0 = Math.min(prior.d0, Math.max(0, prior.dfPooled - d));
  if (!(d0 > 0) || !(prior.s02 > 0)) return { s2: o.s2, df: d };
  // At a capped d0 the prior variance is the one that d0 implies (limma: s0² = exp(e + ψ(d0/2) − ln(d0/2))).
  const s02 =
    d0 < prior.d0 && prior.logMean !== undefined
      ? Math.exp(prior.logMean + digamma(d0 / 2) - Math.log(d0 / 2))
      : prior.s02;
  const s2 = (d0 * s02 + d * o.s2) / (d0 + d);
  // Noisier than the prior: the cell's own variance with its own df (the prior cannot vouch for it).
  if (d > 0 && o.s2 > s2) return { s2: o.s2, df: d };
  return { s2, df: d0 + d };
}

// ---- the cells of one run -----------------------------------------------------------------------------------

/** One pair: its log ratio (sign already applied for latency), the server instance it ran on, who went first. */
export interface PairObs {
  d: number;
  /** 0-based server-instance index within the run (pairs of one instance share a restart). */
  instance?: number;
  /** +1 when the numerator ran first in this pair, -1 when the denominator did; absent when unknown. */
  order?: 1 | -1;
}

export interface CellInput {
  pairs: readonly PairObs[];
  /** A floor on the pair sd in log units (histogram quantisation of latency values); 0 by default. */
  floorSd?: number;
  /**
   * How a sequential run's cell stopped, where known. "precision" (or unknown): the printed interval uses the held-out
   * half of the split. Any other stop ("max", "budget", still "open") never read a width narrow enough, so the stop
   * did not select a small variance: the interval uses all the cell's units (see estimateRun).
   */
  stop?: "precision" | "max" | "budget" | "open";
}

export type VerdictReason = "too-few-pairs" | "zero-width" | "no-data";

export interface CellEstimate {
  n: number;
  /** Distinct instances among the pairs (1 when none is given). */
  instances: number;
  /** mean d; NaN with no pairs. */
  meanLog: number;
  /** exp(mean d) * 100; null with no pairs. */
  estimate: number | null;
  low: number | null;
  high: number | null;
  /** Standard error of mean d, and the df of its t quantile. */
  se: number | null;
  df: number | null;
  /** The cell's own within-instance variance of d and its df, then the moderated one. */
  s2: number | null;
  s2Df: number;
  s2Moderated: number | null;
  verdict: Verdict;
  reason?: VerdictReason;
  /** Two-sided p-value of "no difference" (d = 0); null without an interval. */
  p: number | null;
  /** Sequential runs: the interval's variance is the second half's of the split (see estimateRun). */
  split?: boolean;
  /** Sequential runs: a cell stopped by max or the budget (or still open), whose interval uses all its units. */
  allUnits?: boolean;
  /** The half-width (%) an adaptive run's stop rule compares with its precision: the first half's of the split in a
   *  sequential run (null until the cell has MIN_UNITS_FOR_PRECISION_STOP units), else the interval's own. */
  stopHalfWidthPct?: number | null;
}

export interface RunEstimateOptions {
  confidence?: number;
  /** Equivalence margin in percent (100 ± margin). Default 5. */
  marginPct?: number;
  /** The run stops its cells on their estimated width (adaptive repeats): split the units (see estimateRun). */
  sequential?: boolean;
}

export interface InstanceLevel {
  /** Variance between instances (log units²), pooled over cells; null when no cell has 2 instances. */
  tau2: number | null;
  df: number;
  /** Cells with at least 2 instances. */
  cells: number;
  /** df of the variance within instances, summed over cells: 0 when every instance held one pair (a fresh instance
   *  per round), and then the two levels cannot be told apart (tau2 is null: the units' variance holds both). */
  withinDf?: number;
}

export interface RunEstimate {
  cells: CellEstimate[];
  /** The prior of the within-instance variances. */
  prior: VariancePrior;
  /** The prior the intervals were moderated toward: the held-out halves' (sequential split), else the instance
   *  means' (cells on 2 or more instances), else `prior`. */
  intervalPrior?: VariancePrior;
  instanceLevel: InstanceLevel;
  confidence: number;
  marginPct: number;
}

export const DEFAULT_CONFIDENCE = 0.95;

/**
 * sysbench's latency histogram has 1024 buckets spread logarithmically from 0.001 ms to 100 000 ms
 * (sb_histogram_init in sysbench 1.0.20), so a printed percentile is rounded to a bucket ln(1e8)/1024 ≈ 1.8% wide.
 */
export const HISTOGRAM_LOG_STEP = Math.log(1e8) / 1024;
/** The sd of a log ratio of two such rounded values: each is uniform over a bucket (sd step/√12). */
export const QUANTISATION_SD = HISTOGRAM_LOG_STEP / Math.sqrt(6);

interface CellStats {
  n: number;
  m: number;
  groups: Map<number, number[]>;
  ss: number;
  dfW: number;
}

function cellStats(pairs: readonly PairObs[]): CellStats {
  const groups = new Map<number, number[]>();
  for (const p of pairs) {
    const k = p.instance ?? 0;
    const g = groups.get(k) ?? [];
    g.push(p.d);
    groups.set(k, g);
  }
  let ss = 0;
  for (const g of groups.values()) {
    const gm = mean(g);
    for (const x of g) ss += (x - gm) ** 2;
  }
  return {
    n: pairs.length,
    m: pairs.length ? mean(pairs.map((p) => p.d)) : Number.NaN,
    groups,
    ss,
    dfW: pairs.length - groups.size,
  };
}

/**
 * The half-width of a cell's interval in percent of its estimate: (high / estimate − 1) × 100, i.e. exp(t·se) − 1.
 * This is what an adaptive run's `precision` is compared with (precision 3% is met when this is ≤ 3). Null without
 * an interval.
 */
export function halfWidthPct(c: { estimate: number | null; high: number | null }): number | null {
  if (c.estimate === null || c.high === null || !(c.estimate > 0)) return null;
  return (c.high / c.estimate - 1) * 100;
}

/**
 * The replication units of a cell, in time order: its instances' mean d when the pairs carry instances (the instance
 * is the replication unit: Kalibera & Jones), else its pairs. `w` is each unit's weight in the cell's mean (k/n).
 */
function unitsOf(s: CellStats): { means: number[]; w: number[] } {
  if (s.groups.size >= 2) {
    const keys = [...s.groups.keys()].sort((x, y) => x - y);
    return { means: keys.map((k) => mean(s.groups.get(k)!)), w: keys.map((k) => s.groups.get(k)!.length / s.n) };
  }
  const g = [...s.groups.values()][0] ?? [];
  return { means: g, w: g.map(() => 1 / s.n) };
}

/**
 * Which half of the split unit j (0-based, in time order) belongs to: 0, 1, 1, 0, 0, 1, 1, 0, … so that each half
 * holds as many units of odd rounds as of even ones (the pair order alternates by round: an order effect must not
 * fall between the halves).
 */
export function splitHalf(j: number): 0 | 1 {
  return (((j + 1) >> 1) % 2) as 0 | 1;
}

/** The sample variance of some unit means (df = count − 1; 0 with fewer than 2). */
function varianceOf(xs: readonly number[]): VarianceObs {
  if (xs.length < 2) return { s2: 0, df: 0 };
  const m = mean(xs);
  return { s2: xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1), df: xs.length - 1 };
}

/**
 * The fewest replication units of a cell before its interval can stop an adaptive run: two in each half of the
 * split (see {@link estimateRun}), so that each half has a variance of its own.
 */
export const MIN_UNITS_FOR_PRECISION_STOP = 4;

/**
 * Estimate every cell of a run with the pooled variance. The cells share the prior of the within-instance
 * variance and the between-instance component, so pass all cells of one table together.
 *
 * `sequential` (an adaptive run, which stops a cell when its interval is narrow enough): a cell's replication units
 * (instances, else pairs), in time order, are split into two halves, alternately. The stop rule reads the width
 * computed from the first half's variance (`stopHalfWidthPct`); the interval printed uses the second half's variance
 * around the mean of every pair. Under normal errors the second half's variance is independent of the stop decision,
 * so stopping when a cell looks precise does not make its interval overconfident: in the simulation of the shipped
 * rule (src/core/stats/coverage.ts, docs/stats.md) the interval then covers 94–96% also for the cells that stop
 * first, where the full-sample interval covered 86–91%. It needs {@link MIN_UNITS_FOR_PRECISION_STOP} units; with
 * fewer, the cell gets the full-sample interval and no stop width (it cannot stop on precision).
 *
 * A cell whose input says it stopped other than on precision (`stop`: max, the budget, or still open) gets the
 * interval of all its units instead, moderated toward the held-out halves' prior: its stop rule only ever saw its
 * first half too wide, which biases the full-sample variance up, not down, and leaves the mean alone (normal errors),
 * so the interval stays at or above its confidence while its df doubles. At the minimum of 4 units this is the
 * difference between 1 df (t 12.7) and 3 df (t 3.2). The simulation (docs/stats.md) checks the coverage.
 */
export function estimateRun(cells: readonly CellInput[], opts: RunEstimateOptions = {}): RunEstimate {
  const confidence = opts.confidence ?? DEFAULT_CONFIDENCE;
  const marginPct = opts.marginPct ?? DEFAULT_MARGIN_PCT;
  const stats = cells.map((c) => cellStats(c.pairs));
  const own: VarianceObs[] = stats.map((s, i) => {
    const floor = (cells[i].floorSd ?? 0) ** 2;
    const s2 = s.dfW > 0 ? s.ss / s.dfW : 0;
    return { s2: s.dfW > 0 ? Math.max(s2, floor) : 0, df: Math.max(0, s.dfW) };
  });
  const prior = fitVariancePrior(own);
  const mod = own.map((o) => moderateRobust(o, prior));

  // Between instances, for information: Q = Σ k_i (m_i − m)², E[Q] = (I − 1)σ² + (n − Σk_i²/n) τ².
  let qNum = 0;
  let qDen = 0;
  const multi = stats.map((s) => s.groups.size >= 2);
  stats.forEach((s, i) => {
    if (!multi[i]) return;
    let q = 0;
    let k2 = 0;
    for (const g of s.groups.values()) {
      q += g.length * (mean(g) - s.m) ** 2;
      k2 += g.length ** 2;
    }
    qNum += q - (s.groups.size - 1) * mod[i].s2;
    qDen += s.n - k2 / s.n;
  });
  const tauCells = multi.filter(Boolean).length;
  // The interval of a cell run on several instances: the instance is the replication unit (Kalibera & Jones).
  // The variance of its instance means (df I − 1) holds both levels; it is moderated over those cells alike.
  const units = stats.map(unitsOf);
  const between: VarianceObs[] = units.map((u, i) => (multi[i] ? varianceOf(u.means) : { s2: 0, df: 0 }));
  const betweenPrior = fitVariancePrior(between);
  const withinDf = own.reduce((a, o) => a + o.df, 0);
  const instanceLevel: InstanceLevel = {
    tau2: tauCells && withinDf > 0 ? Math.max(0, qNum / qDen) : null,
    df: between.reduce((a, o) => a + o.df, 0),
    cells: tauCells,
    withinDf,
  };

  // The split of a sequential run: the halves' variances, each moderated over the cells' same half.
  const splits = units.map((u) => opts.sequential === true && u.means.length >= MIN_UNITS_FOR_PRECISION_STOP);
  const half = (which: 0 | 1): VarianceObs[] =>
    units.map((u, i) => (splits[i] ? varianceOf(u.means.filter((_, j) => splitHalf(j) === which)) : { s2: 0, df: 0 }));
  const stopHalf = half(0);
  const reportHalf = half(1);
  const stopPrior = fitVariancePrior(stopHalf);
  const reportPrior = fitVariancePrior(reportHalf);

  const quantiles = new Map<number, number>();
  const tq = (df: number): number => {
    let q = quantiles.get(df);
    if (q === undefined) quantiles.set(df, (q = tQuantile(1 - (1 - confidence) / 2, df)));
    return q;
  };
  const out = stats.map((s, i): CellEstimate => {
    const base = {
      n: s.n,
      instances: Math.max(1, s.groups.size),
      meanLog: s.m,
      estimate: s.n ? Math.exp(s.m) * 100 : null,
      s2: own[i].df > 0 ? own[i].s2 : null,
      s2Df: own[i].df,
      s2Moderated: mod[i].df > 0 ? mod[i].s2 : null,
      split: splits[i] && !(cells[i].stop !== undefined && cells[i].stop !== "precision"),
      ...(splits[i] && cells[i].stop !== undefined && cells[i].stop !== "precision" ? { allUnits: true } : {}),
      stopHalfWidthPct: null,
    };
    const none = { low: null, high: null, se: null, df: null, p: null };
    if (s.n === 0) return { ...base, ...none, verdict: "unknown", reason: "no-data" };
    if (s.n < 2) return { ...base, ...none, verdict: "unknown", reason: "too-few-pairs" };
    // Var(mean d) = Σ w_u² Var(unit mean): s̃²/U when the units are balanced.
    const w2 = units[i].w.reduce((a, w) => a + w * w, 0);
    let v: number;
    let df: number;
    let stopWidth: number | null = null;
    const allUnits = splits[i] && cells[i].stop !== undefined && cells[i].stop !== "precision";
    if (allUnits) {
      const r = moderateRobust(varianceOf(units[i].means), reportPrior);
      const st = moderateRobust(stopHalf[i], stopPrior);
      v = r.s2 * w2;
      df = r.df;
      if (st.df > 0 && st.s2 >= 0) stopWidth = (Math.exp(tq(st.df) * Math.sqrt(st.s2 * w2)) - 1) * 100;
    } else if (splits[i]) {
      const r = moderateRobust(reportHalf[i], reportPrior);
      const st = moderateRobust(stopHalf[i], stopPrior);
      v = r.s2 * w2;
      df = r.df;
      if (st.df > 0 && st.s2 >= 0) stopWidth = (Math.exp(tq(st.df) * Math.sqrt(st.s2 * w2)) - 1) * 100;
    } else if (multi[i]) {
      const b = moderateRobust(between[i], betweenPrior);
      v = b.s2 * w2;
      df = b.df;
    } else {
      v = mod[i].s2 / s.n;
      df = mod[i].df;
    }
    const se = Math.sqrt(v);
    if (!(df > 0) || !(se > 0))
      return {
        ...base,
        ...none,
        se: df > 0 ? 0 : null,
        df: df > 0 ? df : null,
        stopHalfWidthPct: stopWidth,
        verdict: "unknown",
        reason: "zero-width",
      };
    const h = tq(df) * se;
    const low = Math.exp(s.m - h) * 100;
    const high = Math.exp(s.m + h) * 100;
    const p = 2 * (1 - tCdf(Math.abs(s.m) / se, df));
    // Without a split (a fixed count), the stop width is the interval's own.
    const stopHalfWidthPct = splits[i] ? stopWidth : opts.sequential === true ? null : (Math.exp(h) - 1) * 100;
    return { ...base, low, high, se, df, p, stopHalfWidthPct, verdict: verdictOf(low, high, marginPct) };
  });
  const intervalPrior = splits.some(Boolean) ? reportPrior : multi.some(Boolean) ? betweenPrior : prior;
  return { cells: out, prior, intervalPrior, instanceLevel, confidence, marginPct };
}

// ---- unpaired: one server in two sets of runs (compare) -------------------------------------------------------

export interface UnpairedInput {
  /** Log values of the NEW side and the BASE side: one per repeat (one run per side) or one per run. */
  a: readonly number[];
  b: readonly number[];
  floorSd?: number;
}

/**
 * Unpaired cells (compare): mean(a) − mean(b) with a pooled two-sample variance per cell, moderated over the cells
 * like the paired case. With one run per side, a and b are the repeats of that run; with several runs per side
 * they are the runs' own cell means, so the interval carries the variance between runs.
 */
export function estimateUnpaired(cells: readonly UnpairedInput[], opts: RunEstimateOptions = {}): RunEstimate {
  const confidence = opts.confidence ?? DEFAULT_CONFIDENCE;
  const marginPct = opts.marginPct ?? DEFAULT_MARGIN_PCT;
  const own: VarianceObs[] = cells.map((c) => {
    const df = c.a.length + c.b.length - 2;
    if (c.a.length < 1 || c.b.length < 1 || df <= 0) return { s2: 0, df: 0 };
    const ma = mean(c.a);
    const mb = mean(c.b);
    const ss = c.a.reduce((x, v) => x + (v - ma) ** 2, 0) + c.b.reduce((x, v) => x + (v - mb) ** 2, 0);
    return { s2: Math.max(ss / df, (c.floorSd ?? 0) ** 2 / 2), df };
  });
  const prior = fitVariancePrior(own);
  const out = cells.map((c, i): CellEstimate => {
    const n = Math.min(c.a.length, c.b.length);
    const m = c.a.length && c.b.length ? mean(c.a) - mean(c.b) : Number.NaN;
    const mod = moderateRobust(own[i], prior);
    const base = {
      n,
      instances: 1,
      meanLog: m,
      estimate: Number.isFinite(m) ? Math.exp(m) * 100 : null,
      s2: own[i].df > 0 ? own[i].s2 : null,
      s2Df: own[i].df,
      s2Moderated: mod.df > 0 ? mod.s2 : null,
    };
    const none = { low: null, high: null, se: null, df: null, p: null };
    if (n === 0) return { ...base, ...none, verdict: "unknown", reason: "no-data" };
    if (n < 2) return { ...base, ...none, verdict: "unknown", reason: "too-few-pairs" };
    const se = Math.sqrt(mod.s2 * (1 / c.a.length + 1 / c.b.length));
    if (!(se > 0) || !(mod.df > 0)) return { ...base, ...none, verdict: "unknown", reason: "zero-width" };
    const half = tQuantile(1 - (1 - confidence) / 2, mod.df) * se;
    const low = Math.exp(m - half) * 100;
    const high = Math.exp(m + half) * 100;
    const p = 2 * (1 - tCdf(Math.abs(m) / se, mod.df));
    return { ...base, low, high, se, df: mod.df, p, verdict: verdictOf(low, high, marginPct) };
  });
  return { cells: out, prior, instanceLevel: { tau2: null, df: 0, cells: 0 }, confidence, marginPct };
}

// ---- order, outliers, many cells ------------------------------------------------------------------------------

export interface OrderEffect {
  /** exp(effect) * 100: how the ratio reads when the numerator runs first, against when it runs second
   *  (half the difference of the two means, so 102 means +2% when first and −2% when second). */
  estimate: number;
  low: number;
  high: number;
  /** Pairs with a known order. */
  n: number;
  df: number;
}

/**
 * The order effect, pooled over cells: regress each pair's deviation from its cell mean on its order (±1), within
 * cells. Null when fewer than 3 pairs have a known order or no cell has both orders.
 */
export function orderEffect(cells: readonly CellInput[], confidence = DEFAULT_CONFIDENCE): OrderEffect | null {
  let sxy = 0;
  let sxx = 0;
  let n = 0;
  let used = 0;
  const resid: Array<{ y: number; x: number }> = [];
  for (const c of cells) {
    const ps = c.pairs.filter((p) => p.order !== undefined);
    if (ps.length < 2) continue;
    const mx = mean(ps.map((p) => p.order!));
    const my = mean(ps.map((p) => p.d));
    const cx = ps.reduce((a, p) => a + (p.order! - mx) ** 2, 0);
    if (cx === 0) continue;
    used++;
    for (const p of ps) {
      const x = p.order! - mx;
      const y = p.d - my;
      sxy += x * y;
      sxx += x * x;
      resid.push({ x, y });
      n++;
    }
  }
  if (used === 0 || n < 3) return null;
  const beta = sxy / sxx;
  // Residual df: every pair, less one mean per cell used, less the slope.
  const df = n - used - 1;
  if (df < 1) return null;
  const rss = resid.reduce((a, r) => a + (r.y - beta * r.x) ** 2, 0);
  const se = Math.sqrt(rss / df / sxx);
  const half = tQuantile(1 - (1 - confidence) / 2, df) * se;
  return { estimate: Math.exp(beta) * 100, low: Math.exp(beta - half) * 100, high: Math.exp(beta + half) * 100, n, df };
}

/** MAD → sd for a normal sample. */
const MAD_SD = 1.4826;
/** A pair is an outlier when it is this many pooled robust sds from its cell's median. */
export const OUTLIER_K = 4;

/**
 * Outlier pairs: |d − median(cell)| > k · scale. The scale is one robust sd pooled over the run (1.4826 × the
 * median absolute deviation of every pair from its cell's median, corrected for the cell sizes), so that a cell
 * of 3 pairs is judged by the run's spread, not its own; but never below `minScale[i]` (the cell's moderated sd),
 * so that a cell noisier than the rest is judged by its own spread. Cells of fewer than 3 pairs have no median
 * to speak of and are not judged. Returns, per cell, the indexes of its outlier pairs.
 */
export function outlierPairs(
  cells: readonly CellInput[],
  minScale: ReadonlyArray<number | null> = [],
  k = OUTLIER_K,
): number[][] {
  const devs: number[] = [];
  const meds = cells.map((c) => (c.pairs.length >= 3 ? median(c.pairs.map((p) => p.d)) : Number.NaN));
  cells.forEach((c, i) => {
    if (!Number.isFinite(meds[i])) return;
    const corr = Math.sqrt(c.pairs.length / (c.pairs.length - 1));
    for (const p of c.pairs) devs.push(Math.abs(p.d - meds[i]) * corr);
  });
  const floor = Math.max(...cells.map((c) => c.floorSd ?? 0), 0);
  const scale = Math.max(devs.length >= 6 ? MAD_SD * median(devs) : Number.NaN, floor);
  return cells.map((c, i) => {
    const sc = Math.max(Number.isFinite(scale) ? scale : 0, minScale[i] ?? 0);
    if (!Number.isFinite(meds[i]) || !(sc > 0)) return [];
    const out: number[] = [];
    c.pairs.forEach((p, j) => {
      if (Math.abs(p.d - meds[i]) > k * sc) out.push(j);
    });
    return out;
  });
}

/** Benjamini–Hochberg adjusted p-values (q-values), in input order; null stays null. */
export function benjaminiHochberg(ps: ReadonlyArray<number | null>): Array<number | null> {
  const idx = ps.map((p, i) => [p, i] as const).filter((x): x is readonly [number, number] => x[0] !== null);
  const m = idx.length;
  const sorted = [...idx].sort((a, b) => a[0] - b[0]);
  const q: Array<number | null> = ps.map(() => null);
  let min = 1;
  for (let r = m - 1; r >= 0; r--) {
    const [p, i] = sorted[r];
    min = Math.min(min, (p * m) / (r + 1));
    q[i] = min;
  }
  return q;
}

/** False faster/slower verdicts that chance alone gives over `cells` intervals when no server differs. */
export function expectedFalseVerdicts(cells: number, confidence = DEFAULT_CONFIDENCE): number {
  return cells * (1 - confidence);
}
