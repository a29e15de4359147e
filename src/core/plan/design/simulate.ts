/**
 * The chosen design simulated (pure): the shipped estimator and stop rule run over the plan's time model, for the
 * ranges of the half-widths, the coverage and the wall time.
 */
import { DEFAULT_MARGIN_PCT, type Scenario } from "../../model/scenario/schema.ts";
import { type DesignCandidate, type Design } from "./types.ts";
import { type SetupCosts, DEFAULT_SETUP_COSTS } from "../../model/setup-costs.ts";
import type { Calibration } from "../calibration/schema.ts";
import { simulateAdaptive, PACE_SD_PCT } from "../../stats/simulate.ts";
import { type AdaptiveSimResult, type AdaptiveCosts } from "../../stats/simulate-model.ts";
import { layoutCost, cellsOf } from "./layout.ts";
import { MIN_UNITS_FOR_PRECISION_STOP } from "../../stats/estimate.ts";
import { cellPriorDf } from "../calibration/cell-model.ts";
import { costShapeOf } from "../calibration/costs.ts";

/**
 * The design simulated (one host): the plan's time model as AdaptiveCosts (every instance's restart, warm-ups and
 * restores; the first instance's in the set-up), the pair sd at the chosen length, cells as unequal as measured.
 */
export function simulateDesign(
  s: Scenario,
  c: DesignCandidate,
  o: {
    mode: Design["mode"];
    precisionPct?: number;
    budgetSeconds: number;
    instanceSdPct: number;
    runs?: number;
    plan: number;
    setupCosts: Partial<SetupCosts>;
    cal: Calibration | null;
    tests: string[];
    cellSd?: (z: () => number, chi2: (df: number) => number) => number[];
  },
): AdaptiveSimResult {
  const one = layoutCost(
    s,
    { cellSeconds: c.cellSeconds, warmupSeconds: c.warmupSeconds, k: 1, tests: o.tests, hosts: 1 },
    o.setupCosts,
  );
  const costs = { ...DEFAULT_SETUP_COSTS, ...o.setupCosts };
  const n = s.servers.length;
  const cells = cellsOf(s);
  const cellSeconds = c.cellSeconds + costs.cellOverheadSeconds;
  const warmupSeconds = c.warmupSeconds + costs.cellOverheadSeconds;
  const teardownSeconds = n * costs.teardownSeconds;
  const perRound = cells * n * cellSeconds;
  const warm = s.workload.tests.length * n * warmupSeconds;
  const sim: AdaptiveCosts = {
    setupSeconds: Math.max(0, one.first - perRound - warm - teardownSeconds),
    teardownSeconds,
    cellSeconds,
    restartSeconds: Math.max(0, one.perInstance - perRound - warm),
    warmupSeconds,
  };
  const adaptive = o.mode === "adaptive";
  return simulateAdaptive({
    cellTests: s.workload.tests.flatMap((_, t) => s.workload.threads.map(() => t)),
    servers: n,
    min: adaptive ? MIN_UNITS_FOR_PRECISION_STOP : c.rounds,
    max: adaptive ? Math.max(40, 2 * c.rounds) : c.rounds,
    precisionPct: adaptive ? (o.precisionPct ?? Number.NaN) : Number.NaN,
    roundsPerInstance: c.roundsPerInstance,
    pairSdPct: c.pairSdPct,
    instanceSdPct: o.instanceSdPct,
    cellPriorDf: cellPriorDf(o.cal, [], costShapeOf(s)).d0,
    // The time model's own error: without it a fixed design's 80% range of wall time is a single point.
    paceSdPct: PACE_SD_PCT,
    budgetSeconds: adaptive ? o.budgetSeconds : undefined,
    costs: sim,
    // Fewer runs for an adaptive design: it estimates every round (a fixed one only at its last).
    runs: o.runs ?? (adaptive ? 100 : 200),
    sequential: adaptive,
    marginPct: DEFAULT_MARGIN_PCT,
    ...(o.cellSd ? { cellSd: o.cellSd } : {}),
  });
}
