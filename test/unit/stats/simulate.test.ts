import { describe, expect, it } from "vitest";
import { simulateAdaptive } from "../../../src/core/stats/simulate.ts";
import { type AdaptiveSimInput } from "../../../src/core/stats/simulate-model.ts";
import { normalFrom, seededRandom } from "../../../src/core/base/random.ts";
import { median } from "../../../src/core/base/distributions.ts";

const costs = { setupSeconds: 60, teardownSeconds: 10, cellSeconds: 8, restartSeconds: 12, warmupSeconds: 4 };
const base: AdaptiveSimInput = {
  cellTests: [0, 0, 1, 1, 2, 2],
  servers: 2,
  min: 2,
  max: 40,
  precisionPct: 10,
  roundsPerInstance: 1,
  pairSdPct: 5,
  instanceSdPct: 0,
  cellPriorDf: Number.POSITIVE_INFINITY,
  costs,
  runs: 100,
  seed: 7,
};

describe("simulateAdaptive: the adaptive run's stopping rule at a given noise", () => {
  it("is deterministic for a seed", () => {
    expect(simulateAdaptive(base)).toEqual(simulateAdaptive(base));
    expect(simulateAdaptive({ ...base, seed: 8 })).not.toEqual(simulateAdaptive(base));
  });

  it("stops at 4 rounds (the fewest units a precision stop needs, min 2 notwithstanding) when the noise is far below the target, and costs exactly the time model's rounds", () => {
    const r = simulateAdaptive({ ...base, pairSdPct: 0.1 });
    expect(r.rounds).toEqual({ median: 4, high: 4 });
    expect(r.reachedShare).toBe(1);
    // set-up + 4 rounds × 6 cells × 2 servers × 8 s + 3 restarts + 4 instances × 3 tests × 2 servers × 4 s + teardown
    const expected = 60 + 4 * 6 * 2 * 8 + 3 * 12 + 4 * 3 * 2 * 4 + 10;
    expect(r.seconds).toEqual({ median: expected, low: expected, high: expected });
  });

  it("one instance (roundsPerInstance Infinity): no restart, warm-ups once", () => {
    const r = simulateAdaptive({ ...base, pairSdPct: 0.1, roundsPerInstance: Number.POSITIVE_INFINITY });
    expect(r.seconds.median).toBe(60 + 4 * 6 * 2 * 8 + 3 * 2 * 4 + 10);
  });

  it("unequal cells (small prior df) need more rounds than equal cells at the same typical sd", () => {
    const equal = simulateAdaptive({ ...base, pairSdPct: 4.7 });
    const unequal = simulateAdaptive({ ...base, pairSdPct: 4.7, cellPriorDf: 2.2 });
    expect(unequal.rounds.median).toBeGreaterThan(equal.rounds.median);
    expect(unequal.seconds.median).toBeGreaterThan(equal.seconds.median);
  });

  it("more noise, more rounds; a tighter target, more rounds", () => {
    const a = simulateAdaptive({ ...base, pairSdPct: 3 });
    const b = simulateAdaptive({ ...base, pairSdPct: 12 });
    const c = simulateAdaptive({ ...base, pairSdPct: 3, precisionPct: 3 });
    expect(b.rounds.median).toBeGreaterThan(a.rounds.median);
    expect(c.rounds.median).toBeGreaterThan(a.rounds.median);
  });

  it("a budget stops the run before a round that would not fit: never over the budget", () => {
    const r = simulateAdaptive({ ...base, pairSdPct: 20, budgetSeconds: 600 });
    expect(r.budgetShare).toBeGreaterThan(0.5);
    expect(r.seconds.high).toBeLessThanOrEqual(600);
    expect(r.reachedShare).toBeLessThan(1);
  });

  it("reports the printed intervals of its A/A runs: coverage near 95% and its complement as false verdicts", () => {
    const r = simulateAdaptive({ ...base, pairSdPct: 8, runs: 150 });
    const iv = r.intervals;
    expect(iv.cells).toBeGreaterThan(0.9 * 150 * base.cellTests.length);
    // 2 binomial SE around 95% at ~900 intervals is about ±1.5%; a wider band than that for a model this small
    expect(iv.coverage!).toBeGreaterThan(0.92);
    expect(iv.coverage!).toBeLessThan(0.98);
    // A/A: an interval that misses 100 lies wholly above or below it, a false faster/slower verdict
    expect(iv.falseVerdicts!).toBeCloseTo(1 - iv.coverage!, 10);
  });

  it("max bounds the rounds", () => {
    const r = simulateAdaptive({ ...base, pairSdPct: 30, max: 5 });
    expect(r.rounds.high).toBeLessThanOrEqual(5);
  });
});

