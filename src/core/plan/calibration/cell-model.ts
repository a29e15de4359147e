/**
 * How unequal a host's cells are (pure): the prior df of their pair variances, and the two-level model that
 * forecasts each named cell's pair sd in the next run from the runs recorded here.
 */
import type { Calibration, CostShape } from "./schema.ts";
import { type VarianceObs, fitPooledPriorDf } from "../../stats/prior.ts";
import { digamma, trigamma } from "../../stats/special.ts";
import { ASSUMED_CELL_PRIOR_DF } from "../../stats/simulate.ts";
import { sameCostShape } from "./costs.ts";

/** The prior df of the cells' pair sds that the forecast simulates with, and where it came from. */
export interface CellPriorDf {
  d0: number;
  /** "recorded": fitted to the runs in the calibration's cellSpread (and the run's own cells); "assumed": {@link ASSUMED_CELL_PRIOR_DF}. */
  source: "recorded" | "assumed";
  runs: number;
  cells: number;
}

/**
 * How unequal this host's cells are (the prior df of their pair variances): fitted over the runs the calibration
 * recorded and, during a run, its own cells so far ({@link fitPooledPriorDf}); {@link ASSUMED_CELL_PRIOR_DF} when no
 * run has 2 cells with df. Not a fixed assumption: the assumed 2.2 fitted on early runs, while later runs here
 * showed far more equal cells, and one simulated noisy cell then kept the forecast run going to the budget.
 */
export function cellPriorDf(
  cal: Pick<Calibration, "cellSpread"> | null,
  own: readonly VarianceObs[] = [],
  shape?: CostShape,
): CellPriorDf {
  // With a shape, only runs on data of that shape (one quick run's six read-mostly cells on tmpfs gave
  // prior df 25, "cells alike", to a design of write cells on a 2 M-row RAID 0, where one cell read ±196% before).
  const runs = (cal?.cellSpread ?? []).filter((r) => shape === undefined || sameCostShape(r.shape, shape));
  const groups = [...runs.map((r) => r.cells), own];
  const fit = fitPooledPriorDf(groups);
  if (!fit) return { d0: ASSUMED_CELL_PRIOR_DF, source: "assumed", runs: 0, cells: 0 };
  return { d0: fit.d0, source: "recorded", runs: fit.groups, cells: fit.cells };
}

/** One cell's pair sd in a new run, as {@link cellNoiseModel} forecasts it: log-normal, sd = exp(logSd + logSdSpread · z). */
export interface CellNoise {
  cell: string;
  /** Mean and sd of ln(pair sd as a fraction) at the model's cell length, for a new run. */
  logSd: number;
  logSdSpread: number;
  /** The cell's own earlier runs in the model (0: a cell never run here, forecast as the typical cell). */
  runs: number;
  /** Its earlier runs' pair sds (%), oldest first. */
  pastSdPct: number[];
}

/**
 * How noisy each named cell will be in the next run on this data, from the last runs here: a
 * two-level model of the cells' log variances, y(c, r) = μ + a(c) + e(c, r), with a the cell's own level (it
 * carries over between runs: update_index at 64 threads stalled in both reduced seed runs, pair sd 47%
 * and 73%, where its neighbours had 1–9%) and e the run's (it does not: oltp_simple at 64 threads went from 6.4% to
 * 1.1%). Each y is a log sample variance, unbiased by ψ(ν/2) − ln(ν/2) and with sampling variance ψ'(ν/2); the
 * two variances are a one-way random-effects ANOVA by moments (within cells, between cells' means), each floored
 * at 0. A cell's forecast is its mean shrunk toward μ by τa² / (τa² + (τe² + ψ')/n), with the variance left after
 * that shrinkage plus τe²; a cell not run before gets μ with τa² + τe².
 *
 * It needs at least 2 runs on data of `shape` that recorded their cell length and named cells, sharing at least 2
 * cells; else null (the forecast keeps one pair sd with the prior df of {@link cellPriorDf}). Runs at other cell
 * lengths are moved to the newest run's length by `sdRatio(from, to)` (the pair-sd curve's ratio). The two
 * variances and μ are estimated from as few as 2 runs, so `draw` (what the design simulates with) first draws them
 * from their sampling distributions, then the cells. With the point estimates alone, a seeded test's 80% ranges
 * held 73–75% of the next run's widths (3 runs recorded); `logSd` and `logSdSpread` are those point estimates.
 */
