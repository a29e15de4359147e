/** The chosen design simulated: the plan's time model run through the shipped estimator and stop rule. */
import { describe, expect, it } from "vitest";
import { simulateDesign } from "../../../../src/core/plan/design/simulate.ts";
import { layoutCost } from "../../../../src/core/plan/design/layout.ts";
import type { DesignCandidate } from "../../../../src/core/plan/design/types.ts";
import { scenario } from "../../../support/scenario.ts";

const s = scenario({
  workload: { tests: ["oltp_read_only"], threads: [1, 4], duration: "10s", tables: 1, tableSize: 10000 },
});
const fixed: DesignCandidate = {
  cellSeconds: 30,
  warmupSeconds: 30,
  rounds: 8,
  instances: 4,
  roundsPerInstance: 2,
  pairSdPct: 2,
  halfWidthPct: 1.5,
  seconds: 0,
};
const opts = (over: Partial<Parameters<typeof simulateDesign>[2]> = {}) => ({
  mode: "fixed" as const,
  budgetSeconds: 3 * 3600,
  instanceSdPct: 1,
  runs: 30,
  plan: 0,
  setupCosts: {},
  cal: null,
  tests: s.workload.tests,
  ...over,
});

describe("simulateDesign", () => {
  it("a fixed design runs its rounds in every simulated run, and the budget never stops it", () => {
    const r = simulateDesign(s, fixed, opts());
    expect(r.runs).toBe(30);
    expect(r.rounds.median).toBe(8);
    expect(r.rounds.high).toBe(8);
    expect(r.budgetShare).toBe(0);
    expect(r.reachedShare).toBe(0);
  });

  it("its wall time centres on the plan's time model for the layout", () => {
    const cost = layoutCost(s, { cellSeconds: 30, warmupSeconds: 30, k: 2, tests: s.workload.tests, hosts: 1 }, {});
    const planned = cost.first + 3 * cost.perInstance;
    const r = simulateDesign(s, fixed, opts());
    expect(r.seconds.low).toBeLessThanOrEqual(r.seconds.median);
    expect(r.seconds.median).toBeLessThanOrEqual(r.seconds.high);
    expect(Math.abs(r.seconds.median - planned) / planned).toBeLessThan(0.1);
  });

  it("noisier pairs print wider intervals", () => {
    const quiet = simulateDesign(s, fixed, opts()).halfWidthPct!.median;
    const noisy = simulateDesign(s, { ...fixed, pairSdPct: 8 }, opts()).halfWidthPct!.median;
    expect(noisy).toBeGreaterThan(2 * quiet);
  });

  it("an adaptive design stops cells on precision, sooner for a looser target, within its budget", () => {
    const c = { ...fixed, roundsPerInstance: 1, instances: 8 };
    const tight = simulateDesign(s, c, opts({ mode: "adaptive", precisionPct: 3 }));
    const loose = simulateDesign(s, c, opts({ mode: "adaptive", precisionPct: 10 }));
    expect(tight.reachedShare).toBeGreaterThan(0.5);
    expect(loose.rounds.median).toBeLessThan(tight.rounds.median);
    expect(tight.seconds.high).toBeLessThanOrEqual(3 * 3600 * 1.05);
  });
});
