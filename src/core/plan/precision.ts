/**
 * What `plan --precision` predicts (pure): the pairs per cell and server instances that reach the target
 * half-width with the host's calibration (or the notes' assumption without one), the cell length they assume, and
 * the time that costs by the plan's time model (with calibrate's measured seconds per pair when there are some).
 */
import {
  ASSUMED_INSTANCE_SD_PCT,
  ASSUMED_PAIR_SD_PCT,
  planPrecision,
  type PrecisionOption,
} from "./calibration/prediction.ts";
import { cellPriorDf, type CellPriorDf } from "./calibration/cell-model.ts";
import { costShapeOf, sameCostShape } from "./calibration/costs.ts";
import { type Calibration } from "./calibration/schema.ts";
import {
  adaptiveRepeats,
  parseDuration,
  parsePercent,
  plannedInstances,
  type Scenario,
} from "../model/scenario/schema.ts";
import { planRun } from "./plan.ts";
import { sizedSeconds } from "./estimate.ts";
import { formatSeconds } from "../base/units.ts";
import { DEFAULT_SETUP_COSTS, type SetupCosts } from "../model/setup-costs.ts";
import { PACE_SD_PCT, simulateAdaptive } from "../stats/simulate.ts";
import { type AdaptiveCosts, type AdaptiveSimResult } from "../stats/simulate-model.ts";

/** The prediction of `plan --precision`. */
export interface PrecisionPrediction {
  precisionPct: number;
  cellSeconds: number;
  /** "calibration" (the host's file) or "assumed" (ASSUMED_PAIR_SD_PCT, ASSUMED_INSTANCE_SD_PCT). */
  source: "calibration" | "assumed";
  pairSdPct: number;
  instanceSdPct: number;
  budgetSeconds: number | null;
  /** Server instances the run would use as the scenario stands (workload.instances, else 2 for an adaptive run). */
  instances: number;
  /** The adaptive minimum of rounds. */
  minPairs: number;
  /** The cheapest layout that reaches the target within the budget; null when none does. */
  best: PrecisionOption | null;
  /** The narrowest layout within the budget (when the target is not reached). */
  narrowest: PrecisionOption | null;
  overBudget: boolean;
  /**
   * The run as it will go: its own stopping rule simulated at this noise with cells as unequal as measured
   * (src/core/stats/simulate.ts); the time `plan` predicts. Null with fewer than two servers.
   */
  simulated: (AdaptiveSimResult & { cellPriorDf: number; cellPrior: CellPriorDf; cellsTotal?: number }) | null;
}

/**
 * The time model of an adaptive (or fixed) run of `s`, from the plan's per-phase costs: the set-up and teardown of
 * a one-round plan, each measured cell (its length plus sysbench start-up; with calibrate's `secondsPerPair` at
 * `calCellSeconds`, the start-up it measured), each new instance's restart, each warm-up.
 */
export function adaptiveCosts(
  s: Scenario,
  o: {
    setupCosts?: Partial<SetupCosts>;
    secondsPerPair?: number | null;
    calCellSeconds?: number;
    measured?: Pick<Calibration, "setupSeconds" | "teardownSeconds" | "restartSecondsPerServer" | "costShape"> | null;
  } = {},
): AdaptiveCosts {
  const costs = { ...DEFAULT_SETUP_COSTS, ...o.setupCosts };
  // Set-up and restarts grow with the data: a run's measured costs stand in for the plan's only on data of its shape.
  const same = o.measured && sameCostShape(o.measured.costShape, costShapeOf(s)) ? o.measured : null;
  const rows = s.workload.tables * s.workload.tableSize;
  const w = s.workload;
  const n = s.servers.length;
  // One round with the run's instance count planned (so the post-prepare snapshot is in), all on instance 0.
  const one = planRun(
    { ...s, workload: { ...w, repeats: 1, instances: plannedInstances(w) } },
    { setupCosts: o.setupCosts },
  );
  const e = one.estimate;
  const cells = one.cells.length;
  const teardownSeconds = n * costs.teardownSeconds;
  const measured = cells ? e.measureSeconds / cells : 0;
  let overhead = costs.cellOverheadSeconds;
  const cellLength = parseDuration(w.duration ?? 0) ?? 0;
  if (o.secondsPerPair && n === 2 && cellLength > 0)
    overhead = Math.max(0, o.secondsPerPair / 2 - (o.calCellSeconds ?? cellLength));
  const warm = parseDuration(w.warmup) ?? 0;
  const setupSeconds =
    e.totalSeconds -
    e.measureSeconds -
    e.warmupSeconds -
    (cells + one.warmups.length) * costs.cellOverheadSeconds -
    teardownSeconds;
  // A run here measured its set-up (without image builds: those happen once), teardown and instance restarts: those replace the plan's.
  const measuredSetup = same?.setupSeconds;
  const measuredTeardown = same?.teardownSeconds;
  return {
    setupSeconds: measuredSetup !== undefined && measuredSetup > 0 ? measuredSetup : Math.max(0, setupSeconds),
    teardownSeconds: measuredTeardown !== undefined && measuredTeardown > 0 ? measuredTeardown : teardownSeconds,
    cellSeconds: measured + overhead,
    restartSeconds:
      n *
      (same?.restartSecondsPerServer !== undefined && same.restartSecondsPerServer > 0
        ? same.restartSecondsPerServer
        : sizedSeconds(costs.instanceRestartSeconds, costs.instanceRestartSecondsPerMillionRows, rows)),
    warmupSeconds: warm > 0 ? warm + overhead : 0,
  };
}

