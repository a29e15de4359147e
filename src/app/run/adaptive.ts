/**
 * The adaptive scheduler: rounds over the open cells until each one's interval reaches the precision target, its
 * `max`, or the budget (src/core/plan/adaptive.ts decides; this class adds the clock, the events and run.json).
 * After every round it emits `round-finished` and writes the cells' state and stop reasons to run.json. The budget
 * counts this invocation's wall time from the start of the run (a resumed run gets the budget again).
 */
import {
  adaptiveEta,
  adaptiveSettings,
  nextAdaptiveRound,
  resumeInstanceOffset,
  roundFits,
  stopForBudget,
  type AdaptiveCell,
  type AdaptiveSettings,
} from "../../core/plan/adaptive.ts";
import { parseDuration } from "../../core/scenario/schema.ts";
import { DEFAULT_SETUP_COSTS } from "../../core/plan/plan.ts";
import type { Cell, CellRecord } from "../../core/results.ts";
import type { RunContext } from "./context.ts";
import type { ResultsSession } from "./session.ts";
import type { Scheduler } from "./scheduler.ts";

export class AdaptiveScheduler implements Scheduler {
  private readonly settings: AdaptiveSettings;
  private issued: number | undefined;
  private offset: number | undefined;
  private lastInstance: number | undefined;
  /** Wall seconds and measured cells of the rounds run in this process: the observed cost of a cell. */
  private spent = { seconds: 0, cells: 0 };
  private roundStart = 0;
  private roundCells = 0;
  private stopped = false;

  constructor(
    private readonly ctx: RunContext,
    private readonly session: ResultsSession,
  ) {
    this.settings = adaptiveSettings(ctx.scenario)!;
  }

  nextRound(recorded: readonly CellRecord[]): Cell[] {
    if (this.stopped) return [];
    const now = Date.now();
    if (this.issued !== undefined) {
      this.spent.seconds += (now - this.roundStart) / 1000;
      this.spent.cells += this.roundCells;
    }
    const { ctx, settings } = this;
    const step = nextAdaptiveRound(ctx.scenario, recorded, this.issued, this.offset ?? 0);
    if (this.offset === undefined && step.round > 0) {
      this.offset = resumeInstanceOffset(ctx.scenario, recorded, step.round);
      step.cells = step.cells.map((c) => (c.instance === undefined ? c : { ...c, instance: c.instance + this.offset! }));
    }
    let state = step.state;
    let cells = step.cells;
    const budgetLeft = settings.budgetSeconds === undefined ? null : settings.budgetSeconds - (now - ctx.wallStart) / 1000;
    const perCell = this.secondsPerCell();
    if (cells.length && budgetLeft !== null) {
      const restart = cells[0].instance !== undefined && cells[0].instance !== this.lastInstance && this.lastInstance !== undefined;
      const n = ctx.scenario.servers.length;
      const restartSeconds = restart ? n * DEFAULT_SETUP_COSTS.instanceRestartSeconds : 0;
      // Teardown must fit too.
      if (!roundFits({ budgetLeftSeconds: budgetLeft - n * DEFAULT_SETUP_COSTS.teardownSeconds, cells: cells.length, secondsPerCell: perCell, restartSeconds })) {
        ctx.warn(`budget: round ${step.round} (${cells.length} cells, about ${Math.round(cells.length * perCell + restartSeconds)} s) would not fit in the ${Math.max(0, Math.round(budgetLeft))} s left; stopping`);
        state = stopForBudget(state);
        cells = [];
      }
    }
    if (step.finished > 0 || state.some((c) => c.done)) this.report(step.finished, state, budgetLeft, perCell, recorded);
    if (!cells.length) {
      this.stopped = true;
      return [];
    }
    this.issued = step.round;
    this.lastInstance = cells[cells.length - 1].instance;
    this.roundStart = Date.now();
    this.roundCells = cells.length;
    return cells;
  }

  /** Seconds per measured cell: observed in this process, else the cell length plus the plan's start-up cost. */
  private secondsPerCell(): number {
    if (this.spent.cells > 0) return this.spent.seconds / this.spent.cells;
    const w = this.ctx.scenario.workload;
    const est = this.ctx.plan.estimate;
    const duration = w.duration === undefined ? 0 : (parseDuration(w.duration) ?? 0);
    return est.measureSeconds > 0 && this.ctx.plan.cells.length ? (est.measureSeconds + est.warmupSeconds) / this.ctx.plan.cells.length + 1 : duration + 1;
  }

  /** The round-finished event and run.json's adaptive section. */
  private report(round: number, state: AdaptiveCell[], budgetLeft: number | null, perCell: number, recorded: readonly CellRecord[]): void {
    const { ctx, session, settings } = this;
    const cells = state.map(({ rounds: _rounds, ...c }) => c); // the event carries RoundCell only
    const instance = Math.max(0, ...recorded.filter((r) => r.repeat === round).map((r) => r.instance ?? 0));
    const eta = adaptiveEta(state, settings, ctx.scenario.servers.length, perCell);
    ctx.emit({ type: "round-finished", at: ctx.at(), round, instance, cells, etaSeconds: eta === null ? null : Math.round(eta), budgetLeftSeconds: budgetLeft === null ? null : Math.max(0, Math.round(budgetLeft)) });
    session.manifest.adaptive = { ...settings, rounds: round, cells: state };
  }
}
