/**
 * The two levels of A/A noise (pure): the sd of log pair ratios within server instances and between them, by the
 * method of moments of the one-way layout, and each cell's own variance.
 */
import type { VarianceObs } from "./prior.ts";
import { mean } from "../base/distributions.ts";

/** The pair and instance levels of A/A pairs, in log units × 100 (≈ %). */
export interface NestedSd {
  pairSdPct: number;
  pairDf: number;
  instanceSdPct: number | null;
  instanceDf: number;
  pairs: number;
}

/**
 * Nested sds of log pair ratios: `cells[c][i]` holds the log pair ratios of cell c on server instance i. The pair
 * sd pools the deviations from each (cell, instance) mean (df: pairs − groups). The instance sd is the method of
 * moments of the one-way layout, pooled over cells (as estimateRun's τ²): Q = Σ k_i (m_i − m)², E[Q] = (I − 1)σ² +
 * (n − Σk_i²/n) τ², floored at 0; its df is Σ (I_c − 1). Null when no cell ran on 2 instances.
 */
export function nestedSd(cells: ReadonlyArray<ReadonlyArray<readonly number[]>>): NestedSd {
  let ss = 0;
  let df = 0;
  let pairs = 0;
  for (const cell of cells)
    for (const g of cell) {
      if (g.length === 0) continue;
      const gm = mean(g);
      for (const x of g) ss += (x - gm) ** 2;
      df += g.length - 1;
      pairs += g.length;
    }
  const s2 = df > 0 ? ss / df : Number.NaN;
  let q = 0;
  let den = 0;
  let instanceDf = 0;
  for (const cell of cells) {
    const gs = cell.filter((g) => g.length > 0);
    if (gs.length < 2) continue;
    const n = gs.reduce((a, g) => a + g.length, 0);
    const m = gs.reduce((a, g) => a + g.reduce((x, y) => x + y, 0), 0) / n;
    q += gs.reduce((a, g) => a + g.length * (mean(g) - m) ** 2, 0) - (gs.length - 1) * (Number.isFinite(s2) ? s2 : 0);
    den += n - gs.reduce((a, g) => a + g.length ** 2, 0) / n;
    instanceDf += gs.length - 1;
  }
  return {
    pairSdPct: Math.sqrt(s2) * 100,
    pairDf: df,
    instanceSdPct: instanceDf > 0 && den > 0 ? Math.sqrt(Math.max(0, q / den)) * 100 : null,
    instanceDf,
    pairs,
  };
}

/** A run's noise: both levels (`nested`), or, when no instance held 2 pairs of a cell, their sum only (`total`). */
export type RunNoise = NestedSd & { levels: "nested" | "total" };

/**
 * {@link nestedSd} of a run's pairs (cells[c][i]: cell c's log ratios on instance i). A layout with a new instance
 * every round (quick.yaml: min 4, a fresh instance each round) has no pair df within instances: then the spread of each cell's
 * pairs about its mean is the pair and instance levels together, reported as the pair sd with `levels: "total"` and
 * no instance sd. Null with no df at all.
 */
export function runLevels(cells: ReadonlyArray<ReadonlyArray<readonly number[]>>): RunNoise | null {
  const sd = nestedSd(cells);
  if (sd.pairDf > 0) return { ...sd, levels: "nested" };
  const total = nestedSd(cells.map((g) => [g.flat()]));
  return total.pairDf > 0 ? { ...total, instanceSdPct: null, instanceDf: 0, levels: "total" } : null;
}

/**
 * The pair variance in a total (pair + instance) variance, given the instance variance: the difference, floored at
 * a quarter of the total (the two estimates come from different data; a difference near 0 would claim a quiet host).
 */
export function pairShareOf(totalS2: number, instanceS2: number | null): number {
  return instanceS2 === null ? totalS2 : Math.max(totalS2 - instanceS2, totalS2 / 4);
}

/**
 * Each cell's variance of its log pair ratios about the cell's mean (its instances together: with a fresh instance
 * every round, as quick.yaml runs, that is all a cell shows) and its df, n − 1. Cells with fewer than 2 pairs are
 * left out.
 */
export function cellVariances(cells: ReadonlyArray<readonly number[]>): VarianceObs[] {
  return cells
    .filter((g) => g.length >= 2)
    .map((g) => {
      const m = mean(g);
      return { s2: g.reduce((a, x) => a + (x - m) ** 2, 0) / (g.length - 1), df: g.length - 1 };
    });
}