/** The wall seconds of a run of `s` with `pairs` rounds on `instances` server instances (every test warmed on each). */
export function runSeconds(
  s: Scenario,
  pairs: number,
  instances: number,
  o: { setupCosts?: Partial<SetupCosts>; secondsPerPair?: number | null; calCellSeconds?: number } = {},
): number {
  return secondsOf(s, adaptiveCosts(s, o), pairs, instances);
}

/** runSeconds with the costs already worked out (the layout search calls it for every candidate). */
function secondsOf(s: Scenario, c: AdaptiveCosts, pairs: number, instances: number): number {
  const n = s.servers.length;
  const cells = s.workload.tests.length * s.workload.threads.length;
  return (
    c.setupSeconds +
    pairs * cells * n * c.cellSeconds +
    Math.max(0, instances - 1) * c.restartSeconds +
    Math.max(1, instances) * s.workload.tests.length * n * c.warmupSeconds +
    c.teardownSeconds
  );
}

/** The prediction for an adaptive scenario (null when it has no precision target). */
export function predictPrecision(
  s: Scenario,
  cal: Calibration | null,
  o: { setupCosts?: Partial<SetupCosts>; runs?: number } = {},
): PrecisionPrediction | null {
  const adaptive = adaptiveRepeats(s.workload);
  if (!adaptive) return null;
  const precisionPct = parsePercent(adaptive.precision) ?? Number.NaN;
  const pairSdPct = cal?.pairSdPct ?? ASSUMED_PAIR_SD_PCT;
  const instanceSdPct = cal ? (cal.instanceSdPct ?? 0) : ASSUMED_INSTANCE_SD_PCT;
  const budget = s.workload.budget === undefined ? undefined : parseDuration(s.workload.budget);
  const cells = s.workload.tests.length * s.workload.threads.length;
  const fixed = s.workload.instances;
  // The time model once: the layout search and the simulation both use it.
  const costs = adaptiveCosts(s, {
    setupCosts: o.setupCosts,
    secondsPerPair: cal?.secondsPerPair,
    calCellSeconds: cal?.cellSeconds,
    measured: cal,
  });
  const r = planPrecision({
    precisionPct,
    pairSdPct,
    instanceSdPct,
    cells,
    minPairs: adaptive.min,
    maxPairs: adaptive.max,
    // The run's own layout: a new instance every ceil(min / instances) rounds (src/core/plan/adaptive.ts), so
    // the prediction is for what `run` will do; other settings are searched for a suggestion.
    minInstances: fixed ?? 1,
    maxInstances: fixed ?? adaptive.min,
    layoutFor: (pairs, setting) => Math.ceil(pairs / Math.ceil(adaptive.min / setting)),
    budgetSeconds: budget,
    cost: (pairs, inst) => secondsOf(s, costs, pairs, inst),
  });
  const tests = s.workload.tests;
  const prior = cellPriorDf(cal, [], costShapeOf(s));
  const simulated =
    s.servers.length === 2
      ? {
          ...simulateAdaptive({
            cellTests: tests.flatMap((_, i) => s.workload.threads.map(() => i)),
            servers: s.servers.length,
            min: adaptive.min,
            max: adaptive.max,
            precisionPct,
            roundsPerInstance:
              plannedInstances(s.workload) > 1
                ? Math.ceil(adaptive.min / plannedInstances(s.workload))
                : Number.POSITIVE_INFINITY,
            pairSdPct,
            instanceSdPct,
            cellPriorDf: prior.d0,
            paceSdPct: PACE_SD_PCT,
            budgetSeconds: budget,
            costs,
            runs: o.runs,
          }),
          cellPriorDf: prior.d0,
          cellPrior: prior,
          cellsTotal: cells,
        }
      : null;
  return {
    simulated,
    precisionPct,
    cellSeconds: parseDuration(s.workload.duration ?? 0) ?? 0,
    source: cal ? "calibration" : "assumed",
    pairSdPct,
    instanceSdPct,
    budgetSeconds: budget ?? null,
    instances: plannedInstances(s.workload),
    minPairs: adaptive.min,
    best: r.best,
    narrowest: r.narrowest,
    overBudget: r.overBudget,
  };
}

const layout = (x: PrecisionOption) =>
  `${x.pairs} pairs per cell over ${x.instances} server instance${x.instances === 1 ? "" : "s"}: expected ±${x.halfWidthPct.toFixed(1)}%, about ${formatSeconds(x.seconds)}`;

