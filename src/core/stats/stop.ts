/**
 * The adaptive stop rule (pure): when a cell of an adaptive run is done. `adaptiveState` (src/core/plan/adaptive.ts)
 * replays it over a run's records; the coverage simulation (coverage.ts) and plan's prediction (simulate.ts) drive
 * this same function.
 */
import type { RoundCell } from "../model/events.ts";

/** One cell's state after some rounds: the event's fields plus the rounds it took part in. */
export interface AdaptiveCell extends RoundCell {
  rounds: number;
  /** The half-width the stop rule read (estimateRun's two stages: the printed one), null until it has one. */
  stopHalfWidthPct?: number | null;
}

/** A cell's state before its first round. */
export function openAdaptiveCell(test: string, threads: number): AdaptiveCell {
  return { test, threads, n: 0, estimate: null, low: null, high: null, halfWidthPct: null, rounds: 0 };
}

/** The settings the stop rule reads (AdaptiveSettings has them). */
export interface StopSettings {
  min: number;
  max: number;
  precisionPct: number;
  /** The printed interval's half-width must also be within this × precisionPct for a precision stop (default
   *  {@link PRINTED_WIDTH_FACTOR}: Infinity, the stop width alone decides; a finite factor is for the simulation). */
  printedFactor?: number;
}

/**
 * How wide the printed interval may be at a precision stop, in multiples of the target: Infinity, the stop width alone
 * decides. Since the stop width and the printed interval read one variance (estimateRun's two stages, Stein's
 * procedure), a precision stop prints the width it stopped at, so no gate is needed; a finite factor is for the
 * simulation. A gate on the split-half rule this replaced was simulated (docs/stats.md, "A gate on the printed
 * width"): it selected on the printed half's variance and the cells that stop first then covered 89.5–92.3%.
 * {@link printedWiderThanTarget} still labels a precision stop printed wider than its target (the records of a run
 * made with the split-half rule).
 */
export const PRINTED_WIDTH_FACTOR = Number.POSITIVE_INFINITY;

/** What the stop rule reads of a cell's estimate after a round. */
export type StopEstimate = Pick<
  AdaptiveCell,
  "n" | "estimate" | "low" | "high" | "halfWidthPct" | "stopHalfWidthPct" | "pairs"
>;

/**
 * The stop rule, one cell after one round (mutates `c`): the estimate is taken; the cell is done at `max` rounds, or
 * on precision once it has had `min` rounds, its stop width (estimateRun's two stages: the width it will print) is
 * within the target, and its printed half-width is within `printedFactor` × the target. The simulation of src/core/stats/coverage.ts drives this same function.
 */
export function applyStopRule(
  c: AdaptiveCell,
  est: StopEstimate | undefined,
  ranThisRound: boolean,
  a: StopSettings,
): void {
  if (c.done) return;
  if (ranThisRound) c.rounds++;
  Object.assign(c, est);
  if (c.rounds >= a.max) c.done = "max";
  else if (
    c.rounds >= a.min &&
    c.stopHalfWidthPct != null &&
    c.stopHalfWidthPct <= a.precisionPct &&
    printedWithin(c.halfWidthPct, a)
  )
    c.done = "precision";
}

function printedWithin(hw: number | null | undefined, a: StopSettings): boolean {
  const k = a.printedFactor ?? PRINTED_WIDTH_FACTOR;
  if (k === Number.POSITIVE_INFINITY) return true;
  return hw != null && hw <= k * a.precisionPct;
}

/**
 * Did a cell that stopped on precision print an interval wider than the target? It can when the printed half may
 * exceed the target (printedFactor above 1) or when the stop rule of an older run read the stop half alone: the
 * report then says its interval was wider than the target, never that the target was reached.
 */
export function printedWiderThanTarget(c: Pick<AdaptiveCell, "done" | "halfWidthPct">, precisionPct: number): boolean {
  return c.done === "precision" && (c.halfWidthPct === null || c.halfWidthPct > precisionPct);
}

/** Mark every open cell as stopped by the budget. */
export function stopForBudget(state: readonly AdaptiveCell[]): AdaptiveCell[] {
  return state.map((c) => (c.done ? c : { ...c, done: "budget" }));
}
