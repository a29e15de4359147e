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
 * {@link forecastCoverage} says how often the real time fell inside the 80% range.
 */
import {
  ASSUMED_INSTANCE_SD_PCT,
  cellPriorDf,
  cellVariances,
  costShapeOf,
  pairShareOf,
  runLevels,
  type Calibration,
} from "./calibration.ts";
import type { PairObs } from "../stats/estimate.ts";
import type { RunEvent } from "../model/events.ts";
import type { CellRecord, Forecast, RunManifest } from "../model/results.ts";
import { measureRecords, metricValue } from "../stats/ratio.ts";
import { median } from "../base/distributions.ts";
import {
  adaptiveRepeats,
  parseDuration,
  parsePercent,
  plannedInstances,
  type Scenario,
} from "../model/scenario/schema.ts";
import { formatSeconds } from "../base/units.ts";
import { primaryPair } from "../model/scenario/pairs.ts";
import { adaptiveCosts, predictPrecision } from "./precision.ts";
import { PACE_SD_PCT, simulateAdaptive, type AdaptiveCosts, type AdaptiveSimResult } from "../stats/simulate.ts";

export type { Forecast } from "../model/results.ts";

/** What a run without a calibration says instead of a forecast before its first round. */
export const NO_CALIBRATION = "no calibration for this host: forecast after the first round";

/** The numerator and denominator of the run's ratio: the primary pair (src/core/model/scenario/pairs.ts). */
function ratioServers(s: Scenario): [string, string] | null {
  return primaryPair(s);
}

/** A new instance every this many rounds (Infinity: one instance), as plan.ts instanceOf lays it out. */
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

/** The run's warm-up and measured records (every attempt) with valid times, in the order they started. */
function timeline(records: readonly CellRecord[]): CellRecord[] {
  return records
    .filter(
      (r) =>
        (r.phase === "warmup" || r.phase === "measure") &&
        Number.isFinite(Date.parse(r.startedAt)) &&
        Number.isFinite(Date.parse(r.endedAt)),
    )
    .slice()
    .sort((a, b) => Date.parse(a.startedAt) - Date.parse(b.startedAt));
}

/**
 * Gross wall seconds of one measured cell as the run goes: each measured attempt's start to the next record's start,
 * whatever its phase (so a warm-up or a restart after it is not counted in: the time model has those apart), the
 * median of those, times the attempts per kept cell (a disturbed pair's re-run costs its cells again). Null with
 * fewer than 2 records. Until 2026-12-03 it was the median gap between consecutive measured cells' starts, which
 * held a warm-up in about half of them in a run with a fresh instance each round: 10.4 s for 7 s cells that took 7.25.
 */
export function grossCellSeconds(records: readonly CellRecord[]): number | null {
  const rs = timeline(records);
  const gross: number[] = [];
  for (let i = 0; i + 1 < rs.length; i++) {
    if (rs[i]!.phase !== "measure") continue;
    const g = (Date.parse(rs[i + 1]!.startedAt) - Date.parse(rs[i]!.startedAt)) / 1000;
    if (g > 0) gross.push(g);
  }
  if (!gross.length) return null;
  const attempts = rs.filter((r) => r.phase === "measure").length;
  const kept = measureRecords(records).length;
  return median(gross) * (kept > 0 ? Math.max(1, attempts / kept) : 1);
}

/**
 * What the run's records say of its other costs so far (null where none was seen yet): each warm-up, gross (its
 * length plus the gap to the next record), and each change of server instance (the gap between a round's last
 * measured cell and the next record, where the next measured cell is on a new instance: restore, start and
 * prewarm of every server). The plan's assumed costs (6 s a server a restart, warm-up plus 1 s) ran 1.8× and 1.2×
 * what three default runs here measured on 2026-12-03 (6.6 s for both servers, 3.24 s).
 */
