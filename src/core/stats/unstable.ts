/**
 * Why a cell is unstable: the notes of its repeats (a stalled per-second series, a repeat disturbed by outside work,
 * ignored errors or reconnects, a write cell not in a steady state) and of its outlier pairs.
 */
import type { CellRecord } from "../model/results.ts";
import { testWrites } from "../model/scenario/legacy.ts";
import { errorMarks } from "../measure/cellstate.ts";
import { STEADY_THRESHOLD_PCT_PER_10S, notSteady, steadySlope } from "../measure/levers.ts";

/**
 * The steady-state check of a write cell: "not steady: q/s slope +4.1% per 10 s [1.2, 7.0]" when the slope of its
 * per-second q/s (after workload.trim) is steeper than STEADY_THRESHOLD_PCT_PER_10S with an interval excluding 0.
 */
export function unsteadyNote(r: CellRecord): string | null {
  const trim = r.trimmed?.seconds ?? 0;
  const s = steadySlope((r.metrics?.intervals ?? []).filter((x) => x.t > trim).map((x) => x.qps));
  if (!s || !notSteady(s)) return null;
  const f = (x: number) => `${x >= 0 ? "+" : ""}${x.toFixed(1)}`;
  return `not steady: q/s slope ${f(s.pctPer10s)}% per 10 s [${f(s.low)}, ${f(s.high)}] (threshold ±${STEADY_THRESHOLD_PCT_PER_10S}%)`;
}

/** Seconds of a record's per-second series with no throughput at all (the server stalled). */
export function stalledSeconds(r: CellRecord): number {
  return (r.metrics?.intervals ?? []).filter((s) => s.qps === 0 && s.tps === 0).length;
}

/** The notes of a cell's repeats on both sides (`side` names each side's server). */
export function unstableNotes(
  test: string,
  sides: ReadonlyArray<readonly [string, readonly CellRecord[]]>,
  keepDisturbed = false,
): string[] {
  const unstable: string[] = [];
  for (const [side, rs] of sides) {
    for (const r of rs) {
      const z = stalledSeconds(r);
      if (r.status === "ok" && z > 0)
        unstable.push(`${side} repeat ${r.repeat} stalled: ${z} second${z === 1 ? "" : "s"} with no throughput`);
      if (r.status === "ok" && r.interference?.disturbed)
        // Its last attempt disturbed: the pair is left out of the estimate (usablePairs), its records stay.
        unstable.push(
          `${side} repeat ${r.repeat} disturbed, ${keepDisturbed ? "counted" : "left out"}: ${r.interference.reasons.join("; ")}`,
        );
      // Ignored errors and reconnects: the repeat's q/s counts failed work or waits for a connection.
      const marks = r.status === "ok" ? errorMarks(r.metrics) : [];
      if (marks.length) unstable.push(`${side} repeat ${r.repeat} had ${marks.join(" and ")}`);
      const steady = r.status === "ok" && testWrites(test) ? unsteadyNote(r) : null;
      if (steady) unstable.push(`${side} repeat ${r.repeat} ${steady}`);
    }
  }
  return unstable;
}

/** The note of an outlier pair: its repeat and its ratio (d is the pair's log ratio). */
export function outlierNote(repeat: number, d: number): string {
  return `repeat ${repeat} is an outlier pair (ratio ${(Math.exp(d) * 100).toFixed(1)})`;
}
