/**
 * The designed scenario (pure): the scenario `run --design` runs, the --set overrides that make it from the file,
 * and the budget as a duration.
 */
import { type Scenario, parseDuration } from "../../model/scenario/schema.ts";
import type { DesignCandidate, Design } from "./types.ts";
import { MIN_UNITS_FOR_PRECISION_STOP } from "../../stats/estimate.ts";

/** The designed scenario and the --set overrides that make it from the scenario file. */
export function designedScenario(
  s: Scenario,
  c: DesignCandidate,
  o: { mode: Design["mode"]; tests: string[]; hosts: number; precisionPct?: number; budgetSeconds: number },
): { scenario: Scenario; overrides: string[] } {
  const max = Math.max(40, 2 * c.rounds);
  const repeats =
    o.mode === "adaptive" ? { min: MIN_UNITS_FOR_PRECISION_STOP, max, precision: `${o.precisionPct}%` } : c.rounds;
  const instances = o.mode === "adaptive" ? MIN_UNITS_FOR_PRECISION_STOP : c.instances;
  const budget = formatBudget(o.budgetSeconds);
  const workload = {
    ...s.workload,
    tests: o.tests,
    duration: `${c.cellSeconds}s`,
    events: undefined,
    warmup: `${c.warmupSeconds}s`,
    repeats,
    instances,
    budget: o.mode === "adaptive" ? budget : undefined,
  };
  const overrides = [
    `workload.tests=[${o.tests.join(", ")}]`,
    `workload.duration=${c.cellSeconds}s`,
    `workload.warmup=${c.warmupSeconds}s`,
    o.mode === "adaptive"
      ? `workload.repeats={min: ${MIN_UNITS_FOR_PRECISION_STOP}, max: ${max}, precision: "${o.precisionPct}%"}`
      : `workload.repeats=${c.rounds}`,
    `workload.instances=${instances}`,
    ...(o.mode === "adaptive" ? [`workload.budget=${budget}`] : []),
    ...(o.hosts > 1 ? ["shard=true"] : []),
  ];
  return { scenario: { ...s, shard: o.hosts > 1 ? true : s.shard, workload }, overrides };
}

/** 28800 → "8h", 1800 → "30m", else whole seconds: a duration the scenario's schema parses. */
export function formatBudget(seconds: number): string {
  const t = Math.floor(seconds);
  if (t > 0 && t % 3600 === 0) return `${t / 3600}h`;
  if (t > 0 && t % 60 === 0) return `${t / 60}m`;
  return `${t}s`;
}

/** The budget in seconds of a scenario's `workload.budget` (undefined when absent). */
export function budgetOf(s: Scenario): number | undefined {
  return s.workload.budget === undefined ? undefined : parseDuration(s.workload.budget);
}
