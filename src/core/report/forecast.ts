/**
 * The forecast and the calibration update as the lines a run prints (pure).
 */
import type { Forecast } from "../model/results.ts";
import { formatSeconds } from "../base/units.ts";
import type { RunEvent } from "../model/events.ts";

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