describe("simulateAdaptive: printed widths, coverage, a fixed count", () => {
  it("a fixed count (sequential false, min = max) gives the full-sample intervals: coverage near 95%, widths shrink with rounds", async () => {
    const { simulateAdaptive } = await import("../../../src/core/stats/simulate.ts");
    const base = {
      cellTests: [0, 0, 0, 1, 1, 1],
      servers: 2,
      precisionPct: Number.NaN,
      roundsPerInstance: 1,
      pairSdPct: 10,
      instanceSdPct: 3,
      cellPriorDf: 2.2,
      costs: { setupSeconds: 10, teardownSeconds: 5, cellSeconds: 3, restartSeconds: 12, warmupSeconds: 0 },
      runs: 300,
      sequential: false,
      marginPct: 5,
    };
    const at4 = simulateAdaptive({ ...base, min: 4, max: 4 });
    const at16 = simulateAdaptive({ ...base, min: 16, max: 16 });
    expect(at4.rounds.median).toBe(4);
    expect(at4.seconds.median).toBeCloseTo(10 + 4 * 12 * 3 + 3 * 12 + 5, 6);
    expect(at16.halfWidthPct!.median).toBeLessThan(at4.halfWidthPct!.median);
    expect(at16.withinShare).toBeGreaterThan(at4.withinShare);
    // 1800 cells: two binomial standard errors around 95% are about ±1%; a little more for the cell draws.
    for (const r of [at4, at16]) {
      expect(r.coverage).toBeGreaterThan(0.93);
      expect(r.coverage).toBeLessThan(0.975);
    }
  });
});

describe("simulateAdaptive: a pair sd known from few df", () => {
  it("draws each run's typical sd from the estimate's sampling distribution: a wider range of rounds and seconds than a known sd", () => {
    const o = { ...base, min: 4, cellPriorDf: Number.POSITIVE_INFINITY, pairSdPct: 8, runs: 300 };
    const known = simulateAdaptive(o);
    const few = simulateAdaptive({ ...o, pairSdDf: 4 });
    const many = simulateAdaptive({ ...o, pairSdDf: 1e6 });
    const spread = (r: typeof known) => r.seconds.high - r.seconds.low;
    expect(spread(few)).toBeGreaterThan(spread(known));
    // With a great many df the draw is the estimate itself.
    expect(Math.abs(spread(many) - spread(known))).toBeLessThanOrEqual(0.25 * spread(known) + 1);
  });
});

describe("simulateAdaptive continuing a run: each cell's new pairs centre on its observed ratio", () => {
  it("a quiet cell at 150 stops as soon as a quiet A/A cell would (its next pairs are not drawn around 100)", () => {
    const at = (ratio: number) => {
      const z = normalFrom(seededRandom(5));
      const pairs = Array.from({ length: 6 }, () =>
        Array.from({ length: 4 }, (_, k) => ({ d: Math.log(ratio) + 0.02 * z(), instance: k })),
      );
      return simulateAdaptive({
        ...base,
        min: 4,
        pairSdPct: 2,
        cellPriorDf: Number.POSITIVE_INFINITY,
        budgetSeconds: 3600,
        runs: 100,
        start: { round: 4, elapsedSeconds: 600, pairs, done: new Array(6).fill(null), instance: 3 },
      });
    };
    const aa = at(1);
    const far = at(1.5);
    expect(far.rounds.median).toBeLessThanOrEqual(aa.rounds.median + 1);
    expect(far.rounds.median).toBeLessThanOrEqual(6);
    expect(far.budgetShare).toBe(0);
  });
});
