/**
 * The variance prior of a run's cells (empirical Bayes as in limma's squeezeVar): fitting the prior of the cells'
 * variances, and moderating one cell's variance toward it.
 */
import { mean } from "../base/distributions.ts";
import { digamma, trigamma, trigammaInverse } from "./special.ts";

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
  // test/unit/stats/estimate.test.ts where this covers 94.6%.
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
 * The moderated variance that cannot make a cell overconfident :
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
