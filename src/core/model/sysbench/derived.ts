/**
 * Figures computed from a result's intervals, kept apart from what sysbench printed.
 *
 * - tpsCv: coefficient of variation of the interval tps = population stddev / mean; null with fewer than two
 *   intervals or a mean of 0.
 * - stalls: intervals whose tps is under 10% of the median interval tps (0 without intervals, or when the
 *   median is 0).
 * - errorsTotal / reconnectsTotal: Σ rate × interval length, the length being the difference to the previous
 *   interval's `t` (the first interval starts at 0). Rates are printed with two decimals, so for intervals
 *   longer than 1 s these totals are estimates, not counts; the cumulative `ignoredErrors` / `reconnects` are
 *   the exact counts when the run finished.
 * For 0.5 logs the `legacyIntervals` are used; a 0.5 line without `errors:` / `reconnects:` counts as 0 there.
 */
import type { DerivedFigures, SysbenchResult } from "./result.ts";

interface Sample {
  t: number;
  tps: number;
  errorsPerSec: number | null;
  reconnectsPerSec: number | null;
}

export function median(xs: readonly number[]): number | null {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** Round away floating-point noise (0.1 + 0.2) without hiding real decimals. */
const clean = (x: number): number => Math.round(x * 1e6) / 1e6;

export function deriveFigures(result: SysbenchResult): DerivedFigures {
  const samples: Sample[] = result.intervals.length > 0 ? result.intervals : (result.legacyIntervals ?? []);
  const tps = samples.map((s) => s.tps);

  let tpsCv: number | null = null;
  if (tps.length >= 2) {
    const mean = tps.reduce((a, b) => a + b, 0) / tps.length;
    if (mean > 0) {
      const variance = tps.reduce((a, x) => a + (x - mean) ** 2, 0) / tps.length;
      tpsCv = Math.sqrt(variance) / mean;
    }
  }

  const med = median(tps);
  const stalls = med === null || med <= 0 ? 0 : tps.filter((x) => x < 0.1 * med).length;

  let errorsTotal = 0;
  let reconnectsTotal = 0;
  let prevT = 0;
  for (const s of samples) {
    const dt = Math.max(s.t - prevT, 0);
    errorsTotal += (s.errorsPerSec ?? 0) * dt;
    reconnectsTotal += (s.reconnectsPerSec ?? 0) * dt;
    prevT = s.t;
  }
  return { tpsCv, stalls, errorsTotal: clean(errorsTotal), reconnectsTotal: clean(reconnectsTotal) };
}