export function cellNoiseModel(
  cal: Pick<Calibration, "cellSpread"> | null,
  shape: CostShape,
  cells: readonly string[],
  sdRatio: (fromSeconds: number, toSeconds: number) => number = () => 1,
): {
  cellSeconds: number;
  runs: number;
  muLogVar: number;
  between: number;
  within: number;
  cells: CellNoise[];
  /** One draw of the cells' pair sds (fractions, `cells` order) for a simulated run, the model's uncertainty included. */
  draw: (z: () => number, chi2: (df: number) => number) => number[];
} | null {
  const runs = (cal?.cellSpread ?? []).filter(
    (r) =>
      sameCostShape(r.shape, shape) && r.cellSeconds !== undefined && r.cellSeconds > 0 && r.cells.some((c) => c.cell),
  );
  if (runs.length < 2) return null;
  const at = runs[runs.length - 1]!.cellSeconds!;
  // Per cell, its runs' unbiased log variances at the newest run's length, and their sampling variances.
  const byCell = new Map<string, Array<{ y: number; v: number; sd: number }>>();
  for (const r of runs) {
    const k = sdRatio(r.cellSeconds!, at);
    for (const o of r.cells) {
      if (!o.cell || !(o.df > 0) || !(o.s2 > 0) || !Number.isFinite(o.s2)) continue;
      const s2 = o.s2 * k * k;
      const y = Math.log(s2) - digamma(o.df / 2) + Math.log(o.df / 2);
      byCell.set(o.cell, [...(byCell.get(o.cell) ?? []), { y, v: trigamma(o.df / 2), sd: Math.sqrt(s2) * 100 }]);
    }
  }
  const repeated = [...byCell.values()].filter((g) => g.length >= 2);
  if (repeated.length < 2) return null;
  // Within cells: the spread of a cell's runs about its mean, less sampling.
  let ssWithin = 0;
  let dfWithin = 0;
  let sampling = 0;
  let nObs = 0;
  for (const g of repeated) {
    const m = g.reduce((a, x) => a + x.y, 0) / g.length;
    ssWithin += g.reduce((a, x) => a + (x.y - m) ** 2, 0);
    dfWithin += g.length - 1;
  }
  for (const g of byCell.values())
    for (const x of g) {
      sampling += x.v;
      nObs++;
    }
  const psi = sampling / nObs;
  const within = Math.max(0, ssWithin / dfWithin - psi);
  // Between cells: the spread of the cells' means, less what runs and sampling put into a mean of n runs.
  const means = [...byCell.values()].map((g) => ({ m: g.reduce((a, x) => a + x.y, 0) / g.length, n: g.length }));
  const mu = means.reduce((a, x) => a + x.m, 0) / means.length;
  const spreadOfMeans = means.length > 1 ? means.reduce((a, x) => a + (x.m - mu) ** 2, 0) / (means.length - 1) : 0;
  const noiseInMeans = means.reduce((a, x) => a + (within + psi) / x.n, 0) / means.length;
  const between = Math.max(0, spreadOfMeans - noiseInMeans);
  const out: CellNoise[] = cells.map((cell) => {
    const g = byCell.get(cell) ?? [];
    if (!g.length) return { cell, logSd: mu / 2, logSdSpread: Math.sqrt(between + within) / 2, runs: 0, pastSdPct: [] };
    const m = g.reduce((a, x) => a + x.y, 0) / g.length;
    const noise = (within + psi) / g.length;
    const b = between + noise > 0 ? between / (between + noise) : 0;
    return {
      cell,
      logSd: (mu + b * (m - mu)) / 2,
      logSdSpread: Math.sqrt(within + between * (1 - b)) / 2,
      runs: g.length,
      pastSdPct: g.map((x) => x.sd),
    };
  });
  // One draw of every cell's pair sd in a new run, with the model's own uncertainty drawn first: the mean squares
  // from their χ² sampling distributions (within on its df, the cells' means on k − 1), μ from its standard error.
  const k = means.length;
  const msWithin = ssWithin / dfWithin;
  const draw = (z: () => number, chi2: (df: number) => number): number[] => {
    const w = Math.max(0, (msWithin * dfWithin) / chi2(dfWithin) - psi);
    const spread = k > 1 ? (spreadOfMeans * (k - 1)) / chi2(k - 1) : 0;
    const bt = Math.max(0, spread - means.reduce((a, x) => a + (w + psi) / x.n, 0) / k);
    const m0 = mu + Math.sqrt(spreadOfMeans / k) * z();
    return cells.map((cell) => {
      const g = byCell.get(cell) ?? [];
      if (!g.length) return Math.exp((m0 + Math.sqrt(bt + w) * z()) / 2);
      const m = g.reduce((a, x) => a + x.y, 0) / g.length;
      const noise = (w + psi) / g.length;
      const b = bt + noise > 0 ? bt / (bt + noise) : 0;
      return Math.exp((m0 + b * (m - m0) + Math.sqrt(w + bt * (1 - b)) * z()) / 2);
    });
  };
  return { cellSeconds: at, runs: runs.length, muLogVar: mu, between, within, cells: out, draw };
}
