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
import { mean, tCdf, tQuantile } from "../base/distributions.ts";
import { verdictOf, type Verdict } from "../model/verdict.ts";
import { DEFAULT_MARGIN_PCT } from "../model/scenario/schema.ts";
import { fitVariancePrior, moderateRobust, type VarianceObs, type VariancePrior } from "./prior.ts";
import { HUBER_VARIANCE_FACTOR, huberLocation } from "./robust.ts";
import { BUCKET_LOG_WIDTH } from "./histogram.ts";

/** One pair: its log ratio (sign already applied for latency), the server instance it ran on, who went first. */
export interface PairObs {
  d: number;
  /** 0-based server-instance index within the run (pairs of one instance share a restart). */
  instance?: number;
  /** +1 when the numerator ran first in this pair, -1 when the denominator did; absent when unknown. */
  order?: 1 | -1;
  /** Outside work disturbed this pair in its last attempt too (interference.ts): see {@link usablePairs}. */
  disturbed?: boolean;
}

export interface CellInput {
  pairs: readonly PairObs[];
  /** A floor on the pair sd in log units (histogram quantisation of latency values); 0 by default. */
  floorSd?: number;
  /**
   * How a sequential run's cell stopped, where known. "precision" (or unknown): the printed interval uses the stage
   * variance its stop rule read. Any other stop ("max", "budget", still "open") never read a width narrow enough, so the stop
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
  /** Sequential runs: the interval's variance is the stage variance the stop rule read (see estimateRun). */
  split?: boolean;
  /** Sequential runs: a cell stopped by max or the budget (or still open), whose interval uses all its units. */
  allUnits?: boolean;
  /** The half-width (%) an adaptive run's stop rule compares with its precision: the printed one in a sequential run
   *  (null until the cell has MIN_UNITS_FOR_PRECISION_STOP units; the all-units interval's differs), else the interval's own. */
  stopHalfWidthPct?: number | null;
}

export interface RunEstimateOptions {
  confidence?: number;
  /** Equivalence margin in percent (100 ± margin). Default 5. */
  marginPct?: number;
  /** The run stops its cells on their estimated width (adaptive repeats): stages (see estimateRun). */
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
  /** The prior the intervals were moderated toward: the first stages' (sequential), else the instance
   *  means' (cells on 2 or more instances), else `prior`. */
  intervalPrior?: VariancePrior;
  instanceLevel: InstanceLevel;
  confidence: number;
  marginPct: number;
}

export const DEFAULT_CONFIDENCE = 0.95;

/**
 * sysbench rounds a printed percentile to a bucket of its latency histogram (stats/histogram.ts): about 1.8% wide
 * in log units.
 */
export const HISTOGRAM_LOG_STEP = BUCKET_LOG_WIDTH;
/** The sd of a log ratio of two such rounded values: each is uniform over a bucket (sd step/√12). */
export const QUANTISATION_SD = HISTOGRAM_LOG_STEP / Math.sqrt(6);

interface CellStats {
  n: number;
  m: number;
  groups: Map<number, number[]>;
  ss: number;
  dfW: number;
  /** Units counted over every pair, disturbed ones included, and how many of the cell's units (clean pairs) fall
   *  among the first STAGE_ONE_UNITS of those, and among the first stageSize(unitsAll): a stage is fixed by time,
   *  whatever was left out of it. */
  unitsAll: number;
  stageOne: number;
  stageNow: number;
}

/**
 * The stage a sequential cell is in at `units` units (disturbed pairs counted): the first stage is
 * {@link STAGE_ONE_UNITS} units, and each later one doubles it (4, 8, 16, …). Its variance is of the stage's units.
 */
export function stageSize(units: number): number {
  let s = STAGE_ONE_UNITS;
  while (s * 2 <= units) s *= 2;
  return s;
}

/**
 * The pairs that enter a cell's estimate: those not disturbed by outside work in their last attempt. A pair disturbed
 * in every attempt measured the machine's load as much as the servers (and when the load falls on one server's
 * cells, always against that server): it stays in cells.jsonl and in the cell's notes, not in the estimate, and an
 * adaptive run measures on while the cell is short of its target. No fallback to the disturbed pairs when too few
 * are clean: a cell that switched between the two would move the first stages' prior, and so the printed width of
 * cells that had stopped.
 */
