/**
 * Would a second run agree? The level between runs of one cell on one host, from the runs' own estimates.
 *
 * Each run gives a cell one estimate: its log ratio y with its standard error se (from the run's interval). Over k
 * runs of the same cell, y varies by the run's own noise (se²) plus a level between runs, τ², that no single run can
 * see: a server restart, the machine's day, the page cache. The model is the random-effects model of meta-analysis,
 *   y_i = μ + u_i + e_i,  u_i ~ N(0, τ²),  e_i ~ N(0, se_i²),
 * whose runs are of unequal precision: a run on a busy machine can have an se 50 times the others'. So every run is
 * weighted by 1/(τ² + se_i²) (inverse variance, as a random-effects meta-analysis weights its studies), and a noisy
 * run counts little both in the pooled estimate and in what is read as a level between runs.
 * - τ²: the common level τ₀² of the cells is Paule–Mandel's estimate (Paule & Mandel 1982; DerSimonian & Kacker
 *   2007), taken over all cells at once: the τ² at which the generalized Q statistics Σ w_i (y_i − μ̂)² of the cells
 *   sum to their df, 0 when the runs vary no more than their own se.
 * - With k = 2 or 3 runs a cell's own Q has 1 or 2 df, so cells borrow from each other as the pair variances of one
 *   run do: each cell's q = Q(τ₀²) / (k − 1), which is χ²_{k−1}/(k − 1) when the cell's level is τ₀², is moderated by
 *   limma's empirical-Bayes prior over the cells (fitVariancePrior), adding the prior's df to its own. The moderated
 *   q̃ scales the cell's variances (Hartung & Knapp 2001; Sidik & Jonkman 2002: the pooled estimate's variance is
 *   q/Σw on a t with k − 1 df, here on the moderated df).
 * - The typical run's own variance is the se² of a run of the runs' mean precision, 1/mean(1/se²): se² when the runs'
 *   se are equal, and barely moved by one far noisier run (their mean se² is led by it). s̃² = q̃ (τ₀² + typical se²)
 *   is the variance of a typical run about the host's level.
 *
 * Per cell:
 * - the pooled estimate over runs, μ̂ = Σw y / Σw, with its t interval (variance q̃/Σw on the moderated df); with
 *   equal se it is the mean with s̃²/k, the one-way model's;
 * - τ with its interval (from the chi-square interval of s̃², less the typical se²);
 * - I² = τ² / (τ² + typical se²), the share of the spread between runs that the runs' own intervals do not hold;
 * - the replication interval, where the next run's estimate lands given that run's own se: Higgins, Thompson &
 *   Spiegelhalter's (2009) prediction interval with the next run's own noise, μ̂ ± t · √(s̃² + q̃/Σw + max(0,
 *   se_next² − typical se²)), where se_next² is moderated toward the typical se² by as many df as the runs' se² are
 *   alike (limma's prior df over the cells' runs and the next one, fitPooledPriorDf: a busy next run among quiet ones
 *   keeps its own se) and the t's df is Welch–Satterthwaite's when the next run is the noisier. For a next run as noisy as the earlier ones this is the one-way model's prediction
 *   interval.
 * docs/stats.md ("Between runs") has the simulation of this code path that checks its coverage, with runs of equal and
 * of unequal precision.
 */
import { chiSquareQuantile, mean, tQuantile } from "../base/distributions.ts";
import { fitPooledPriorDf, fitVariancePrior, moderate, type VariancePrior } from "./prior.ts";

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
  /** The weighted mean Σw y / Σw (w = 1/(τ₀² + se²)) and its interval. */
  pooled: number;
  pooledLow: number;
  pooledHigh: number;
  /** The sd between runs (log units) and its interval; null below 2 runs. */
  tau: number | null;
  tauLow: number | null;
  tauHigh: number | null;
  /** τ² / (τ² + typical se²), 0..1; null below 2 runs. */
  i2: number | null;
  /** Where the next run's estimate lands (log units), for the `next` run of the options (default: a typical run). */
  replicationLow: number | null;
  replicationHigh: number | null;
  /** Degrees of freedom of the intervals (the cell's own k − 1 plus the prior's, capped as limma's df.total). */
  df: number | null;
  /** The typical run's own variance of the estimate, the typical se² (log units²; see the header); null below 2 runs. */
  within: number | null;
}

