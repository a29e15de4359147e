/**
 * The adaptive scheduler: rounds over the open cells until each one's interval reaches the precision target, its
 * `max`, or the budget (src/core/plan/adaptive.ts decides; this class adds the clock, the events and run.json).
 * After every round it emits `round-finished` and the forecast for the rest of the run (src/core/plan/forecast.ts:
 * the same model and costs as its budget rule, so the time left is never more than the budget left), and writes
 * the cells' state, stop reasons and forecasts to run.json. The budget counts this invocation's wall time from the
 * start of the run (a resumed run gets the budget again).
 */
import {
  adaptiveEta,
  adaptiveSettings,
  nextAdaptiveRound,
  resumeInstanceOffset,
  roundFits,
} from "../../core/plan/adaptive.ts";
import { stopForBudget, type AdaptiveCell } from "../../core/stats/stop.ts";
import { parseDuration, reportMarginPct } from "../../core/model/scenario/schema.ts";
import { adaptiveCosts } from "../../core/plan/precision.ts";
import { forecastAfterRound, roundsPerInstance } from "../../core/plan/forecast.ts";
import { grossCellSeconds, runningCosts } from "../../core/plan/run-costs.ts";
import type { AdaptiveCosts } from "../../core/stats/simulate-model.ts";
import type { Calibration } from "../../core/plan/calibration/schema.ts";
import type { AdaptiveSettings, Cell, CellRecord } from "../../core/model/results.ts";
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

  private readonly costs: AdaptiveCosts;

  constructor(
    private readonly ctx: RunContext,
    private readonly session: ResultsSession,
    private readonly calibration: Calibration | null = null,
  ) {
    this.settings = adaptiveSettings(ctx.scenario)!;
    this.costs = adaptiveCosts(ctx.scenario, {
      secondsPerPair: calibration?.secondsPerPair,
      calCellSeconds: calibration?.cellSeconds,
      measured: calibration,
    });
  }

  nextRound(recorded: readonly CellRecord[], warmups: readonly CellRecord[] = []): Cell[] {
    if (this.stopped) return [];
    const now = this.ctx.clock();
    if (this.issued !== undefined) {
      this.spent.seconds += (now - this.roundStart) / 1000;
      this.spent.cells += this.roundCells;
    } else if (!this.ctx.opts.resume) {
      // The set-up this run took, image builds left out (they happen once): the next run's forecast starts from it.
      (this.session.manifest.forecast ??= { forecasts: [] }).setupSeconds = Math.round(
        (now - this.ctx.wallStart) / 1000 - (this.ctx.timings.images ?? 0),
      );
    }
    const { ctx, settings } = this;
    const step = nextAdaptiveRound(ctx.scenario, recorded, this.issued, this.offset ?? 0);
    if (this.offset === undefined && step.round > 0) {
      this.offset = resumeInstanceOffset(ctx.scenario, recorded, step.round);
      step.cells = step.cells.map((c) =>
        c.instance === undefined ? c : { ...c, instance: c.instance + this.offset! },
      );
    }
    let state = step.state;
    let cells = step.cells;
    const budgetLeft =
      settings.budgetSeconds === undefined ? null : settings.budgetSeconds - (now - ctx.wallStart) / 1000;
    // Measured and warm-up records in one timeline: the cost model times the gaps between them.
    const timeline = warmups.length ? [...recorded, ...warmups] : recorded;
    const perCell = this.secondsPerCell(timeline);
    const costs = runningCosts(this.costs, timeline, perCell);
    if (cells.length && budgetLeft !== null) {
      const restart =
        cells[0].instance !== undefined && cells[0].instance !== this.lastInstance && this.lastInstance !== undefined;
      const n = ctx.scenario.servers.length;
      // A new instance: its restart and a warm-up of every test with an open cell, on every server (the forecast's costs).
      const tests = new Set(cells.map((c) => c.test)).size;
      const restartSeconds = restart ? costs.restartSeconds + tests * n * costs.warmupSeconds : 0;
      // Teardown must fit too.
      if (
        !roundFits({
          budgetLeftSeconds: budgetLeft - costs.teardownSeconds,
          cells: cells.length,
          secondsPerCell: perCell,
          restartSeconds,
        })
      ) {
        ctx.warn(
          `budget: round ${step.round} (${cells.length} cells, about ${Math.round(cells.length * perCell + restartSeconds)} s) would not fit in the ${Math.max(0, Math.round(budgetLeft))} s left; stopping`,
        );
        state = stopForBudget(state);
        cells = [];
      }
    }
    if (step.finished > 0 || state.some((c) => c.done))
      this.report(step.finished, state, budgetLeft, perCell, costs, recorded, timeline);
    if (!cells.length) {
      this.stopped = true;
      return [];
    }
    this.issued = step.round;
    this.lastInstance = cells[cells.length - 1].instance;
    this.roundStart = this.ctx.clock();
    this.roundCells = cells.length;
    return cells;
  }

  /**
   * Seconds per measured cell: the median gap between measured cells' starts as recorded (restarts and warm-ups
   * are counted apart), else observed in this process, else the cell length plus the plan's start-up cost.
   */
  private secondsPerCell(recorded: readonly CellRecord[]): number {
    const gross = grossCellSeconds(recorded);
    if (gross !== null) return gross;
    if (this.spent.cells > 0) return this.spent.seconds / this.spent.cells;
    const w = this.ctx.scenario.workload;
    const est = this.ctx.plan.estimate;
    const duration = w.duration === undefined ? 0 : (parseDuration(w.duration) ?? 0);
    return est.measureSeconds > 0 && this.ctx.plan.cells.length
      ? (est.measureSeconds + est.warmupSeconds) / this.ctx.plan.cells.length + 1
      : duration + 1;
  }

  /** The round-finished event and run.json's adaptive section. */
  private report(
    round: number,
    state: AdaptiveCell[],
    budgetLeft: number | null,
    perCell: number,
    costs: AdaptiveCosts,
    recorded: readonly CellRecord[],
    timeline: readonly CellRecord[],
  ): void {
    const { ctx, session, settings } = this;
    const cells = state.map(({ rounds: _rounds, ...c }) => c); // the event carries RoundCell only
    const instance = Math.max(0, ...recorded.filter((r) => r.repeat === round).map((r) => r.instance ?? 0));
    const elapsedSeconds = (ctx.clock() - ctx.wallStart) / 1000;
    const forecast = forecastAfterRound({
      scenario: ctx.scenario,
      records: timeline,
      round,
      done: state.map((c) => c.done),
      elapsedSeconds,
      at: ctx.at(),
      calibration: this.calibration,
      costs: this.costs,
      cellSeconds: perCell,
    });
    // Without a forecast (not two servers, no pairs yet): the width-based estimate on the forecast's time model
    // (cells, and each new instance's restart and warm-ups), within the budget left; a lower bound before any pairs.
    const n = ctx.scenario.servers.length;
    const rpi = Math.max(1, roundsPerInstance(ctx.scenario));
    const roundExtra = (costs.restartSeconds + ctx.scenario.workload.tests.length * n * costs.warmupSeconds) / rpi;
    const fallback = forecast ? null : adaptiveEta(state, settings, n, perCell, roundExtra);
    const eta = forecast
      ? forecast.remainingSeconds
      : fallback === null
        ? null
        : Math.min(fallback.seconds, budgetLeft ?? Number.POSITIVE_INFINITY);
    const etaMinimum =
      !forecast &&
      fallback !== null &&
      fallback.minimum &&
      fallback.seconds <= (budgetLeft ?? Number.POSITIVE_INFINITY);
    ctx.emit({
      type: "round-finished",
      at: ctx.at(),
      round,
      instance,
      cells,
      etaSeconds: eta === null ? null : Math.round(Math.max(0, eta)),
      ...(etaMinimum ? { etaMinimum } : {}),
      budgetLeftSeconds: budgetLeft === null ? null : Math.max(0, Math.round(budgetLeft)),
      marginPct: reportMarginPct(ctx.scenario),
      precisionPct: settings.precisionPct,
    });
    if (forecast && !state.every((c) => c.done)) {
      (session.manifest.forecast ??= { forecasts: [] }).forecasts.push(forecast);
      ctx.emit({ type: "forecast", at: ctx.at(), forecast });
    }
    session.manifest.adaptive = { ...settings, rounds: round, cells: state };
  }
}
