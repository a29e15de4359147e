/**
 * Checks on a run's pairs beside the estimate: the order effect (numerator first against second) and outlier pairs.
 */
import { mean, median, tQuantile } from "../base/distributions.ts";
import { DEFAULT_CONFIDENCE, type CellInput } from "./estimate.ts";

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
