/**
 * The forecast of an adaptive run (pure): ONE model for `plan`, the notice before a run, the plain round lines and
 * the TUI. It is the run's own stopping rule simulated (simulateAdaptive) with the plan's time model
 * (adaptiveCosts):
 *   - before the run, from the host's calibration (no calibration: no forecast, the run says so and forecasts after
 *     its first round);
 *   - after every round, continued from the run's own pairs: the pair sd pooled from them (with the calibration's,
 *     df-weighted, where there is one), each cell's sd drawn from its posterior, the observed seconds per cell.
 * The simulated runs never start a round that does not fit the budget, as the scheduler does not: so the time left
 * is never more than the budget left, and when the budget will stop the run the forecast says that.
 *
 * Every run keeps its forecasts in run.json (`forecast`), beside what happened (`timings.wall`):
 * forecastCoverage (forecast-replay.ts) says how often the real time fell inside the 80% range.
 */
import { ASSUMED_INSTANCE_SD_PCT } from "./calibration/prediction.ts";
import { cellPriorDf } from "./calibration/cell-model.ts";
import { costShapeOf } from "./calibration/costs.ts";
import { type Calibration } from "./calibration/schema.ts";
import { cellVariances, pairShareOf, runLevels } from "../stats/nested-sd.ts";
import type { PairObs } from "../stats/estimate.ts";
import type { CellRecord, Forecast } from "../model/results.ts";
import { measureRecords } from "../stats/records.ts";
import { metricValue } from "../stats/metric.ts";
import {
  adaptiveRepeats,
  parseDuration,
  parsePercent,
  plannedInstances,
  type Scenario,
} from "../model/scenario/schema.ts";
import { primaryPair } from "../model/scenario/pairs.ts";
import { adaptiveCosts, predictPrecision } from "./precision.ts";
import { PACE_SD_PCT, simulateAdaptive } from "../stats/simulate.ts";
import { type AdaptiveCosts, type AdaptiveSimResult } from "../stats/simulate-model.ts";
import { runningCosts } from "./run-costs.ts";

/** What a run without a calibration says instead of a forecast before its first round. */
export const NO_CALIBRATION = "no calibration for this host: forecast after the first round";

/** The numerator and denominator of the run's ratio: the primary pair (src/core/model/scenario/pairs.ts). */
function ratioServers(s: Scenario): [string, string] | null {
  return primaryPair(s);
}

/** A new instance every this many rounds (Infinity: one instance), as cells.ts instanceOf lays it out. */
export function roundsPerInstance(s: Scenario): number {
  const a = adaptiveRepeats(s.workload);
  const n = plannedInstances(s.workload);
  return a && n > 1 ? Math.ceil(a.min / n) : Number.POSITIVE_INFINITY;
}

const layoutInstance = (rpi: number, repeat: number) =>
  Number.isFinite(rpi) ? Math.floor((repeat - 1) / Math.max(1, rpi)) : 0;

/**
 * The run's log pair ratios per cell (tests × threads, in scenario order), each with its instance in the run's
 * layout (from its repeat, so a resumed run's renumbered instances do not matter).
 */
export function runPairs(s: Scenario, records: readonly CellRecord[]): PairObs[][] {
  const pair = ratioServers(s);
  const cells = s.workload.tests.flatMap((test) => s.workload.threads.map((threads) => ({ test, threads })));
  if (!pair) return cells.map(() => []);
  const value = (r: CellRecord | undefined) => {
    const v =
      r && r.status === "ok" && r.metrics && r.metrics.status !== "failed" ? metricValue(r.metrics, "qps") : null;
    return typeof v === "number" && Number.isFinite(v) && v > 0 ? v : null;
  };
  const measured = measureRecords(records).filter((r) => r.repeat >= 1);
  const key = (r: Pick<CellRecord, "test" | "threads" | "repeat">) => `${r.test}|${r.threads}|${r.repeat}`;
  const dens = new Map(measured.filter((r) => r.server === pair[1]).map((r) => [key(r), r]));
  const rpi = roundsPerInstance(s);
  return cells.map((c) =>
    measured
      .filter((a) => a.server === pair[0] && a.test === c.test && a.threads === c.threads)
      .sort((a, b) => a.repeat - b.repeat)
      .flatMap((a) => {
        const va = value(a);
        const vb = value(dens.get(key(a)));
        return va === null || vb === null ? [] : [{ d: Math.log(va / vb), instance: layoutInstance(rpi, a.repeat) }];
      }),
  );
}

