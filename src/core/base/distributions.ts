/**
 * Small, pure statistics: location and spread, the t, chi-square and F quantiles (from @stdlib). Verdicts are in
 * src/core/model/verdict.ts. The estimator of the ratio tables is in src/core/stats/estimate.ts (docs/stats.md).
 */
import stdlibChiSquareQuantile from "@stdlib/stats-base-dists-chisquare-quantile";
import stdlibFQuantile from "@stdlib/stats-base-dists-f-quantile";
import stdlibTCdf from "@stdlib/stats-base-dists-t-cdf";
import stdlibTQuantile from "@stdlib/stats-base-dists-t-quantile";

/** Median; NaN for an empty list. */
export function median(xs: readonly number[]): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** Arithmetic mean; NaN for an empty list. */
export function mean(xs: readonly number[]): number {
  if (xs.length === 0) return Number.NaN;
  let sum = 0;
  for (const x of xs) sum += x;
  return sum / xs.length;
}

/** Sample standard deviation (n - 1 in the denominator); NaN when fewer than 2 values. */
export function stddev(xs: readonly number[]): number {
  if (xs.length < 2) return Number.NaN;
  const m = mean(xs);
  let ss = 0;
  for (const x of xs) ss += (x - m) ** 2;
  return Math.sqrt(ss / (xs.length - 1));
}

/** Coefficient of variation as a fraction (stddev / mean); null when fewer than 2 values or the mean is 0. */
export function coefficientOfVariation(xs: readonly number[]): number | null {
  if (xs.length < 2) return null;
  const m = mean(xs);
  if (m === 0) return null;
  return stddev(xs) / Math.abs(m);
}

// ---- Student's t distribution (@stdlib) ------------------------------------------------------------------------

/** CDF of Student's t with `df` degrees of freedom (df may be fractional, as Welch's is). */
export function tCdf(t: number, df: number): number {
  return stdlibTCdf(t, df);
}

/** Quantile of Student's t: the value q with P(T <= q) = p. E.g. tQuantile(0.975, 2) = 4.3027. NaN unless 0 < p < 1. */
export function tQuantile(p: number, df: number): number {
  if (!(p > 0 && p < 1) || !(df > 0)) return Number.NaN;
  return stdlibTQuantile(p, df);
}

// ---- Chi-square and F distributions (the noise bench's intervals of a standard deviation and of sd ratios) -----

/**
 * Above this df the chi-square quantile is read as df · F(p; df, 1e15), the F distribution's chi-square limit:
 * @stdlib's chisquare-quantile 0.2.3 (gammaincinv at a large shape) is off by up to 1.3e-3 relative from df 2000
 * (0.2 quantile at df 5000: 4921.96 where scipy gives 4915.65), while the F route agrees with scipy to 1e-10 up to
 * df 1e5 and the direct one to 1e-14 up to df 1500 (test/unit/base/distributions.special.test.ts).
 */
const CHI_SQUARE_DIRECT_MAX_DF = 1000;
const F_LIMIT_DF = 1e15;

/** Quantile of chi-square: chiSquareQuantile(0.975, 10) = 20.483. NaN unless 0 < p < 1 and df > 0. */
export function chiSquareQuantile(p: number, df: number): number {
  if (!(p > 0 && p < 1) || !(df > 0)) return Number.NaN;
  return df <= CHI_SQUARE_DIRECT_MAX_DF ? stdlibChiSquareQuantile(p, df) : df * stdlibFQuantile(p, df, F_LIMIT_DF);
}

/** Quantile of F(d1, d2): fQuantile(0.975, 10, 20) = 2.774. NaN unless 0 < p < 1 and d1, d2 > 0. */
export function fQuantile(p: number, d1: number, d2: number): number {
  if (!(p > 0 && p < 1) || !(d1 > 0 && d2 > 0)) return Number.NaN;
  return stdlibFQuantile(p, d1, d2);
}
