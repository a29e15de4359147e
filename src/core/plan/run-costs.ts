/**
 * What a run under way measured of its own costs (pure): the gross seconds per measured cell, each warm-up and each
 * change of server instance, and the time model with them in place of the plan's.
 */
import type { CellRecord } from "../model/results.ts";
import { measureRecords } from "../stats/records.ts";
import { median } from "../base/distributions.ts";
import type { AdaptiveCosts } from "../stats/simulate-model.ts";

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
 * fewer than 2 records. Not the median gap between consecutive measured cells' starts: that gap
 * holds a warm-up in about half of them in a run with a fresh instance each round: 10.4 s for 7 s cells that took 7.25.
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
 * what three default runs on this project's VM measured (6.6 s for both servers, 3.24 s).
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
 * from measured cells alone each warm-up is counted inside the restart before it
 * and again on its own, and a live forecast then said "the budget stops this run in 1s" before a round that fitted.
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