export interface ReplicationOptions {
  /** Two-sided confidence of every interval; 0.95 by default. */
  confidence?: number;
  /**
   * The se (and its df) of the run the replication interval is for, by cell; when absent, a typical run like the
   * earlier ones (the typical se², on their pooled df).
   */
  next?: ReadonlyMap<string, { se: number; df: number }>;
}

/** What the cells share (see the module header). */
export interface BetweenRunShared {
  /** The common level between runs τ₀² (Paule–Mandel over the cells, 0 when the runs agree within their se). */
  tau0sq: number;
  /** The empirical-Bayes prior of the cells' scaled between-run variances q = Q(τ₀²) / (k − 1). */
  prior: VariancePrior;
  /** How alike the runs' own variances se² are (prior df over the cells; Infinity: as alike as their df allow). */
  seD0: number;
}

/**
 * What the cells share: a common level between runs τ₀², the one at which the cells' generalized Q statistics, with
 * inverse-variance weights 1/(τ₀² + se_i²), sum to their df (Paule–Mandel's moment equation over the cells; 0 when
 * the runs vary no more than their own se); the empirical-Bayes prior of each cell's Q(τ₀²) / (k − 1); and how alike
 * the runs' own se² are (limma's prior df over the cells, each about its own mean), the `next` runs included.
 */
export function betweenRunPrior(cells: readonly CellRuns[], next?: ReplicationOptions["next"]): BetweenRunShared {
  const used = cells.filter((c) => c.runs.length >= 2);
  const tau0sq = pauleMandel(used);
  const prior = fitVariancePrior(used.map((c) => ({ s2: weighted(c, tau0sq).q, df: c.runs.length - 1 })));
  const se = fitPooledPriorDf(
    cells.map((c) => {
      const n = next?.get(c.cell);
      const runs = [...c.runs, ...(n ? [n] : [])];
      return runs.map((r) => ({ s2: r.se * r.se, df: r.df ?? DEFAULT_SE_DF }));
    }),
  );
  return { tau0sq, prior, seD0: se?.d0 ?? 0 };
}

/** The level between runs, per cell, with cells sharing one prior. Cells with fewer than 2 runs get nulls. */
export function replicationAnalysis(cells: readonly CellRuns[], opts: ReplicationOptions = {}): ReplicationCell[] {
  const confidence = opts.confidence ?? 0.95;
  const prior = betweenRunPrior(cells, opts.next);
  return cells.map((c) => replicationCell(c, prior, confidence, opts.next?.get(c.cell)));
}

