/**
 * One server's per-second series (pure): its CV, its autocorrelation and the CV of its block means against what
 * white noise would give. `twinbench calibrate` reads a host's series with it.
 */
import { mean, stddev } from "../base/distributions.ts";

/** CV of block means for one block length, against what white noise would give. */
export interface BlockCv {
  seconds: number;
  cvPct: number;
  whiteNoiseCvPct: number;
}

/** A per-second series' statistics: its length, CV (%), autocorrelation at lags 1.. and block-mean CVs. */
export interface SeriesStats {
  seconds: number;
  cvPct: number;
  autocorr: number[];
  blocks: BlockCv[];
}

/** Block lengths (seconds) whose block-mean CV calibrate reports. */
export const BLOCK_SECONDS = [2, 5, 10, 20] as const;

/** A per-second series' CV (%), autocorrelation at lags 1..`lags` and the CV of its block means (pure). */
export function seriesStats(
  values: readonly number[],
  o: { lags?: number; blocks?: readonly number[] } = {},
): SeriesStats {
  const n = values.length;
  const m = mean(values);
  const cvPct = (xs: readonly number[]) =>
    xs.length >= 2 && mean(xs) !== 0 ? (stddev(xs) / Math.abs(mean(xs))) * 100 : Number.NaN;
  const cv = cvPct(values);
  const ss = values.reduce((a, x) => a + (x - m) ** 2, 0);
  const autocorr: number[] = [];
  for (let k = 1; k <= (o.lags ?? 5) && k < n; k++) {
    let c = 0;
    for (let t = 0; t + k < n; t++) c += (values[t] - m) * (values[t + k] - m);
    autocorr.push(ss > 0 ? c / ss : 0);
  }
  const blocks: BlockCv[] = [];
  for (const len of o.blocks ?? BLOCK_SECONDS) {
    const count = Math.floor(n / len);
    if (count < 2) continue; // one block has no spread
    const means = Array.from({ length: count }, (_, b) => mean(values.slice(b * len, (b + 1) * len)));
    blocks.push({ seconds: len, cvPct: cvPct(means), whiteNoiseCvPct: cv / Math.sqrt(len) });
  }
  return { seconds: n, cvPct: cv, autocorr, blocks };
}
