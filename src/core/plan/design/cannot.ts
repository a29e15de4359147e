/**
 * Why cells cannot reach the design's margin (pure): the reasons the design carries, one sentence each, which its
 * printout lists.
 */
import { type DesignCandidate, type DesignInput, type Design } from "./types.ts";
import { DEFAULT_MARGIN_PCT } from "../../model/scenario/schema.ts";
import { predictHalfWidthPct } from "../../stats/half-width.ts";
import { formatSeconds } from "../../base/units.ts";
import { loadBoundWarnings } from "../loadbound.ts";
import { containerCores } from "../../measure/cellstate.ts";

/** A half-width as "±x.x%" ("±∞" when there is no interval). */
export const pct = (x: number) => (Number.isFinite(x) ? `±${x.toFixed(1)}%` : "±∞");

/** Rounds at the chosen length and layout whose expected half-width reaches `target` (Infinity: none up to 400). */
function roundsFor(target: number, c: DesignCandidate, instanceSdPct: number, cells: number): number {
  for (let r = 2; r <= 400; r++) {
    const inst = Math.max(1, Math.ceil(r / c.roundsPerInstance));
    if (predictHalfWidthPct({ pairSdPct: c.pairSdPct, instanceSdPct, pairs: r, instances: inst, cells }) <= target)
      return r;
  }
  return Number.POSITIVE_INFINITY;
}

export function cannotReach(d: Design, i: DesignInput, ctx: { instanceSdPct: number }): string[] {
  const out: string[] = [];
  const m = DEFAULT_MARGIN_PCT;
  const c = d.chosen;
  if (!Number.isFinite(c.halfWidthPct)) {
    out.push(`no layout fits: not even 2 rounds of ${c.cellSeconds} s cells fit in ${formatSeconds(d.budgetSeconds)}`);
    return out;
  }
  const need = roundsFor(m, c, ctx.instanceSdPct, d.cells);
  if (c.halfWidthPct > m) {
    const more = Number.isFinite(need)
      ? `±${m}% needs about ${need} rounds (${Math.round(need / c.roundsPerInstance)} instances), roughly ${formatSeconds(c.seconds * (need / c.rounds))} at this layout`
      : `±${m}% is out of reach at this noise`;
    out.push(
      `no cell is expected within ±${m}%: at pair sd ${c.pairSdPct.toFixed(1)}% (${c.cellSeconds} s cells) and instance sd ${ctx.instanceSdPct.toFixed(1)}%, ` +
        `${formatSeconds(d.budgetSeconds)} buys ${c.rounds} rounds (expected ±${c.halfWidthPct.toFixed(1)}%); ${more}`,
    );
  }
  const wider = d.cells - d.cellsWithinMargin;
  if (d.cellForecast && c.halfWidthPct <= m) {
    // Cells forecast one by one: name those whose median forecast is wider than the margin, with their record.
    for (const f of d.cellForecast) {
      const hw = f.halfWidthPct;
      if (!hw || hw.median <= m) continue;
      const past = f.runs
        ? `its pair sd was ${f.pastSdPct.map((x) => `${x.toFixed(1)}%`).join(", ")} in the last ${f.runs === 1 ? "run" : `${f.runs} runs`} on this data`
        : "never run here: forecast as this data's typical cell";
      out.push(`${f.cell}: expected ${pct(hw.median)} (80%: ${pct(hw.low)}–${pct(hw.high)}): ${past}`);
    }
    const named = d.cellForecast.filter((f) => f.halfWidthPct && f.halfWidthPct.median > m).length;
    const unseen = d.cellForecast.filter((f) => f.runs === 0).length;
    const cm = d.cellModel;
    const why = [
      cm ? `a cell's noise changes between runs here (sd of ln pair sd ${cm.betweenRunsLogSd.toFixed(2)})` : "",
      unseen && cm
        ? `the ${unseen} cells not run here before are forecast as this data's typical cell, and cells here differ (sd ${cm.betweenCellsLogSd.toFixed(2)} between cells)`
        : "",
    ].filter(Boolean);
    if (wider > named)
      out.push(
        `about ${wider - named} more of ${d.cells} cells may end wider than ±${m}% (simulated): ${why.join("; ")}`,
      );
  } else if (wider > 0 && c.halfWidthPct <= m)
    out.push(
      `about ${wider} of ${d.cells} cells are expected wider than ±${m}% (simulated): the cells noisier than this host's typical pair sd; ` +
        "which cells they are is not known before the run: the calibration has one pair sd for the host",
    );
  for (const w of loadBoundWarnings(i.scenario)) {
    const load = i.scenario.resources.load;
    const cores =
      load.cpuset === undefined && load.cpus === undefined
        ? null
        : containerCores(load.cpuset, load.cpus, Number.POSITIVE_INFINITY);
    const at = cores === null ? [] : i.scenario.workload.threads.filter((t) => t > cores);
    out.push(`${at.length ? `cells at ${at.join(", ")} threads` : "some cells"} may get no verdict (load-bound): ${w}`);
  }
  return out;
}
