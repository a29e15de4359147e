/**
 * A candidate layout of the budget design (pure): its cell lengths and rounds per instance, its scenario, the test
 * order, and its wall time by the plan's time model with the costs this host measured.
 */
import type { Scenario } from "../../model/scenario/schema.ts";
import { testWrites } from "../../model/scenario/legacy.ts";
import type { Calibration } from "../calibration/schema.ts";
import type { SetupCosts } from "../../model/setup-costs.ts";
import { sameCostShape, costShapeOf } from "../calibration/costs.ts";
import { planRun } from "../plan.ts";

/** Cell lengths the design considers (seconds). */
export const CELL_LENGTHS = [5, 10, 15, 20, 30, 45, 60, 90, 120, 180, 300] as const;

/** Rounds per server instance a fixed design considers (1: a fresh instance every round). */
export const ROUNDS_PER_INSTANCE = [1, 2, 3, 4, 6] as const;

/** The warm-up the design gives a cell length: the length, held to 10–30 s. */
export function warmupFor(cellSeconds: number): number {
  return Math.min(30, Math.max(10, cellSeconds));
}

export const cellsOf = (s: Scenario) => s.workload.tests.length * s.workload.threads.length;

/** The cells' names in the simulation's order (the scenario's tests, then threads), as the calibration records them. */
export const cellNames = (s: Scenario) => s.workload.tests.flatMap((t) => s.workload.threads.map((n) => `${t}@${n}`));

/** The write tests first when fresh: per-test (see the module comment); else the scenario's order. */
export function designOrder(s: Scenario): string[] {
  if (s.workload.fresh !== "per-test") return [...s.workload.tests];
  const writes = (t: string) => testWrites(t, s.workload.scripts);
  return [...s.workload.tests.filter(writes), ...s.workload.tests.filter((t) => !writes(t))];
}

/** The scenario of a fixed layout: L s cells, W s warm-up, R repeats over I instances, on `hosts` (sharded). */
export function layoutScenario(
  s: Scenario,
  o: { cellSeconds: number; warmupSeconds: number; rounds: number; instances: number; tests: string[]; hosts: number },
): Scenario {
  const hosts =
    o.hosts > 1
      ? Array.from(
          { length: o.hosts },
          (_, i) => s.hosts?.[i] ?? { id: `host${i + 1}`, engine: `tcp://host${i + 1}:2375` },
        )
      : s.hosts?.slice(0, 1);
  return {
    ...s,
    ...(hosts ? { hosts } : {}),
    shard: o.hosts > 1,
    workload: {
      ...s.workload,
      tests: o.tests,
      duration: `${o.cellSeconds}s`,
      events: undefined,
      warmup: `${o.warmupSeconds}s`,
      repeats: o.rounds,
      instances: o.instances,
      budget: undefined,
    },
  };
}

/** Per-cell start-up measured by calibrate (seconds per pair at its cell length), else the plan's default. */
export function overheadOf(cal: Calibration | null, costs: SetupCosts): number {
  if (cal?.secondsPerPair && cal.cellSeconds > 0) return Math.max(0, cal.secondsPerPair / 2 - cal.cellSeconds);
  return costs.cellOverheadSeconds;
}

/**
 * What runs here measured on data of this scenario's shape, as the plan's costs: a new instance per server, and the
 * teardown per server. The adaptive forecast uses them too (precision.ts adaptiveCosts); without them
 * the design priced a new instance on the 2 M-row RAID 0 at the model's 16.5 s a server where three runs had
 * measured 15.2–15.9 s.
 */
export function measuredCosts(cal: Calibration | null, s: Scenario): Partial<SetupCosts> {
  if (!cal || !sameCostShape(cal.costShape, costShapeOf(s))) return {};
  const out: Partial<SetupCosts> = {};
  if (cal.restartSecondsPerServer !== undefined && cal.restartSecondsPerServer > 0)
    Object.assign(out, {
      instanceRestartSeconds: cal.restartSecondsPerServer,
      instanceRestartSecondsPerMillionRows: 0,
    });
  if (cal.teardownSeconds !== undefined && cal.teardownSeconds > 0 && s.servers.length > 0)
    out.teardownSeconds = cal.teardownSeconds / s.servers.length;
  return out;
}

interface LayoutCost {
  /** Wall seconds of one instance (k rounds) and each further instance. */
  first: number;
  perInstance: number;
}

export function layoutCost(
  s: Scenario,
  o: { cellSeconds: number; warmupSeconds: number; k: number; tests: string[]; hosts: number },
  setupCosts: Partial<SetupCosts>,
): LayoutCost {
  const t = (inst: number) =>
    planRun(layoutScenario(s, { ...o, rounds: o.k * inst, instances: inst }), { setupCosts }).estimate.totalSeconds;
  const one = t(1);
  return { first: one, perInstance: t(2) - one };
}