export function usablePairs(pairs: readonly PairObs[]): readonly PairObs[] {
  return pairs.some((p) => p.disturbed) ? pairs.filter((p) => !p.disturbed) : pairs;
}

function cellStats(all: readonly PairObs[]): CellStats {
  const pairs = usablePairs(all);
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
  const keysAll = [...new Set(all.map((p) => p.instance ?? 0))].sort((x, y) => x - y);
  const byInstance = keysAll.length >= 2;
  const unitsAll = byInstance ? keysAll.length : all.length;
  const stage = stageSize(unitsAll);
  const firstKeys = new Set(keysAll.slice(0, STAGE_ONE_UNITS));
  const firstPairs = new Set(all.slice(0, STAGE_ONE_UNITS));
  const stageKeys = new Set(keysAll.slice(0, stage));
  const stagePairs = new Set(all.slice(0, stage));
  return {
    n: pairs.length,
    m: pairs.length ? mean(pairs.map((p) => p.d)) : Number.NaN,
    groups,
    ss,
    dfW: pairs.length - groups.size,
    unitsAll,
    stageOne: byInstance
      ? [...groups.keys()].filter((k) => firstKeys.has(k)).length
      : pairs.filter((p) => firstPairs.has(p)).length,
    stageNow: byInstance
      ? [...groups.keys()].filter((k) => stageKeys.has(k)).length
      : pairs.filter((p) => stagePairs.has(p)).length,
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

/** The sample variance of some unit means (df = count − 1; 0 with fewer than 2). */
function varianceOf(xs: readonly number[]): VarianceObs {
  if (xs.length < 2) return { s2: 0, df: 0 };
  const m = mean(xs);
  return { s2: xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1), df: xs.length - 1 };
}

/**
 * The first stage of a sequential run (after Stein's two-stage procedure, see {@link estimateRun}): a cell's first this
 * many replication units give the variance its stop rule and its printed interval read until it has twice as many.
 * No precision stop before them.
 */
export const STAGE_ONE_UNITS = 4;
/** The fewest replication units of a cell before its interval can stop an adaptive run (the first stage). */
export const MIN_UNITS_FOR_PRECISION_STOP = STAGE_ONE_UNITS;

/**
 * The level between server instances, for information: Q = Σ k_i (m_i − m)², E[Q] = (I − 1)σ² + (n − Σk_i²/n) τ²,
 * summed over the cells run on 2 or more instances.
 */
function instanceLevelOf(
  stats: readonly CellStats[],
  own: readonly VarianceObs[],
  mod: readonly VarianceObs[],
  between: readonly VarianceObs[],
): InstanceLevel {
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
  const withinDf = own.reduce((a, o) => a + o.df, 0);
  return {
    tau2: tauCells && withinDf > 0 ? Math.max(0, qNum / qDen) : null,
    df: between.reduce((a, o) => a + o.df, 0),
    cells: tauCells,
    withinDf,
  };
}

/**
 * Estimate every cell of a run with the pooled variance. The cells share the prior of the within-instance
 * variance and the between-instance component, so pass all cells of one table together.
 *
 * `sequential` (an adaptive run, which stops a cell when its interval is narrow enough): stages, after Stein's
 * two-stage procedure. A cell's replication units (instances, else pairs, in time order; disturbed pairs left out but
 * counted, so a stage ends at the same round whatever was left out) are read in stages of 4, 8, 16, … units
 * ({@link stageSize}); the variance of the current stage's units, moderated toward the prior of the cells' first
 * stages, is the one the stop rule and the printed interval both read, at the units the cell has: half-width
 * t·s̃·√(Σw²·f) with f the Huber factor below. So a cell that stops on precision prints exactly the width it stopped
 * at. Why the interval stays close to honest: under normal errors every stage variance up to n units is a function
 * of the units' contrasts, which are independent of their mean, and the units after n are fresh; so given how and
 * when the cell stopped, its mean is still normal around the truth. Within a stage the variance does not move with
 * the stop (within the first stage this is Stein's procedure, exact), so selection on a small variance enters only at
 * the stage ends; a variance that updated every round (stop at the first round it looks narrow) is selected far
 * more. Coverage is not exact, least for the cells that stop first (whose stage happened to look quiet): the
 * simulation (docs/stats.md) measures both.
 *
 * The centre is Huber's M-estimate of the units at the unit scale the interval reads (robust.ts): a unit the others
 * disagree with moves it by at most k scales over the count; its variance at normal errors is
 * {@link HUBER_VARIANCE_FACTOR} × the mean's, which the width carries.
 *
 * A cell whose input says it stopped other than on precision (`stop`: max, the budget, or still open) gets the
 * interval of all its units instead, moderated toward the prior of all the cells' units: its stop rule only ever saw
 * its first stage too wide, which biases the full-sample variance up, not down, and leaves the mean alone (normal
 * errors), so the interval stays at or above its confidence with more df. The simulation (docs/stats.md) checks it.
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

  const multi = stats.map((s) => s.groups.size >= 2);
  // The interval of a cell run on several instances: the instance is the replication unit (Kalibera & Jones).
  // The variance of its instance means (df I − 1) holds both levels; it is moderated over those cells alike.
  const units = stats.map(unitsOf);
  const between: VarianceObs[] = units.map((u, i) => (multi[i] ? varianceOf(u.means) : { s2: 0, df: 0 }));
  const betweenPrior = fitVariancePrior(between);
  const instanceLevel = instanceLevelOf(stats, own, mod, between);

  // A sequential run (Stein's two stages): each cell's first STAGE_ONE_UNITS units give its variance, moderated over
  // the cells' same first units; the stop rule and the printed interval both read that variance.
  const staged = stats.map((s) => opts.sequential === true && s.unitsAll >= STAGE_ONE_UNITS && s.stageOne >= 2);
  const first: VarianceObs[] = units.map((u, i) =>
    staged[i] ? varianceOf(u.means.slice(0, stats[i].stageOne)) : { s2: 0, df: 0 },
  );
  const firstPrior = fitVariancePrior(first);
  const whole: VarianceObs[] = units.map((u, i) => (staged[i] ? varianceOf(u.means) : { s2: 0, df: 0 }));
  const wholePrior = fitVariancePrior(whole);

  const quantiles = new Map<number, number>();
  const tq = (df: number): number => {
    let q = quantiles.get(df);
    if (q === undefined) quantiles.set(df, (q = tQuantile(1 - (1 - confidence) / 2, df)));
    return q;
  };
  const out = stats.map((s, i): CellEstimate => {
    const allUnits = staged[i] && cells[i].stop !== undefined && cells[i].stop !== "precision";
    const base = {
      n: s.n,
      instances: Math.max(1, s.groups.size),
      meanLog: s.m,
      estimate: s.n ? Math.exp(s.m) * 100 : null,
      s2: own[i].df > 0 ? own[i].s2 : null,
      s2Df: own[i].df,
      s2Moderated: mod[i].df > 0 ? mod[i].s2 : null,
      split: staged[i] && !allUnits,
      ...(allUnits ? { allUnits: true } : {}),
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
    let m = s.m;
    if (staged[i]) {
      const st = moderateRobust(varianceOf(units[i].means.slice(0, stats[i].stageNow)), firstPrior);
      if (st.df > 0 && st.s2 >= 0)
        stopWidth = (Math.exp(tq(st.df) * Math.sqrt(st.s2 * w2 * HUBER_VARIANCE_FACTOR)) - 1) * 100;
      const r = allUnits ? moderateRobust(whole[i], wholePrior) : st;
      v = r.s2 * w2;
      df = r.df;
      // Huber's location at the unit scale the interval reads: a unit the others disagree with moves it a bounded amount.
      m = huberLocation(units[i].means, Math.sqrt(r.s2), units[i].w);
      v *= HUBER_VARIANCE_FACTOR;
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
    const low = Math.exp(m - h) * 100;
    const high = Math.exp(m + h) * 100;
    const p = 2 * (1 - tCdf(Math.abs(m) / se, df));
    // Not staged (a fixed count), the stop width is the interval's own.
    const stopHalfWidthPct = staged[i] ? stopWidth : opts.sequential === true ? null : (Math.exp(h) - 1) * 100;
    return {
      ...base,
      meanLog: m,
      estimate: Math.exp(m) * 100,
      low,
      high,
      se,
      df,
      p,
      stopHalfWidthPct,
      verdict: verdictOf(low, high, marginPct),
    };
  });
  const intervalPrior = staged.some(Boolean) ? firstPrior : multi.some(Boolean) ? betweenPrior : prior;
  return { cells: out, prior, intervalPrior, instanceLevel, confidence, marginPct };
}
