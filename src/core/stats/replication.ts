/**
 * Would a second run agree? The level between runs of one cell on one host, from the runs' own estimates.
 *
 * Each run gives a cell one estimate: its log ratio y with its standard error se (from the run's interval). Over k
 * runs of the same cell, y varies by the run's own noise (se²) plus a level between runs, τ², that no single run can
 * see: a server restart, the machine's day, the page cache. The model is the one-way random-effects model,
 *   y_i = μ + u_i + e_i,  u_i ~ N(0, τ²),  e_i ~ N(0, se_i²),
 * estimated with equal weights (the runs of one scenario on one host have similar se): the between-run sample
 * variance s² of the y_i estimates τ² + mean(se²), and τ̂² = max(0, s² − mean(se²)) is REML's estimate for the
 * balanced model. With k = 2 or 3 runs a cell's own s² has 1 or 2 df, so cells borrow from each other as the pair
 * variances of one run do: an empirical-Bayes prior on the cells' s² (limma's, fitVariancePrior) moderates each one
 * and adds the prior's df to its own.
 *
 * Runs of very unequal precision: a run on a busy machine can carry an se 50 times the others'. In a random-effects
 * meta-analysis its inverse-variance weight 1/(τ² + se²) would be about nil; with equal weights it would lead
 * mean(se²), and through it every interval of the cell. So a run whose se² is above the 99.9% point of F (its df, the
 * others' df) times the cell's other runs' se² at their mean precision, 1/mean(1/se²), is left out of that cell
 * (`leftOut` names it), and the model above reads the rest. The quietest run is never left out.
 *
 * Per cell:
 * - the pooled estimate over runs, mean(y), with its t interval (s̃²/k on the moderated df);
 * - τ with its interval (from the chi-square interval of s̃², less mean(se²));
 * - I² = τ² / (τ² + mean(se²)), the share of the spread between runs that the runs' own intervals do not hold;
 * - the replication interval: where the next run's estimate will land with the stated probability, given that run's
 *   own se: pooled ± t · √(s̃²(1 + 1/k) + max(0, se_next² − mean(se²))), where se_next² is pooled with the earlier
 *   runs' on their df. A next run far noisier or far quieter than them by the same test (its F at 99.9% either way)
 *   is not like them: pooled ± t · √(max(0, s̃²(1 + 1/k) − mean(se²)) + se_next²) with its own se², on the
 *   Welch–Satterthwaite df. For a next run as noisy as the earlier ones this is the one-way model's prediction
 *   interval (as Higgins, Thompson & Spiegelhalter's 2009 prediction interval, with the next run's own noise added).
 * docs/stats.md ("Between runs") has the simulation of this code path that checks its coverage.
 */
import { chiSquareQuantile, fQuantile, mean, tQuantile } from "../base/distributions.ts";
import { fitVariancePrior, moderate, type VariancePrior } from "./prior.ts";

/** One run's estimate of one cell, on the log scale. */
export interface RunEstimateObs {
  /** The run's id (or folder name): used to name runs that fall outside. */
  run: string;
  /** ln(ratio / 100). */
  y: number;
  /** Standard error of y within that run. */
  se: number;
  /** The df of that se (the run's interval df); a large default when unknown. */
  df?: number;
}

/** The df taken for a run's se when its record has none. */
const DEFAULT_SE_DF = 30;

/** A run's se² above this quantile of F(its df, the others' df) times the others' is far noisier than them. */
const NOISIER_RUN_QUANTILE = 0.999;

/** The runs of one cell (one comparable cell definition on one host). */
export interface CellRuns {
  /** The cell's identity (its comparability key in a history, or any unique name). */
  cell: string;
  /** A name for people, e.g. `oltp_read_only @ 4`; `cell` when absent. */
  name?: string;
  runs: readonly RunEstimateObs[];
}

/** The level between runs of one cell, on the log scale (exp(x) · 100 gives the ratio in %). */
export interface ReplicationCell {
  cell: string;
  /** Runs that entered. */
  k: number;
  /** mean(y) and its interval. */
  pooled: number;
  pooledLow: number;
  pooledHigh: number;
  /** The sd between runs (log units) and its interval; null below 2 runs. */
  tau: number | null;
  tauLow: number | null;
  tauHigh: number | null;
  /** τ² / (τ² + mean(se²)), 0..1; null below 2 runs. */
  i2: number | null;
  /** Where the next run's estimate lands (log units), for a next run with se `nextSe` (default: mean of the runs'). */
  replicationLow: number | null;
  replicationHigh: number | null;
  /** Degrees of freedom of the intervals (the cell's own k − 1 plus the prior's, capped as limma's df.total). */
  df: number | null;
  /** The runs' own variance of the estimate, mean(se²) (log units²); null below 2 runs. */
  within: number | null;
  /** Runs left out of the cell as far noisier than its others (see the header). */
  leftOut?: string[];
}

export interface ReplicationOptions {
  /** Two-sided confidence of every interval; 0.95 by default. */
  confidence?: number;
  /**
   * The se (and its df) of the run the replication interval is for, by cell; when absent, a run like the earlier
   * ones (their root mean square se, on their pooled df).
   */
  next?: ReadonlyMap<string, { se: number; df: number }>;
}

