/**
 * Small, pure statistics for benchmark repeats: location and spread, Student's t quantiles, and the confidence
 * interval of a ratio between two sides (two servers in one run, or one server in two runs).
 *
 * The method is documented in docs/stats.md. In short:
 * - cell value: median(numerator) / median(denominator) * 100 (inverted for latency);
 * - paired (same run, repeat r of A ran next to repeat r of B): t-interval on d_r = ln(a_r / b_r), n = complete pairs;
 * - unpaired (two runs): Welch t-interval on the difference of the mean logs, n = min(n_a, n_b);
 * - the interval is exp(mean ± t(0.975, df) * se) * 100.
 */

export type Verdict = "faster" | "slower" | "same" | "unknown";
export type Pairing = "paired" | "unpaired";

/** Values that can be used: finite numbers. */
function finite(xs: ReadonlyArray<number | null | undefined>): number[] {
  return xs.filter((x): x is number => typeof x === "number" && Number.isFinite(x));
}

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

// ---- The ratio of two sides ---------------------------------------------------------------------------------

export interface RatioOptions {
  /** Ratio den/num instead of num/den (latency: lower is better, so above 100 still means "numerator better"). */
  invert?: boolean;
  /** "paired": values at the same index belong together (repeat r of both sides). Default "paired". */
  pairing?: Pairing;
  /** A side whose CV (in %) exceeds this makes the verdict "unknown". Default 10. */
  cvThresholdPct?: number;
  /** Confidence level of the interval. Default 0.95. */
  confidence?: number;
}

export interface RatioEstimate {
  /** median(numerator) / median(denominator) * 100 (swapped when inverted); null when a side has no value. */
  ratio: number | null;
  /** Interval bounds in %, null when n < 2. */
  low: number | null;
  high: number | null;
  /** The centre of the interval: exp(mean of the log ratios) * 100; null when n < 1. */
  geomean: number | null;
  /** Paired: number of complete pairs. Unpaired: min(n_a, n_b). */
  n: number;
  /** Degrees of freedom used for the t quantile (null when n < 2). */
  df: number | null;
  verdict: Verdict;
  /** Why the verdict is "unknown". */
  reason?: "too-few-repeats" | "noisy" | "no-data";
  /** CV of each side in %, over all its usable values; null when fewer than 2. */
  cvNumeratorPct: number | null;
  cvDenominatorPct: number | null;
}

export const DEFAULT_CV_THRESHOLD_PCT = 10;

const usable = (x: number | null | undefined): x is number => typeof x === "number" && Number.isFinite(x) && x > 0;

/**
 * Estimate numerator/denominator * 100 with a confidence interval and a verdict.
 * For "paired", `numerator[i]` and `denominator[i]` are repeat i of each side (null when missing).
 */
export function ratioEstimate(
  numerator: ReadonlyArray<number | null | undefined>,
  denominator: ReadonlyArray<number | null | undefined>,
  opts: RatioOptions = {},
): RatioEstimate {
  const invert = opts.invert ?? false;
  const pairing = opts.pairing ?? "paired";
  const threshold = opts.cvThresholdPct ?? DEFAULT_CV_THRESHOLD_PCT;
  const confidence = opts.confidence ?? 0.95;
  const num = finite(numerator).filter(usable);
  const den = finite(denominator).filter(usable);
  const cvN = coefficientOfVariation(num);
  const cvD = coefficientOfVariation(den);
  const base = {
    cvNumeratorPct: cvN === null ? null : cvN * 100,
    cvDenominatorPct: cvD === null ? null : cvD * 100,
  };
  if (num.length === 0 || den.length === 0) {
    return { ratio: null, low: null, high: null, geomean: null, n: 0, df: null, verdict: "unknown", reason: "no-data", ...base };
  }
  const ratio = (invert ? median(den) / median(num) : median(num) / median(den)) * 100;
  const sign = invert ? -1 : 1;

  let n: number;
  let centre: number;
  let se: number;
  let df: number;
  if (pairing === "paired") {
    const d: number[] = [];
    const len = Math.min(numerator.length, denominator.length);
    for (let i = 0; i < len; i++) {
      const a = numerator[i];
      const b = denominator[i];
      if (usable(a) && usable(b)) d.push(sign * Math.log(a / b));
    }
    n = d.length;
    centre = n > 0 ? mean(d) : Number.NaN;
    se = n >= 2 ? stddev(d) / Math.sqrt(n) : Number.NaN;
    df = n - 1;
  } else {
    const la = num.map(Math.log);
    const lb = den.map(Math.log);
    n = Math.min(la.length, lb.length);
    centre = sign * (mean(la) - mean(lb));
    if (la.length >= 2 && lb.length >= 2) {
      const va = stddev(la) ** 2 / la.length;
      const vb = stddev(lb) ** 2 / lb.length;
      se = Math.sqrt(va + vb);
      // Welch–Satterthwaite; when both variances are 0 the interval is a point and df does not matter.
      df = va + vb === 0 ? la.length + lb.length - 2 : (va + vb) ** 2 / (va ** 2 / (la.length - 1) + vb ** 2 / (lb.length - 1));
    } else {
      se = Number.NaN;
      df = 0;
    }
  }
  const geomean = Number.isFinite(centre) ? Math.exp(centre) * 100 : null;
  if (n < 2 || !Number.isFinite(se)) {
    return { ratio, low: null, high: null, geomean, n, df: null, verdict: "unknown", reason: "too-few-repeats", ...base };
  }
  const t = tQuantile(1 - (1 - confidence) / 2, df);
  const low = Math.exp(centre - t * se) * 100;
  const high = Math.exp(centre + t * se) * 100;
  const noisy = (base.cvNumeratorPct ?? 0) > threshold || (base.cvDenominatorPct ?? 0) > threshold;
  const out: RatioEstimate = { ratio, low, high, geomean, n, df, verdict: "same", ...base };
  if (noisy) return { ...out, verdict: "unknown", reason: "noisy" };
  if (low > 100) out.verdict = "faster";
  else if (high < 100) out.verdict = "slower";
  return out;
}

/** The mark a text table shows for a verdict. */
export function verdictMark(v: Verdict): string {
  return v === "faster" ? "+" : v === "slower" ? "-" : v === "same" ? "~" : "?";
}
