/**
 * Special functions for the variance prior's degrees of freedom: ψ, ψ' and ψ'' (from @stdlib) and the inverse of ψ'.
 */
import stdlibDigamma from "@stdlib/math-base-special-digamma";
import polygamma from "@stdlib/math-base-special-polygamma";
import stdlibTrigamma from "@stdlib/math-base-special-trigamma";

/** ψ(x), the digamma function, for x > 0. */
export const digamma = (x: number): number => stdlibDigamma(x);

/** ψ'(x), the trigamma function, for x > 0. */
export const trigamma = (x: number): number => stdlibTrigamma(x);

/** ψ''(x), for x > 0. */
const tetragamma = (x: number): number => polygamma(2, x);

/** The x with trigamma(x) = y (limma's Newton iteration). */
export function trigammaInverse(y: number): number {
  if (!(y > 0)) return Number.NaN;
  if (y > 1e7) return 1 / Math.sqrt(y);
  if (y < 1e-6) return 1 / y;
  let x = 0.5 + 1 / y;
  for (let i = 0; i < 50; i++) {
    const tri = trigamma(x);
    const dif = (tri * (1 - tri / y)) / tetragamma(x);
    x += dif;
    if (-dif / x < 1e-8) break;
  }
  return x;
}
