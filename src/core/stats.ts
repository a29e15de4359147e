/**
 * Small, pure statistics: location and spread, Student's t distribution, and the verdict marks. The estimator of
 * the ratio tables is in src/core/estimate.ts (docs/stats.md).
 */

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

// ---- Student's t distribution -------------------------------------------------------------------------------

function logGamma(x: number): number {
  // Lanczos approximation (g = 7, n = 9), accurate to ~1e-15 for x > 0.
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
    12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  x -= 1;
  let a = c[0];
  const t = x + 7.5;
  for (let i = 1; i < 9; i++) a += c[i] / (x + i);
  return 0.5 * Math.log(2 * Math.PI) + (x + 0.5) * Math.log(t) - t + Math.log(a);
}

/** Continued fraction for the regularized incomplete beta function (Numerical Recipes betacf). */
function betaContinuedFraction(a: number, b: number, x: number): number {
  const tiny = 1e-300;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  if (Math.abs(d) < tiny) d = tiny;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= 300; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const del = d * c;
    h *= del;
    if (Math.abs(del - 1) < 1e-15) break;
  }
  return h;
}

/** Regularized incomplete beta I_x(a, b). */
function incompleteBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log(1 - x));
  return x < (a + 1) / (a + b + 2)
    ? (front * betaContinuedFraction(a, b, x)) / a
    : 1 - (front * betaContinuedFraction(b, a, 1 - x)) / b;
}

/** CDF of Student's t with `df` degrees of freedom (df may be fractional, as Welch's is). */
export function tCdf(t: number, df: number): number {
  const x = df / (df + t * t);
  const tail = 0.5 * incompleteBeta(x, df / 2, 0.5);
  return t >= 0 ? 1 - tail : tail;
}

/** Density of Student's t. */
function tPdf(t: number, df: number): number {
  return Math.exp(logGamma((df + 1) / 2) - logGamma(df / 2) - 0.5 * Math.log(df * Math.PI) - ((df + 1) / 2) * Math.log(1 + (t * t) / df));
}

/** Quantile of Student's t: the value q with P(T <= q) = p. E.g. tQuantile(0.975, 2) = 4.3027. */
export function tQuantile(p: number, df: number): number {
  if (!(p > 0 && p < 1) || !(df > 0)) return Number.NaN;
  if (p === 0.5) return 0;
  if (p < 0.5) return -tQuantile(1 - p, df);
  // Bracket, then Newton steps kept inside the bracket (bisection when a step leaves it).
  let lo = 0;
  let hi = 1;
  while (tCdf(hi, df) < p) hi *= 2;
  let x = (lo + hi) / 2;
  for (let i = 0; i < 200; i++) {
    const f = tCdf(x, df) - p;
    if (f < 0) lo = x;
    else hi = x;
    let next = x - f / tPdf(x, df);
    if (!(next > lo && next < hi)) next = (lo + hi) / 2;
    if (Math.abs(next - x) <= 1e-13 * Math.max(1, x)) return next;
    x = next;
  }
  return x;
}

// ---- Verdicts ---------------------------------------------------------------------------------------------

/**
 * faster / slower: the interval excludes 100; equivalent: it lies inside 100 ± margin; inconclusive: neither (or
 * it has zero width); unknown: fewer than 2 pairs. src/core/estimate.ts decides them.
 */
export type Verdict = "faster" | "slower" | "equivalent" | "inconclusive" | "unknown";

/** The mark a text table shows for a verdict: + - = ~ ?. */
export function verdictMark(v: Verdict): string {
  return v === "faster" ? "+" : v === "slower" ? "-" : v === "equivalent" ? "=" : v === "inconclusive" ? "~" : "?";
}

// ---- Chi-square and F distributions (the noise bench's intervals of a standard deviation and of sd ratios) -----

/** Regularized lower incomplete gamma P(a, x) (Numerical Recipes gser/gcf). */
function gammaP(a: number, x: number): number {
  if (x <= 0) return 0;
  const lg = logGamma(a);
  if (x < a + 1) {
    let sum = 1 / a;
    let del = sum;
    for (let n = 1; n < 1000; n++) {
      del *= x / (a + n);
      sum += del;
      if (Math.abs(del) < Math.abs(sum) * 1e-15) break;
    }
    return sum * Math.exp(-x + a * Math.log(x) - lg);
  }
  const tiny = 1e-300;
  let b = x + 1 - a;
  let c = 1 / tiny;
  let d = 1 / b;
  let h = d;
  for (let i = 1; i < 1000; i++) {
    const an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (Math.abs(d) < tiny) d = tiny;
    c = b + an / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const del = d * c;
    h *= del;
    if (Math.abs(del - 1) < 1e-15) break;
  }
  return 1 - Math.exp(-x + a * Math.log(x) - lg) * h;
}

/** CDF of the chi-square distribution with `df` degrees of freedom. */
export function chiSquareCdf(x: number, df: number): number {
  return gammaP(df / 2, x / 2);
}

/** CDF of the F distribution with (d1, d2) degrees of freedom. */
export function fCdf(x: number, d1: number, d2: number): number {
  if (x <= 0) return 0;
  return incompleteBeta((d1 * x) / (d1 * x + d2), d1 / 2, d2 / 2);
}

/** The x with cdf(x) = p for an increasing CDF on (0, ∞): bracket, then bisection. */
function positiveQuantile(cdf: (x: number) => number, p: number): number {
  if (!(p > 0 && p < 1)) return Number.NaN;
  let lo = 0;
  let hi = 1;
  while (cdf(hi) < p && hi < 1e12) hi *= 2;
  for (let i = 0; i < 200 && hi - lo > 1e-12 * Math.max(1, hi); i++) {
    const mid = (lo + hi) / 2;
    if (cdf(mid) < p) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/** Quantile of chi-square: chiSquareQuantile(0.975, 10) = 20.483. */
export function chiSquareQuantile(p: number, df: number): number {
  return df > 0 ? positiveQuantile((x) => chiSquareCdf(x, df), p) : Number.NaN;
}

/** Quantile of F(d1, d2): fQuantile(0.975, 10, 20) = 2.774. */
export function fQuantile(p: number, d1: number, d2: number): number {
  return d1 > 0 && d2 > 0 ? positiveQuantile((x) => fCdf(x, d1, d2), p) : Number.NaN;
}