export function observedCosts(records: readonly CellRecord[]): {
  warmupSeconds: number | null;
  restartSeconds: number | null;
} {
  const rs = timeline(records);
  const warm: number[] = [];
  const restart: number[] = [];
  // The next measured record after each index, found in one pass from the end.
  const nextMeasure: Array<CellRecord | undefined> = new Array(rs.length);
  for (let i = rs.length - 1, seen: CellRecord | undefined; i >= 0; i--) {
    nextMeasure[i] = seen;
    if (rs[i]!.phase === "measure") seen = rs[i];
  }
  for (let i = 0; i + 1 < rs.length; i++) {
    const a = rs[i]!;
    const b = rs[i + 1]!;
    const gap = Math.max(0, (Date.parse(b.startedAt) - Date.parse(a.endedAt)) / 1000);
    if (a.phase === "warmup") warm.push((Date.parse(a.endedAt) - Date.parse(a.startedAt)) / 1000 + gap);
    else {
      const next = nextMeasure[i];
      if (next && next.repeat > a.repeat && a.repeat >= 1 && (next.instance ?? 0) !== (a.instance ?? 0))
        restart.push(gap);
    }
  }
  return { warmupSeconds: warm.length ? median(warm) : null, restartSeconds: restart.length ? median(restart) : null };
}

/**
 * The time model of a run under way: `base` (the plan's, or the calibration's measured costs) with what the run
 * measured so far in its place: seconds per cell (`cellSeconds`, else the base's), each warm-up and each change of
 * instance ({@link observedCosts}). The forecast and the scheduler's "does the next round fit" both use it, so the
 * forecast never says the budget stops a run that then runs another round. `records` must hold the warm-ups too:
 * until 2026-12-04 the scheduler saw only measured cells, so each warm-up was counted inside the restart before it
 * and again on its own, and a live forecast said "the budget stops this run in 1s" before a round that fitted.
 */
