/**
 * The precision plan (pure): what plan assumes without a calibration, and the cheapest pairs per cell and server
 * instances whose predicted half-width reaches a target.
 */
import { predictHalfWidthPct } from "../../stats/half-width.ts";

/** What plan assumes without a calibration: the pair sd measured here in A/A runs (notes §2: 10–13% per pair). */
export const ASSUMED_PAIR_SD_PCT = 11;

/** ... and the instance level: notes §2b found it about as large as half the pair level (up to ~9% per cell). */
export const ASSUMED_INSTANCE_SD_PCT = 5;

/** One candidate of the precision plan: pairs per cell and instances, its half-width and its time. */
export interface PrecisionOption {
  pairs: number;
  /** Server instances the pairs of a cell are spread over. */
  instances: number;
  halfWidthPct: number;
  seconds: number;
  /** The `workload.instances` setting that gives this layout in an adaptive run (see `layoutFor`), when searched so. */
  setting?: number;
}

/**
 * The cheapest (pairs per cell, instances) whose predicted half-width reaches `precisionPct`, searching pairs from
 * `minPairs` to `maxPairs` and instances from `minInstances` (default 1) to `maxInstances` (default 6), at least
 * one pair per instance. `cost(pairs, instances)` gives the wall seconds. `reached` is false (with the best
 * width found) when nothing reaches the target, or nothing within `budgetSeconds`.
 */
export function planPrecision(o: {
  precisionPct: number;
  pairSdPct: number;
  instanceSdPct: number | null;
  cells: number;
  minPairs: number;
  maxPairs: number;
  minInstances?: number;
  maxInstances?: number;
  budgetSeconds?: number;
  cost: (pairs: number, instances: number) => number;
  /**
   * The instances an adaptive run reaches after `pairs` rounds with `workload.instances: setting` (a new instance
   * every ceil(min / setting) rounds). When given, the search runs over the settings minInstances..maxInstances
   * and this layout, instead of over free (pairs, instances) combinations.
   */
  layoutFor?: (pairs: number, setting: number) => number;
}): { best: PrecisionOption | null; reached: boolean; overBudget: boolean; narrowest: PrecisionOption | null } {
  let best: PrecisionOption | null = null;
  let narrowest: PrecisionOption | null = null;
  let overBudget = false;
  for (let setting = Math.max(1, o.minInstances ?? 1); setting <= (o.maxInstances ?? 6); setting++)
    for (let pairs = Math.max(2, o.minPairs, o.layoutFor ? 0 : setting); pairs <= o.maxPairs; pairs++) {
      const inst = o.layoutFor ? o.layoutFor(pairs, setting) : setting;
      const h = predictHalfWidthPct({
        pairSdPct: o.pairSdPct,
        instanceSdPct: o.instanceSdPct,
        pairs,
        instances: inst,
        cells: o.cells,
      });
      const seconds = o.cost(pairs, inst);
      const opt: PrecisionOption = {
        pairs,
        instances: inst,
        halfWidthPct: h,
        seconds,
        ...(o.layoutFor ? { setting } : {}),
      };
      const fits = o.budgetSeconds === undefined || seconds <= o.budgetSeconds;
      if (fits && (!narrowest || h < narrowest.halfWidthPct)) narrowest = opt;
      if (h > o.precisionPct) continue;
      if (!fits) {
        overBudget = true;
        continue;
      }
      if (!best || seconds < best.seconds) best = opt;
    }
  return { best, reached: best !== null, overBudget: best === null && overBudget, narrowest };
}