function fromSim(
  s: Scenario,
  sim: AdaptiveSimResult,
  o: {
    stage: Forecast["stage"];
    round: number;
    at: string;
    source: Forecast["source"];
    pairSdPct: number;
    instanceSdPct: number;
    elapsedSeconds: number;
    cellPriorDf: number;
  },
): Forecast {
  const a = adaptiveRepeats(s.workload)!;
  const budget = s.workload.budget === undefined ? undefined : parseDuration(s.workload.budget);
  const cells = s.workload.tests.length * s.workload.threads.length;
  const budgetLeft = budget === undefined ? Number.POSITIVE_INFINITY : Math.max(0, budget - o.elapsedSeconds);
  const round1 = (x: number) => Math.round(x * 10) / 10;
  return {
    stage: o.stage,
    round: o.round,
    at: o.at,
    source: o.source,
    pairSdPct: round1(o.pairSdPct),
    instanceSdPct: round1(o.instanceSdPct),
    // JSON has no Infinity: equal cells are recorded as null.
    cellPriorDf: Number.isFinite(o.cellPriorDf) ? round1(o.cellPriorDf) : null,
    elapsedSeconds: Math.round(o.elapsedSeconds),
    totalSeconds: {
      median: Math.round(sim.seconds.median),
      low: Math.round(sim.seconds.low),
      high: Math.round(sim.seconds.high),
    },
    remainingSeconds: Math.round(Math.min(budgetLeft, Math.max(0, sim.seconds.median - o.elapsedSeconds))),
    budgetSeconds: budget ?? null,
    budgetShare: round1(sim.budgetShare * 100) / 100,
    budgetStops: sim.budgetShare >= 0.5,
    precisionPct: parsePercent(a.precision) ?? Number.NaN,
    cells,
    cellsLikely: Math.round(sim.reachedShare * cells),
    measuredCells: Math.round(sim.measuredCells),
  };
}

/** The forecast before an adaptive run, from the host's calibration; null without one (or with fewer than 2 servers). */
export function forecastBefore(
  s: Scenario,
  cal: Calibration | null,
  at: string,
  o: { runs?: number } = {},
): Forecast | null {
  if (!cal || !adaptiveRepeats(s.workload)) return null;
  const p = predictPrecision(s, cal, { runs: o.runs });
  if (!p?.simulated) return null;
  return fromSim(s, p.simulated, {
    stage: "before",
    round: 0,
    at,
    source: "calibration",
    pairSdPct: p.pairSdPct,
    instanceSdPct: p.instanceSdPct,
    elapsedSeconds: 0,
    cellPriorDf: p.simulated.cellPriorDf,
  });
}

/** What the forecast after a round starts from. */
export interface RoundForecastInput {
  scenario: Scenario;
  records: readonly CellRecord[];
  /** The rounds finished, and which cells stopped (in cell order: tests × threads). */
  round: number;
  done: ReadonlyArray<"precision" | "max" | "budget" | null | undefined>;
  elapsedSeconds: number;
  at: string;
  calibration: Calibration | null;
  /** The time model (default: adaptiveCosts with the calibration); `cellSeconds` replaces its cell cost. */
  costs?: AdaptiveCosts;
  /** Gross seconds per measured cell as observed (else the time model's). */
  cellSeconds?: number | null;
  runs?: number;
  /** The model's settings, for replays that compare it with another (replayForecasts in forecast-replay.ts); default: as shipped. */
  model?: ForecastModel;
}

/** What a forecast's model may be told instead of its shipped settings. */
export interface ForecastModel {
  /** The prior df of the cells' pair sds (default: learned, {@link cellPriorDf}). */
  cellPriorDf?: number;
  /** The pace sd (default PACE_SD_PCT). */
  paceSdPct?: number;
}

