/**
 * `twinbench/stats`: the estimator and the adaptive stop rule that every twinbench run uses, as pure functions, so
 * that a design can be simulated before hours are spent on it. Nothing here does I/O.
 *
 * - {@link estimateTable}: the ratio table of a set of cell records (what the report prints), paired, with the
 *   sequential stages when the scenario is adaptive.
 * - {@link nextRound}: what an adaptive run does next from its records (the cells of the next round, or none), and
 *   every cell's state: the scheduler's own function.
 * - {@link estimateRun}: the estimator on plain pairs of log ratios.
 * - {@link simulateRuns} / {@link summarizeCoverage}: seeded runs of the shipped estimator and stop rule under a noise
 *   model, with their coverage, false verdicts and cost (docs/stats.md has the table).
 *
 * @example
 * ```ts
 * import { simulateRuns, summarizeCoverage, NOISE_MODELS } from "twinbench/stats";
 * const sim = simulateRuns({ cells: 6, settings: { min: 4, max: 40, precisionPct: 5 } }, NOISE_MODELS[0], { runs: 200, seed: 1 });
 * console.log(summarizeCoverage(sim)); // { coverage: 0.95…, medianRounds: 11, … }
 * ```
 * @packageDocumentation
 */
import type { CellRecord } from "../core/model/results.ts";
import { nextAdaptiveRound, type AdaptiveStep } from "../core/plan/adaptive.ts";
import { ratioTableFromSides } from "../core/stats/ratio.ts";
import { type RatioTable } from "../core/stats/ratio-model.ts";
import { type Metric } from "../core/stats/metric.ts";
import { adaptiveRepeats, type Scenario } from "../core/model/scenario/schema.ts";
import { primaryPair } from "../core/model/scenario/pairs.ts";

export {
  estimateRun,
  STAGE_ONE_UNITS,
  usablePairs,
  MIN_UNITS_FOR_PRECISION_STOP,
  DEFAULT_CONFIDENCE,
  type CellInput,
  type CellEstimate,
  type PairObs,
  type RunEstimate,
  type RunEstimateOptions,
} from "../core/stats/estimate.ts";
export { estimateUnpaired } from "../core/stats/unpaired.ts";
export { fitVariancePrior, moderateRobust, type VarianceObs, type VariancePrior } from "../core/stats/prior.ts";
export { benjaminiHochberg, expectedFalseVerdicts } from "../core/stats/fdr.ts";
export { adaptiveSettings, adaptiveState, type AdaptiveStep } from "../core/plan/adaptive.ts";
export { applyStopRule, stopForBudget, type AdaptiveCell, type StopEstimate } from "../core/stats/stop.ts";
export type { AdaptiveSettings } from "../core/model/results.ts";
export {
  NOISE_MODELS,
  simulateRuns,
  summarizeCoverage,
  type CoverageSummary,
  type Design,
  type NoiseModel,
  type SimulatedCell,
  type SimulationOptions,
} from "../core/stats/coverage.ts";
export type { RatioTable, RatioCell } from "../core/stats/ratio-model.ts";
export {
  cellVerdict,
  directionOf,
  equivalenceOf,
  verdictOf,
  VERDICTS,
  FDR,
  type Verdict,
  type Direction,
  type Equivalence,
  type FdrReading,
  type CellVerdict,
} from "../core/model/verdict.ts";

export interface EstimateTableOptions {
  /** Numerator and denominator server ids (default: the scenario's compare key, else its first two servers). */
  numerator?: string;
  denominator?: string;
  metric?: Metric;
  /** Equivalence margin in percent (default 5). */
  marginPct?: number;
  /** Use the sequential stages (default: when the scenario's repeats are adaptive). */
  sequential?: boolean;
}

/** The ratio table of a scenario's records, as a run's report computes it (paired repeats). */
export function estimateTable(
  scenario: Scenario,
  records: readonly CellRecord[],
  options: EstimateTableOptions = {},
): RatioTable {
  const ids = scenario.servers.map((s) => s.id);
  const key = primaryPair(scenario) ?? ids;
  const num = options.numerator ?? key[0];
  const den = options.denominator ?? key[1];
  const side = (id: string) => ({ id, label: id, records: records.filter((r) => r.server === id) });
  return ratioTableFromSides(side(num), side(den), scenario.workload.tests, scenario.workload.threads, {
    pairing: "paired",
    metric: options.metric ?? "qps",
    ...(options.marginPct !== undefined ? { marginPct: options.marginPct } : {}),
    sequential: options.sequential ?? adaptiveRepeats(scenario.workload) !== undefined,
  });
}

/** What an adaptive run does next from its records: the next round's cells (none when done) and every cell's state. */
export function nextRound(scenario: Scenario, records: readonly CellRecord[]): AdaptiveStep {
  return nextAdaptiveRound(scenario, records, undefined);
}
export { DEFAULT_MARGIN_PCT } from "../core/model/scenario/schema.ts";
