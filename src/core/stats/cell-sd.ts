/**
 * A cell's pair sd in one simulated run: drawn from the prior of the cells' variances, or from its posterior once the
 * run has pairs of the cell.
 */
import type { PairObs } from "./estimate.ts";

/** A cell's drawn pair sd is at most this many times the typical one (the inverse χ² has a long tail). */
export const MAX_SD_FACTOR = 5;

/** One draw of χ²(df), from a gamma sampler (kept above 0 for the divisions it goes into). */
export const chiSquare = (gamma: (shape: number) => number, df: number) => Math.max(2 * gamma(df / 2), 1e-12);

/** The mean of xs, or `fallback` when there is none. */
export const meanOr = (xs: readonly number[], fallback: number) =>
  xs.length ? xs.reduce((a, x) => a + x, 0) / xs.length : fallback;

/**
 * A cell's pair sd for one simulated run: s · sqrt(d0 / χ²(d0)) from the prior alone (capped at MAX_SD_FACTOR), or,
 * with pairs observed, the conjugate posterior sqrt((d0 s² + SS) / χ²(d0 + ν)), SS and ν the cell's sum of squares
 * about its instances' means and their df. When every instance so far held one pair (a fresh instance each round,
 * the adaptive default) there is no within-instance df, but the cell's spread about its own mean holds both levels:
 * its posterior is then the sum's, sqrt((d0 (s² + τ²) + SS_total) / χ²(d0 + n − 1)), less τ² (floored at
 * s / MAX_SD_FACTOR), so the run's own pairs move each cell away from the prior.
 */
export function drawCellSd(
  gamma: (shape: number) => number,
  s: number,
  d0: number,
  seen: readonly PairObs[],
  tau = 0,
): number {
  const groups = new Map<number, number[]>();
  for (const p of seen) groups.set(p.instance ?? 0, [...(groups.get(p.instance ?? 0) ?? []), p.d]);
  let ss = 0;
  let nu = 0;
  for (const g of groups.values()) {
    const m = meanOr(g, 0);
    for (const x of g) ss += (x - m) ** 2;
    nu += g.length - 1;
  }
  if (!Number.isFinite(d0)) return s; // equal cells: the prior is the cell's sd
  if (nu === 0 && seen.length >= 2) {
    const m = meanOr(
      seen.map((p) => p.d),
      0,
    );
    const ssTotal = seen.reduce((a, p) => a + (p.d - m) ** 2, 0);
    const df = d0 + seen.length - 1;
    const v = (d0 * (s * s + tau * tau) + ssTotal) / chiSquare(gamma, df);
    return Math.sqrt(Math.max(v - tau * tau, (s / MAX_SD_FACTOR) ** 2));
  }
  const df = d0 + nu;
  const sd = Math.sqrt((d0 * s * s + ss) / chiSquare(gamma, df));
  return nu > 0 ? sd : Math.min(MAX_SD_FACTOR * s, sd);
}
