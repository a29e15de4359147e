/**
 * The adaptive stop rule (pure): when a cell of an adaptive run is done. `adaptiveState` (src/core/plan/adaptive.ts)
 * replays it over a run's records; the coverage simulation (coverage.ts) and plan's prediction (simulate.ts) drive
 * this same function.
 */
import type { RoundCell } from "../events.ts";

/** One cell's state after some rounds: the event's fields plus the rounds it took part in. */
export interface AdaptiveCell extends RoundCell {
  rounds: number;
  /** The half-width the stop rule read (the split's first half: estimateRun), null until it has one. */
  stopHalfWidthPct?: number | null;
}

/** The settings the stop rule reads (AdaptiveSettings has them). */
export interface StopSettings {
  min: number;
  max: number;
  precisionPct: number;
}

/** What the stop rule reads of a cell's estimate after a round. */
export type StopEstimate = Pick<AdaptiveCell, "n" | "estimate" | "low" | "high" | "halfWidthPct" | "stopHalfWidthPct" | "pairs">;

/**
 * The stop rule, one cell after one round (mutates `c`): the estimate is taken; the cell is done at `max` rounds, or
 * on precision once it has had `min` rounds and its stop width (from the half of its units the printed interval
 * does not use: estimateRun's split) is within the target. The simulation of src/core/stats/coverage.ts drives this
 * same function.
 */
export function applyStopRule(c: AdaptiveCell, est: StopEstimate | undefined, ranThisRound: boolean, a: StopSettings): void {
  if (c.done) return;
  if (ranThisRound) c.rounds++;
  Object.assign(c, est);
  if (c.rounds >= a.max) c.done = "max";
  else if (c.rounds >= a.min && c.stopHalfWidthPct != null && c.stopHalfWidthPct <= a.precisionPct) c.done = "precision";
}

/** Mark every open cell as stopped by the budget. */
export function stopForBudget(state: readonly AdaptiveCell[]): AdaptiveCell[] {
  return state.map((c) => (c.done ? c : { ...c, done: "budget" }));
}

