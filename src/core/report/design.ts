/**
 * The budget design as the lines `plan --budget` (and `run --budget --design`) print (pure).
 */
import { formatSeconds } from "../base/units.ts";
import { MIN_UNITS_FOR_PRECISION_STOP } from "../stats/estimate.ts";
import { pct } from "../plan/design/cannot.ts";
import { priorText } from "../plan/precision.ts";
import { type Design } from "../plan/design/types.ts";
import { DEFAULT_MARGIN_PCT } from "../model/scenario/schema.ts";
import { formatBudget } from "../plan/design/scenario.ts";

/** The design as `plan --budget` (and `run --budget --design`) prints it. */
export function designLines(d: Design): string[] {
  const c = d.chosen;
  const sim = d.simulated;
  const out = [
    "",
    `Design for a budget of ${formatSeconds(d.budgetSeconds)}${d.hosts > 1 ? ` on ${d.hosts} hosts (sharded)` : ""} (docs/stats.md "Budget-first design"):`,
  ];
  out.push(
    `  noise: pair sd from ${d.noise.note}; instance sd ${d.noise.instanceSdPct.toFixed(1)}%${d.source === "assumed" ? " (assumed: no calibration)" : d.noise.instanceNote ? ` (${d.noise.instanceNote})` : ""}`,
  );
  out.push(
    `  design: ${c.cellSeconds} s cells, ${c.warmupSeconds} s warm-up, ${d.mode === "adaptive" ? `adaptive (min ${MIN_UNITS_FOR_PRECISION_STOP}, stop at ±${d.precisionPct}%, the budget spends the rest on the cells still open: the widest), about ` : ""}` +
      `${c.rounds} rounds on ${c.instances} server instance${c.instances === 1 ? "" : "s"} (${c.roundsPerInstance === 1 ? "a fresh instance every round" : `a new instance every ${c.roundsPerInstance} rounds`})`,
  );
  out.push(
    `  order: tests ${d.tests.join(", ")}${d.restoresSaved > 0 ? ` (write tests first: the first after each restart uses its fresh data; ${d.restoresSaved} restores saved, ${d.restores} left)` : d.restores ? ` (${d.restores} restores)` : ""}`,
  );
  out.push("  why this cell length (the narrowest layout that fits at each; expected half-width, closed formula):");
  for (const x of d.byLength)
    out.push(
      `    ${String(x.cellSeconds).padStart(3)} s: pair sd ${x.pairSdPct.toFixed(1)}%, ${x.rounds} rounds on ${x.instances} instances, ${pct(x.halfWidthPct)}, ${formatSeconds(x.seconds)}${x === c ? "  <- chosen" : ""}`,
    );
  out.push("  time per phase (the plan's model):");
  for (const p of d.phases) out.push(`    ${p.label}: ${formatSeconds(p.seconds)}`);
  out.push(`    total: ${formatSeconds(d.plannedSeconds)} of ${formatSeconds(d.budgetSeconds)}`);
  const hw = sim.halfWidthPct;
  if (d.cellForecast && d.cellModel) {
    const cm = d.cellModel;
    out.push(
      `  each cell from its own earlier runs on this data (${cm.runs} runs at ${cm.cellSeconds} s cells${cm.cellSeconds === c.cellSeconds ? "" : `, moved to ${c.cellSeconds} s by the pair-sd curve`}; ` +
        `ln pair sd differs by sd ${cm.betweenCellsLogSd.toFixed(2)} between cells and ${cm.betweenRunsLogSd.toFixed(2)} between runs of one cell), simulated half-width, median (80% range):`,
    );
    for (const f of d.cellForecast) {
      const x = f.halfWidthPct;
      const past = f.runs
        ? `pair sd before ${f.pastSdPct.map((v) => `${v.toFixed(1)}%`).join(", ")}`
        : "not run here before: the typical cell";
      out.push(`    ${f.cell}: ${x ? `${pct(x.median)} (${pct(x.low)}–${pct(x.high)})` : "no interval"}; ${past}`);
    }
    out.push(
      `  all cells: simulated ${hw ? `${pct(hw.median)} (80% of cells ${pct(hw.low)}–${pct(hw.high)})` : "no interval"}, expected ${pct(c.halfWidthPct)} at the host's pair sd; ` +
        `coverage of the 95% intervals ${(sim.coverage * 100).toFixed(1)}% (${sim.runs} simulated runs, shipped estimator and stop rule)`,
    );
  } else
    out.push(
      `  every cell (one pair sd for the host): expected ${pct(c.halfWidthPct)}; simulated ${hw ? `${pct(hw.median)} (80% of cells ${pct(hw.low)}–${pct(hw.high)})` : "no interval"}, ` +
        `coverage of the 95% intervals ${(sim.coverage * 100).toFixed(1)}% (${sim.runs} simulated runs, shipped estimator and stop rule, how unequal the cells are: ${priorText(d.noise.cellPrior)})`,
    );
  out.push(
    `  simulated wall time (one host): ${formatSeconds(sim.seconds.median)} (80%: ${formatSeconds(sim.seconds.low)}–${formatSeconds(sim.seconds.high)}), ${sim.rounds.median} rounds; cells expected within ±${DEFAULT_MARGIN_PCT}%: ${d.cellsWithinMargin} of ${d.cells}`,
  );
  out.push(
    `  hosts: ${d.hostsForecast.map((h) => `${h.hosts} host${h.hosts === 1 ? "" : "s"}: this design ${formatSeconds(h.seconds)}; the budget buys ${h.rounds} rounds, ${pct(h.halfWidthPct)}`).join("; ")}`,
  );
  if (d.cannot.length) {
    out.push(`  cells that cannot reach ±${DEFAULT_MARGIN_PCT}%, and why:`);
    for (const l of d.cannot) out.push(`    - ${l}`);
  } else out.push(`  every cell is expected within ±${DEFAULT_MARGIN_PCT}%`);
  out.push(
    `  run it: twinbench run FILE --budget ${formatBudget(d.budgetSeconds)}${d.precisionPct !== null ? ` --precision ${d.precisionPct}%` : ""} --design (or --set ${d.overrides.map((o) => `'${o}'`).join(" --set ")})`,
  );
  return out;
}