/** The forecast after a round: the rest of the run simulated from its own pairs (and the calibration where there is one). */
export function forecastAfterRound(i: RoundForecastInput): Forecast | null {
  const s = i.scenario;
  const a = adaptiveRepeats(s.workload);
  if (!a || s.servers.length !== 2) return null;
  const pairs = runPairs(s, i.records);
  const own = runLevels(pairs.map((p) => groupByInstance(p)));
  const cal = i.calibration;
  const calInst = cal?.instanceSdPct == null ? null : (cal.instanceSdPct / 100) ** 2;
  // The pair level: the run's pooled spread (its pair share when only the sum of both levels is known), df-weighted with the calibration's.
  const ownS2 = own
    ? own.levels === "total"
      ? pairShareOf((own.pairSdPct / 100) ** 2, calInst)
      : (own.pairSdPct / 100) ** 2
    : null;
  const calS2 = cal ? (cal.pairSdPct / 100) ** 2 : null;
  const pooledS2 =
    own && ownS2 !== null && calS2 !== null
      ? (own.pairDf * ownS2 + cal!.pairDf * calS2) / (own.pairDf + cal!.pairDf)
      : (ownS2 ?? calS2);
  if (pooledS2 === null) return null; // no pair df of its own yet and no calibration: nothing to forecast from
  const source: Forecast["source"] =
    ownS2 !== null && calS2 !== null ? "calibration+run" : ownS2 !== null ? "run" : "calibration";
  const pairSdPct = Math.sqrt(pooledS2) * 100;
  const pairSdDf = (ownS2 !== null ? own!.pairDf : 0) + (calS2 !== null ? cal!.pairDf : 0);
  // The instance level: the calibration's, else the run's own; a run that knows only the sum has it in the pair level.
  const instanceSdPct =
    cal?.instanceSdPct ??
    (own?.levels === "nested" && own.instanceSdPct !== null
      ? own.instanceSdPct
      : own?.levels === "total"
        ? 0
        : ASSUMED_INSTANCE_SD_PCT);
  const costs = runningCosts(
    i.costs ??
      adaptiveCosts(s, { secondsPerPair: cal?.secondsPerPair, calCellSeconds: cal?.cellSeconds, measured: cal }),
    i.records,
    i.cellSeconds,
  );
  const rpi = roundsPerInstance(s);
  const budget = s.workload.budget === undefined ? undefined : parseDuration(s.workload.budget);
  // How unequal the cells are: the recorded runs' cells with this run's own so far.
  const learned = cellPriorDf(cal, cellVariances(pairs.map((p) => p.map((x) => x.d))), costShapeOf(s));
  const prior = i.model?.cellPriorDf === undefined ? learned : { ...learned, d0: i.model.cellPriorDf };
  const sim = simulateAdaptive({
    cellTests: s.workload.tests.flatMap((_, t) => s.workload.threads.map(() => t)),
    servers: s.servers.length,
    min: a.min,
    max: a.max,
    precisionPct: parsePercent(a.precision) ?? Number.NaN,
    roundsPerInstance: rpi,
    pairSdPct,
    instanceSdPct,
    cellPriorDf: prior.d0,
    paceSdPct: i.model?.paceSdPct ?? PACE_SD_PCT,
    pairSdDf: pairSdDf > 0 ? pairSdDf : undefined,
    budgetSeconds: budget,
    costs,
    runs: i.runs,
    start: {
      round: i.round,
      elapsedSeconds: i.elapsedSeconds,
      pairs,
      done: i.done.map((d) => d ?? null),
      instance: i.round > 0 ? layoutInstance(rpi, i.round) : -1,
    },
  });
  return fromSim(s, sim, {
    stage: "round",
    round: i.round,
    at: i.at,
    source,
    pairSdPct,
    instanceSdPct,
    elapsedSeconds: i.elapsedSeconds,
    cellPriorDf: prior.d0,
  });
}

function groupByInstance(p: readonly PairObs[]): number[][] {
  const g = new Map<number, number[]>();
  for (const x of p) g.set(x.instance ?? 0, [...(g.get(x.instance ?? 0) ?? []), x.d]);
  return [...g.values()];
}