function replicationCell(
  c: CellRuns,
  shared: BetweenRunShared,
  confidence: number,
  next?: { se: number; df: number },
): ReplicationCell {
  const ys = c.runs.map((r) => r.y);
  const k = ys.length;
  const none = {
    cell: c.cell,
    k,
    pooled: k > 0 ? mean(ys) : Number.NaN,
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
  const w = weighted(c, shared.tau0sq);
  const within = typicalWithin(c);
  const scale = shared.tau0sq + within;
  const r = moderate({ s2: w.q, df: k - 1 }, shared.prior);
  // Runs that agree to the last digit (copies of one run under other ids) say nothing about the spread: the
  // variance is then the runs' own, the least the model allows.
  const m = { s2: r.s2 * scale > within * 1e-9 ? r.s2 * scale : within, df: r.df };
  if (!(m.df > 0) || !(m.s2 >= 0) || !(scale > 0)) return none;
  const t = tQuantile((1 + confidence) / 2, m.df);
  // The pooled estimate's variance: the moderated scale q̃ = s̃² / (τ₀² + typical se²) over the weights' sum
  // (Hartung–Knapp–Sidik–Jonkman); with equal se it is s̃² / k.
  const pooledVar = m.s2 / scale / w.sumW;
  const dfWithin = c.runs.reduce((a, x) => a + (x.df ?? DEFAULT_SE_DF), 0);
  const nextRun = next ?? { se: Math.sqrt(within), df: dfWithin };
  // The next run's own variance: its se² moderated toward this cell's typical se² by as many df as the runs' se²
  // are alike (all of the earlier runs' df when they are as alike as their df allow; few when some runs were far
  // noisier, so that a busy next run keeps its own se). Only a next run noisier than the typical one widens the
  // interval beyond s̃² + var(pooled), the one-way model's prediction variance; a quieter one cannot narrow it, since
  // s̃² holds the level between runs.
  const d = Math.min(shared.seD0, dfWithin);
  const nextVar = (nextRun.df * nextRun.se * nextRun.se + d * within) / (nextRun.df + d);
  const extra = Math.max(0, nextVar - within);
  const base = m.s2 + pooledVar;
  const repVar = base + extra;
  const repDf = extra > 0 ? welchDf(base, m.df, extra, nextRun.df + d) : m.df;
  const tRep = tQuantile((1 + confidence) / 2, repDf);
  const tau2 = Math.max(0, m.s2 - within);
  const [tauLow, tauHigh] = tauInterval(m.s2, m.df, within, confidence);
  return {
    cell: c.cell,
    k,
    pooled: w.mu,
    pooledLow: w.mu - t * Math.sqrt(pooledVar),
    pooledHigh: w.mu + t * Math.sqrt(pooledVar),
    tau: Math.sqrt(tau2),
    tauLow,
    tauHigh,
    i2: tau2 + within > 0 ? tau2 / (tau2 + within) : 0,
    replicationLow: w.mu - tRep * Math.sqrt(repVar),
    replicationHigh: w.mu + tRep * Math.sqrt(repVar),
    df: m.df,
    within,
  };
}

/**
 * A cell's runs weighted by 1/(τ² + se_i²): the weighted mean μ̂, the weights' sum, and the generalized Q over its df,
 * q = Σ w_i (y_i − μ̂)² / (k − 1), which is χ²_{k−1}/(k − 1) when τ² is the cell's level between runs. A run with no se
 * (or all, at τ² = 0) gives equal weights.
 */
function weighted(c: CellRuns, tau2: number): { mu: number; sumW: number; q: number } {
  const v = c.runs.map((r) => tau2 + r.se * r.se);
  const ok = v.every((x) => x > 0 && Number.isFinite(x));
  const w = ok ? v.map((x) => 1 / x) : v.map(() => 1 / Math.max(mean(v.filter((x) => x > 0)) || 1, 1e-300));
  const sumW = w.reduce((a, x) => a + x, 0);
  const mu = c.runs.reduce((a, r, i) => a + w[i] * r.y, 0) / sumW;
  const Q = c.runs.reduce((a, r, i) => a + w[i] * (r.y - mu) ** 2, 0);
  return { mu, sumW, q: c.runs.length > 1 ? Q / (c.runs.length - 1) : Number.NaN };
}

/**
 * The common level between runs: the τ² ≥ 0 at which Σ_cells Q_c(τ²) = Σ_cells (k_c − 1) (Paule & Mandel; the sum
 * falls as τ² grows). 0 when the runs vary no more than their own se.
 */
function pauleMandel(cells: readonly CellRuns[]): number {
  const df = cells.reduce((a, c) => a + c.runs.length - 1, 0);
  const total = (tau2: number) => cells.reduce((a, c) => a + weighted(c, tau2).q * (c.runs.length - 1), 0);
  if (df === 0 || !(total(0) > df)) return 0;
  // At τ² = the largest sample variance every Q_c(τ²) ≤ (k_c − 1) s_c² / τ² ≤ k_c − 1: the root is below.
  let lo = 0;
  let hi = Math.max(...cells.map((c) => sampleVariance(c.runs.map((r) => r.y))));
  for (let i = 0; i < 100 && hi - lo > 1e-13 * hi; i++) {
    const mid = (lo + hi) / 2;
    if (total(mid) > df) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
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

/**
 * The typical run's own variance: the se² of a run of the runs' mean precision, 1/mean(1/se²). It is se² when the
 * runs' se are equal, and a run far noisier than the others barely moves it (the mean of se² is led by that run).
 */
function typicalWithin(c: CellRuns): number {
  const se2 = c.runs.map((r) => r.se * r.se);
  if (!se2.every((x) => x > 0 && Number.isFinite(x))) return mean(se2);
  return 1 / mean(se2.map((x) => 1 / x));
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
