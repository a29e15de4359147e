/** The budget design's search: the narrowest layout within the budget at each cell length, and what it buys per host count. */
import { describe, expect, it } from "vitest";
import { hostForecast, search } from "../../../../src/core/plan/design/search.ts";
import { ROUNDS_PER_INSTANCE, layoutCost, layoutScenario } from "../../../../src/core/plan/design/layout.ts";
import { planRun } from "../../../../src/core/plan/plan.ts";
import type { DesignInput } from "../../../../src/core/plan/design/types.ts";
import { scenario } from "../../../support/scenario.ts";

const s = scenario({
  workload: {
    tests: ["oltp_read_only", "oltp_point_select"],
    threads: [1, 4],
    duration: "10s",
    tables: 1,
    tableSize: 10000,
  },
});
const ctx = (over: Partial<Parameters<typeof search>[1]> = {}) => ({
  tests: s.workload.tests,
  hosts: 1,
  instanceSdPct: 2,
  sdAt: (L: number) => 20 / Math.sqrt(L),
  setupCosts: {},
  ...over,
});
const input = (over: Partial<DesignInput> = {}): DesignInput => ({
  scenario: s,
  budgetSeconds: 3600,
  calibration: null,
  lengths: [10, 30, 60],
  ...over,
});

describe("search", () => {
  it("one candidate per cell length that fits, each within the budget, with rounds = instances × rounds per instance", () => {
    const cands = search(input(), ctx());
    expect(cands.map((c) => c.cellSeconds)).toEqual([10, 30, 60]);
    for (const c of cands) {
      expect(c.seconds).toBeLessThanOrEqual(3600);
      expect(c.rounds).toBe(c.instances * c.roundsPerInstance);
      expect(c.rounds).toBeGreaterThanOrEqual(2);
      expect(ROUNDS_PER_INSTANCE).toContain(c.roundsPerInstance);
      expect(c.pairSdPct).toBeCloseTo(20 / Math.sqrt(c.cellSeconds), 12);
      expect(c.halfWidthPct).toBeGreaterThan(0);
    }
  });

  it("its wall time is the layout's cost (the first instance, then each further one), and one more would not fit", () => {
    const [c] = search(input({ lengths: [30] }), ctx());
    const cost = layoutCost(
      s,
      { cellSeconds: 30, warmupSeconds: c!.warmupSeconds, k: c!.roundsPerInstance, tests: s.workload.tests, hosts: 1 },
      {},
    );
    expect(c!.seconds).toBeCloseTo(cost.first + (c!.instances - 1) * cost.perInstance, 6);
    expect(c!.seconds + cost.perInstance).toBeGreaterThan(3600);
    expect(cost.first).toBeCloseTo(
      planRun(
        layoutScenario(s, { ...c!, rounds: c!.roundsPerInstance, instances: 1, tests: s.workload.tests, hosts: 1 }),
      ).estimate.totalSeconds,
      6,
    );
  });

  it("more budget never widens the expected interval at a length", () => {
    const w = [1800, 3600, 7200].map((b) => search(input({ budgetSeconds: b, lengths: [30] }), ctx())[0]!.halfWidthPct);
    expect(w[1]).toBeLessThanOrEqual(w[0]! + 1e-9);
    expect(w[2]).toBeLessThan(w[0]!);
  });

  it("a budget too small for two rounds gives no candidate", () => {
    expect(search(input({ budgetSeconds: 60 }), ctx())).toEqual([]);
  });

  it("an adaptive design (a precision, one host) lays out a fresh instance every round", () => {
    const cands = search(input({ precisionPct: 3 }), ctx());
    expect(cands.length).toBeGreaterThan(0);
    for (const c of cands) expect(c.roundsPerInstance).toBe(1);
  });
});

describe("hostForecast", () => {
  it("the plan's time of the layout on that many hosts, and what the budget buys there", () => {
    const c = search(input({ lengths: [30] }), ctx())[0]!;
    const one = hostForecast(input(), ctx(), c);
    const two = hostForecast(input(), ctx({ hosts: 2 }), c);
    expect(one).toMatchObject({ hosts: 1, rounds: c.rounds });
    expect(one.halfWidthPct).toBeCloseTo(c.halfWidthPct, 12);
    expect(two.hosts).toBe(2);
    expect(two.seconds).toBeLessThan(one.seconds);
    expect(two.rounds).toBeGreaterThanOrEqual(one.rounds);
  });

  it("a length the budget cannot hold on that many hosts buys no rounds and no interval", () => {
    const c = search(input({ lengths: [30] }), ctx())[0]!;
    const f = hostForecast(input({ budgetSeconds: 60 }), ctx(), c);
    expect(f.rounds).toBe(0);
    expect(f.halfWidthPct).toBe(Number.POSITIVE_INFINITY);
  });
});
