/**
 * Which cell runs next. The run asks its scheduler for one round of cells at a time and reports every measured
 * result back; when a round is done it asks again, with everything recorded so far. The static scheduler runs the
 * plan's cells once, in plan order (one round). An adaptive scheduler implements the same interface and, after each
 * round, returns the cells that need another repeat (e.g. while a cell's confidence interval is too wide), with
 * fresh repeat numbers and keys; it returns an empty round when it is satisfied.
 */
import type { Cell, CellRecord } from "../../core/model/results.ts";

export interface Scheduler {
  /**
   * The cells of the next round, in run order; empty when the run is done. `recorded` holds every measured
   * result of this run so far (resumed ones included), in the order they were recorded; `warmups` its warm-up
   * records (their times are part of the run's cost model).
   */
  nextRound(recorded: readonly CellRecord[], warmups?: readonly CellRecord[]): Cell[];
}

/** The plan's order, each cell once. */
export class StaticScheduler implements Scheduler {
  private done = false;
  constructor(private readonly cells: readonly Cell[]) {}
  nextRound(): Cell[] {
    if (this.done) return [];
    this.done = true;
    return [...this.cells];
  }
}