/** The prediction as `plan` prints it. */
export function precisionLines(p: PrecisionPrediction, cal: Calibration | null, hostKey?: string): string[] {
  const out = ["", `Precision ±${p.precisionPct}% (95% intervals, half-width as adaptive runs measure it):`];
  if (cal)
    out.push(
      `  host calibration ${cal.hostKey} (${cal.measuredAt.slice(0, 10)}, updated by ${cal.updates} run${cal.updates === 1 ? "" : "s"}): pair sd ${p.pairSdPct.toFixed(1)}% (df ${Math.round(cal.pairDf)}), ` +
        `instance sd ${p.instanceSdPct.toFixed(1)}%${cal.instanceSdPct === null ? " (not measured)" : ""}${cal.secondsPerPair ? `, ${cal.secondsPerPair.toFixed(1)} s per pair measured` : ""}`,
    );
  else
    out.push(
      `  no calibration for this host${hostKey ? ` (${hostKey})` : ""}: assumed pair sd ${p.pairSdPct}% and instance sd ${p.instanceSdPct}% (A/A runs on this project's 2-vCPU VM); ` +
        "`twinbench calibrate` measures this host's",
    );
  if (cal && cal.cellSeconds > 0 && p.cellSeconds > 0 && cal.cellSeconds !== p.cellSeconds)
    out.push(
      `  note: the calibration's pairs ran ${cal.cellSeconds} s cells, this scenario ${p.cellSeconds} s; one server's drift does not average out over longer cells, so the pair sd may not shrink`,
    );
  if (p.best) {
    out.push(
      `  cell length ${p.cellSeconds} s, ${layout(p.best)}${p.budgetSeconds === null ? "" : ` (budget ${formatSeconds(p.budgetSeconds)})`}`,
    );
    if (p.best.setting !== undefined && p.best.setting !== p.instances)
      out.push(
        `  set workload.instances: ${p.best.setting} for this (a new instance every ${Math.ceil(p.minPairs / p.best.setting)} rounds; the scenario as it stands uses ${p.instances})`,
      );
  } else if (p.overBudget)
    out.push(
      `  ±${p.precisionPct}% cannot be reached within the budget ${formatSeconds(p.budgetSeconds ?? 0)}${p.narrowest ? `; the narrowest within it: ${layout(p.narrowest)}` : ""}`,
    );
  else
    out.push(
      `  ±${p.precisionPct}% cannot be reached with the scenario's maximum pairs per cell${p.narrowest ? `; the narrowest${p.budgetSeconds === null ? "" : " within the budget"}: ${layout(p.narrowest)}` : ""}`,
    );
  const sim = expectedRunLine(p);
  if (sim)
    out.push(
      `  ${sim}`,
      `    (the run's own stopping rule simulated ${p.simulated!.runs} times at this noise, with cells as unequal as ${priorText(p.simulated!.cellPrior)}; the layout above assumes equal cells)`,
    );
  const iv = p.simulated?.intervals;
  if (iv && iv.coverage !== null && iv.falseVerdicts !== null)
    out.push(
      `  expected of the printed 95% intervals (A/A, the same ${p.simulated!.runs} simulated runs, ${iv.cells} intervals): coverage ${(100 * iv.coverage).toFixed(1)}%, false faster/slower ${(100 * iv.falseVerdicts).toFixed(1)}% per cell`,
    );
  return out;
}

/** How unequal the simulated cells are, in words: "the last 3 runs here had (prior df 9.4)". */
export function priorText(p: CellPriorDf): string {
  const d0 = Number.isFinite(p.d0) ? p.d0.toFixed(1) : "∞";
  return p.source === "recorded"
    ? `the ${p.runs} recorded run${p.runs === 1 ? "" : "s"} on data of this shape here had (${p.cells} cells): prior df ${d0}`
    : `assumed (no recorded run on data of this shape here: rows per server and storage): prior df ${d0}, fitted on this project's VM`;
}

/**
 * The forecast before a run as `plan` (and the run's notice) says it, from the same simulation as the run's own
 * forecasts (src/core/plan/forecast.ts): "expected run: about 8m 10s (80% of runs 6m 02s–11m 30s), 5 rounds (90%:
 * ≤ 9); cells likely to reach ±10%: 5 of 6", and "the budget stops it (83% of runs)" when the budget will stop the
 * run first. Null without a simulation.
 */
export function expectedRunLine(p: PrecisionPrediction): string | null {
  const sim = p.simulated;
  if (!sim) return null;
  const pct = (x: number) => `${Math.round(x * 100)}%`;
  const cells = sim.cellsTotal ?? 0;
  const likely = `cells likely to reach ±${p.precisionPct}%: ${Math.round(sim.reachedShare * cells)} of ${cells}`;
  const budget =
    sim.budgetShare >= 0.5
      ? `, the budget stops it (${pct(sim.budgetShare)} of runs)`
      : sim.budgetShare > 0
        ? `; the budget stops ${pct(sim.budgetShare)} of runs`
        : "";
  return `expected run: about ${formatSeconds(sim.seconds.median)} (80% of runs ${formatSeconds(sim.seconds.low)}–${formatSeconds(sim.seconds.high)})${budget}, ${sim.rounds.median} rounds (90%: ≤ ${sim.rounds.high}); ${likely}`;
}
