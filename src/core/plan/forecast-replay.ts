/**
 * How the forecasts held (pure): over recorded runs, how often the real wall time fell inside each stage's 80% range,
 * and a recorded run's forecasts made again by another model.
 */
import type { RunManifest, Forecast, CellRecord } from "../model/results.ts";
import { type ForecastModel, forecastAfterRound } from "./forecast.ts";
import { measureRecords } from "../stats/records.ts";
import { grossCellSeconds } from "./run-costs.ts";

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