/**
 * What the cells share: a common level between runs τ₀² (the mean excess of the cells' between-run variance over
 * their runs' own, floored at 0), and the empirical-Bayes prior of each cell's between-run variance relative to
 * τ₀² + its own runs' variance. At τ₀ = 0 the cells are scaled by their own noise; when the level between runs rules,
 * by one common variance: each cell borrows in the units where the cells are alike.
 */
export function betweenRunPrior(cells: readonly CellRuns[]): { tau0sq: number; prior: VariancePrior } {
  const used = cells.filter((c) => c.runs.length >= 2);
  const excess = used.map((c) => sampleVariance(c.runs.map((r) => r.y)) - withinVariance(c));
  const tau0sq = excess.length > 0 ? Math.max(0, mean(excess)) : 0;
  const prior = fitVariancePrior(
    used.map((c) => ({
      s2: sampleVariance(c.runs.map((r) => r.y)) / (tau0sq + withinVariance(c)),
      df: c.runs.length - 1,
    })),
  );
  return { tau0sq, prior };
}

/** The level between runs, per cell, with cells sharing one prior. Cells with fewer than 2 runs get nulls. */
export function replicationAnalysis(cells: readonly CellRuns[], opts: ReplicationOptions = {}): ReplicationCell[] {
  const confidence = opts.confidence ?? 0.95;
  const split = cells.map((c) => quietRuns(c));
  const kept = cells.map((c, i) => ({ ...c, runs: split[i].runs }));
  const prior = betweenRunPrior(kept);
  return kept.map((c, i) => ({
    ...replicationCell(c, prior, confidence, opts.next?.get(c.cell)),
    leftOut: split[i].leftOut,
  }));
}

/**
 * A cell's runs without those far noisier than its others (a run on a busy machine): each run's se² against the
 * others' at their mean precision, 1/mean(1/se²), which a noisy other barely moves, by F on their df. The quietest run
 * is never left out.
 */
export function quietRuns(c: CellRuns): { runs: RunEstimateObs[]; leftOut: string[] } {
  const noisy = c.runs.map((r, i) =>
    farNoisier(
      r,
      c.runs.filter((_, j) => j !== i),
    ),
  );
  return { runs: c.runs.filter((_, i) => !noisy[i]), leftOut: c.runs.filter((_, i) => noisy[i]).map((r) => r.run) };
}

/**
 * Whether run r's se² is above the 99.9% point of F(its df, the others' df) times the others' (see quietRuns), or
 * with `quieter`, below its 0.1% point: far quieter than them.
 */
function farNoisier(r: { se: number; df?: number }, others: readonly RunEstimateObs[], quieter = false): boolean {
  if (others.length === 0 || !(r.se > 0) || !others.every((o) => o.se > 0)) return false;
  const ref = 1 / mean(others.map((o) => 1 / (o.se * o.se)));
  const df = others.reduce((a, o) => a + (o.df ?? DEFAULT_SE_DF), 0);
  const ratio = quieter ? ref / (r.se * r.se) : (r.se * r.se) / ref;
  // The 99.9% point of F is above 1 at every df: a ratio at or below 1 needs no quantile.
  if (!(ratio > 1)) return false;
  return quieter ? ratio > fPoint(df, r.df ?? DEFAULT_SE_DF) : ratio > fPoint(r.df ?? DEFAULT_SE_DF, df);
}

/** The 99.9% point of F(d1, d2), remembered (the F quantile is costly, and a history repeats its df). */
const fPoints = new Map<string, number>();
function fPoint(d1: number, d2: number): number {
  const key = `${d1}|${d2}`;
  let v = fPoints.get(key);
  if (v === undefined) {
    if (fPoints.size > 10_000) fPoints.clear();
    v = fQuantile(NOISIER_RUN_QUANTILE, d1, d2);
    fPoints.set(key, v);
  }
  return v;
}

