/**
 * A robust location of a cell's replication units (pure): Huber's M-estimate at a given scale, so that one wild unit
 * among units that agree moves the estimate by a bounded amount (at most k scales over the count) instead of without
 * limit.
 *
 * Each unit's residual from the location is capped at k scales (Huber's ψ); the location solves Σ w·ψ = 0
 * (iteratively reweighted means). Without a residual beyond k scales it is the weighted mean, exactly. At normal
 * errors its variance is {@link HUBER_VARIANCE_FACTOR} times the mean's, which the interval carries.
 */

/** Huber's tuning constant: 95% efficiency at normal errors. */
export const HUBER_K = 1.345;

/**
 * E[ψ²] / E[ψ']² at the standard normal for k = {@link HUBER_K}: the variance of the Huber location over the mean's
 * (1 / 0.95). With Φ the normal cdf and φ its density: E[ψ'] = 2Φ(k) − 1; E[ψ²] = E[ψ'] − 2kφ(k) + 2k²(1 − Φ(k)).
 */
export const HUBER_VARIANCE_FACTOR = 1.0526;

/** The Huber location of `xs` (weights `w`, equal when absent) at `scale` (the mean when the scale is not positive). */
export function huberLocation(xs: readonly number[], scale: number, w?: readonly number[]): number {
  const n = xs.length;
  if (!n) return Number.NaN;
  const ws = w ?? xs.map(() => 1);
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    num += ws[i] * xs[i];
    den += ws[i];
  }
  let mu = num / den;
  if (!(scale > 0) || n < 3) return mu;
  const c = HUBER_K * scale;
  for (let it = 0; it < 100; it++) {
    num = 0;
    den = 0;
    for (let i = 0; i < n; i++) {
      // IRLS: each unit weighted by ψ(r)/r (1 inside the cap, c/|r| beyond it).
      const r = Math.abs(xs[i] - mu);
      const h = r <= c ? 1 : c / r;
      num += ws[i] * h * xs[i];
      den += ws[i] * h;
    }
    const next = num / den;
    const done = Math.abs(next - mu) <= 1e-12 * (1 + Math.abs(mu));
    mu = next;
    if (done) break;
  }
  return mu;
}