export function runningCosts(
  base: AdaptiveCosts,
  records: readonly CellRecord[],
  cellSeconds?: number | null,
): AdaptiveCosts {
  const costs = { ...base };
  if (cellSeconds && cellSeconds > 0) costs.cellSeconds = cellSeconds;
  const seen = observedCosts(records);
  if (seen.warmupSeconds !== null && costs.warmupSeconds > 0) costs.warmupSeconds = seen.warmupSeconds;
  if (seen.restartSeconds !== null) costs.restartSeconds = seen.restartSeconds;
  return costs;
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
  /** The model's settings, for replays that compare it with another ({@link replayForecasts}); default: as shipped. */
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

/**
 * The forecast as one line: "forecast: about 6m 10s left (80%: 4m 02s–9m 30s); cells likely to reach ±10%: 6 of 6",
 * or, when the budget will stop the run first, "forecast: the budget stops this run in 9m 00s; cells likely to
 * reach ±10%: 4 of 6". Before the run it gives the whole run's time.
 */
export function forecastLine(f: Forecast): string {
  const likely = `cells likely to reach ±${f.precisionPct}%: ${f.cellsLikely} of ${f.cells}`;
  const from =
    f.source === "calibration"
      ? "host calibration"
      : f.source === "run"
        ? "this run's pairs"
        : "this run's pairs and the host calibration";
  if (f.budgetStops)
    return `forecast: the budget stops this run in ${formatSeconds(f.remainingSeconds)}; ${likely} (${from})`;
  const left = (x: number) => formatSeconds(Math.max(0, x - f.elapsedSeconds));
  const range = `80%: ${left(f.totalSeconds.low)}–${left(Math.min(f.totalSeconds.high, f.budgetSeconds ?? Number.POSITIVE_INFINITY))}`;
  const what =
    f.stage === "before"
      ? `about ${formatSeconds(f.remainingSeconds)} in all`
      : `about ${formatSeconds(f.remainingSeconds)} left`;
  return `forecast: ${what} (${range}); ${likely}${f.budgetShare > 0 ? `; the budget may stop it (${Math.round(f.budgetShare * 100)}% of simulated runs)` : ""} (${from})`;
}

/** The line that says a run's pairs went into the host's calibration. */
export function calibrationUpdatedLine(e: Extract<RunEvent, { type: "calibration-updated" }>): string {
  const inst = e.instanceSdPct === null ? "" : `, instance sd ${e.instanceSdPct.toFixed(1)}%`;
  return `calibration: ${e.made ? "made this host's first calibration" : "folded into this host's calibration"} from the run's ${e.pairs} pairs: pair sd ${e.pairSdPct.toFixed(1)}% (df ${Math.round(e.pairDf)})${inst} (${e.file})`;
}

/** How often the real wall time fell inside a stage's 80% range, over recorded runs. */
export interface CoverageRow {
  /** "before", or "round N" (the forecast after round N). */
  stage: string;
  runs: number;
  inside: number;
  /** inside / runs (null with no runs). */
  share: number | null;
}

/**
 * Over recorded runs (their run.json): for the forecast before the run and the one after each of the first
 * `rounds` rounds, how many runs ended inside its 80% range (timings.wall against totalSeconds.low..high).
 * Only runs that finished (ok or partial) with a wall time count.
 */
export function forecastCoverage(
  manifests: ReadonlyArray<Pick<RunManifest, "forecast" | "timings" | "status">>,
  rounds = 3,
): CoverageRow[] {
  const stages = ["before", ...Array.from({ length: rounds }, (_, k) => `round ${k + 1}`)];
  return stages.map((stage) => {
    let runs = 0;
    let inside = 0;
    for (const m of manifests) {
      const wall = m.timings?.wall;
      if (!(m.status === "ok" || m.status === "partial") || typeof wall !== "number") continue;
      const f = m.forecast?.forecasts.find((x) =>
        stage === "before" ? x.stage === "before" : x.stage === "round" && `round ${x.round}` === stage,
      );
      if (!f) continue;
      runs++;
      if (wall >= f.totalSeconds.low && wall <= f.totalSeconds.high) inside++;
    }
    return { stage, runs, inside, share: runs ? inside / runs : null };
  });
}

/** One replayed forecast: the recorded run's state after a round, forecast again by a given model. */
export interface ReplayedForecast {
  round: number;
  wall: number;
  forecast: Forecast;
  inside: boolean;
}

/**
 * The forecasts after rounds 1..`rounds` of a recorded run, made again from what the run had seen by then (its
 * records that had ended when the recorded forecast was made, and its elapsed time) with `model`, without the host's
 * calibration (the replay cannot know the one the run had): so two models can be compared on the same runs. A cell
 * counts as stopped at round k when it has no measured record of round k + 1. Only runs that finished with a wall
 * time and recorded those forecasts are replayed.
 */
export function replayForecasts(
  m: Pick<RunManifest, "scenario" | "forecast" | "timings" | "status">,
  records: readonly CellRecord[],
  o: { model?: ForecastModel; rounds?: number; runs?: number } = {},
): ReplayedForecast[] {
  const wall = m.timings?.wall;
  if (!(m.status === "ok" || m.status === "partial") || typeof wall !== "number") return [];
  const s = m.scenario;
  const cells = s.workload.tests.flatMap((test) => s.workload.threads.map((threads) => ({ test, threads })));
  const measured = measureRecords(records);
  const out: ReplayedForecast[] = [];
  for (const f of m.forecast?.forecasts ?? []) {
    if (f.stage !== "round" || f.round > (o.rounds ?? 3)) continue;
    const seen = records.filter((r) => Date.parse(r.endedAt) <= Date.parse(f.at));
    const done = cells.map((c) =>
      measured.some((r) => r.test === c.test && r.threads === c.threads && r.repeat === f.round + 1)
        ? null
        : ("precision" as const),
    );
    const again = forecastAfterRound({
      scenario: s,
      records: seen,
      round: f.round,
      done,
      elapsedSeconds: f.elapsedSeconds,
      at: f.at,
      calibration: null,
      cellSeconds: grossCellSeconds(seen),
      runs: o.runs,
      model: o.model,
    });
    if (again)
      out.push({
        round: f.round,
        wall,
        forecast: again,
        inside: wall >= again.totalSeconds.low && wall <= again.totalSeconds.high,
      });
  }
  return out;
}