function replicationCell(
  c: CellRuns,
  shared: { tau0sq: number; prior: VariancePrior },
  confidence: number,
  next?: { se: number; df: number },
): ReplicationCell {
  const ys = c.runs.map((r) => r.y);
  const k = ys.length;
  const centre = k > 0 ? mean(ys) : Number.NaN;
  const none = {
    cell: c.cell,
    k,
    pooled: centre,
    pooledLow: Number.NaN,
    pooledHigh: Number.NaN,
    tau: null,
    tauLow: null,
    tauHigh: null,
    i2: null,
    replicationLow: null,
    replicationHigh: null,
    df: null,
    within: null,
  };
  if (k < 2) return none;
  const within = withinVariance(c);
  const scale = shared.tau0sq + within;
  const r = moderate({ s2: sampleVariance(ys) / scale, df: k - 1 }, shared.prior);
  // Runs that agree to the last digit (copies of one run under other ids) say nothing about the spread: the
  // variance is then the runs' own, the least the model allows.
  const m = { s2: r.s2 * scale > within * 1e-9 ? r.s2 * scale : within, df: r.df };
  if (!(m.df > 0) || !(m.s2 >= 0)) return none;
  const t = tQuantile((1 + confidence) / 2, m.df);
  const sePooled = Math.sqrt(m.s2 / k);
  const dfWithin = c.runs.reduce((a, x) => a + (x.df ?? DEFAULT_SE_DF), 0);
  const nextRun = next ?? { se: Math.sqrt(within), df: dfWithin };
  // A run of the same scenario on this host: its noise is estimated from its own se and the earlier runs' together
  // (each on its df). Only a next run noisier than the earlier ones widens the interval beyond s̃²(1 + 1/k), the
  // one-way model's prediction variance; a quieter one cannot narrow it, since s̃² holds the level between runs.
  // A next run far noisier than the earlier ones (a busy machine) is not like them: its own se, on the
  // Welch–Satterthwaite df. Nor is a next run far quieter than them (the earlier ones were busy): τ̂² plus its own
  // se², where the floor at the earlier runs' noise would hold their machine's state against it.
  const own = next !== undefined && (farNoisier(next, c.runs) || farNoisier(next, c.runs, true));
  const nextVar = own
    ? nextRun.se * nextRun.se
    : (nextRun.df * nextRun.se * nextRun.se + dfWithin * within) / (nextRun.df + dfWithin);
  // For such a run, τ̂² = s̃² − mean(se²) enters unfloored (unbiased; the floor at 0 would widen every interval at
  // τ = 0), and the whole never falls below the next run's own variance.
  const fixed = own ? Math.max(0, m.s2 * (1 + 1 / k) - within) : m.s2 * (1 + 1 / k);
  const extra = own ? nextVar : Math.max(0, nextVar - within);
  const repVar = fixed + extra;
  const tRep = own ? tQuantile((1 + confidence) / 2, welchDf(fixed, m.df, extra, nextRun.df)) : t;
  const tau2 = Math.max(0, m.s2 - within);
  const [tauLow, tauHigh] = tauInterval(m.s2, m.df, within, confidence);
  return {
    cell: c.cell,
    k,
    pooled: centre,
    pooledLow: centre - t * sePooled,
    pooledHigh: centre + t * sePooled,
    tau: Math.sqrt(tau2),
    tauLow,
    tauHigh,
    i2: tau2 + within > 0 ? tau2 / (tau2 + within) : 0,
    replicationLow: centre - tRep * Math.sqrt(repVar),
    replicationHigh: centre + tRep * Math.sqrt(repVar),
    df: m.df,
    within,
  };
}

/** τ's interval: the chi-square interval of the total between-run variance, less the runs' own, floored at 0. */
function tauInterval(s2: number, df: number, within: number, confidence: number): [number, number] {
  if (!Number.isFinite(df)) {
    const tau = Math.sqrt(Math.max(0, s2 - within));
    return [tau, tau];
  }
  const a = (1 - confidence) / 2;
  const high = (df * s2) / chiSquareQuantile(a, df);
  const low = (df * s2) / chiSquareQuantile(1 - a, df);
  return [Math.sqrt(Math.max(0, low - within)), Math.sqrt(Math.max(0, high - within))];
}

/**
 * The runs outside the interval the other runs give them: each run against the replication interval of the others
 * (with its own se), for cells with 3 or more runs. Returns `cell: run` names.
 */
export function runsOutside(cells: readonly CellRuns[], confidence = 0.95): string[] {
  const out: string[] = [];
  for (const c of cells) {
    if (c.runs.length < 3) continue;
    c.runs.forEach((r, i) => {
      const others = cells.map((o) => (o === c ? { cell: c.cell, runs: c.runs.filter((_, j) => j !== i) } : o));
      const next = new Map([[c.cell, { se: r.se, df: r.df ?? DEFAULT_SE_DF }]]);
      const rep = replicationAnalysis(others, { confidence, next }).find((x) => x.cell === c.cell);
      if (rep?.replicationLow == null || rep.replicationHigh == null) return;
      if (r.y < rep.replicationLow || r.y > rep.replicationHigh) out.push(`${c.cell}: ${r.run}`);
    });
  }
  return out;
}

/** The standard error of a run's log estimate from its printed interval (in %) and the interval's t df. */
export function seFromInterval(low: number, high: number, df: number, confidence = 0.95): number | null {
  if (!(low > 0 && high > low) || !(df > 0)) return null;
  return (Math.log(high) - Math.log(low)) / (2 * tQuantile((1 + confidence) / 2, df));
}

/** The runs' own variance of the cell's estimate: the mean of their se². */
function withinVariance(c: CellRuns): number {
  return mean(c.runs.map((r) => r.se * r.se));
}

function sampleVariance(xs: readonly number[]): number {
  const m = mean(xs);
  return xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1);
}

/** The Welch–Satterthwaite df of a sum of two variance estimates on their own df. */
export function welchDf(v1: number, df1: number, v2: number, df2: number): number {
  const terms = (v1 * v1) / df1 + (v2 * v2) / df2;
  return terms > 0 ? ((v1 + v2) * (v1 + v2)) / terms : df1;
}
