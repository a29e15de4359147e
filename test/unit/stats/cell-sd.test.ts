/** A cell's pair sd in one simulated run, drawn from the prior and the cell's own pairs. */
import { describe, expect, it } from "vitest";
import { drawCellSd } from "../../../src/core/stats/cell-sd.ts";
import { type AdaptiveSimInput } from "../../../src/core/stats/simulate-model.ts";
import { gammaFrom, normalFrom, seededRandom } from "../../../src/core/base/random.ts";
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

describe("drawCellSd: a cell's pair sd in one simulated run, from the prior and the cell's own pairs", () => {
  /** The median of 2000 draws at a prior pair sd of 10% and prior df 2.2 (ASSUMED_CELL_PRIOR_DF). */
  const typical = (seen: Array<{ d: number; instance: number }>, tau = 0) => {
    const gamma = gammaFrom(seededRandom(7));
    return median(Array.from({ length: 2000 }, () => drawCellSd(gamma, 0.1, 2.2, seen, tau)));
  };
  const pairs = (sd: number, n: number, perInstance: number) => {
    const z = normalFrom(seededRandom(11));
    return Array.from({ length: n }, (_, i) => ({ d: sd * z(), instance: Math.floor(i / perInstance) }));
  };

  it("a fresh instance for every pair (the adaptive default): the cell's own spread moves it away from the prior", () => {
    const prior = typical([]);
    expect(prior).toBeGreaterThan(0.07);
    expect(prior).toBeLessThan(0.14);
    // 20 pairs, each on its own instance: no within-instance df, yet they tell a quiet cell from a noisy one.
    expect(typical(pairs(0.02, 20, 1))).toBeLessThan(0.045);
    expect(typical(pairs(0.3, 20, 1))).toBeGreaterThan(0.2);
  });

  it("pairs within instances: the within-instance spread decides, as before", () => {
    expect(typical(pairs(0.02, 20, 4))).toBeLessThan(0.05);
    expect(typical(pairs(0.3, 20, 4))).toBeGreaterThan(0.2);
  });

  it("with an instance level, one pair per instance gives the sum's posterior less the instance variance", () => {
    const seen = pairs(0.05, 20, 1);
    const withTau = typical(seen, 0.04);
    expect(withTau).toBeLessThan(typical(seen, 0));
    expect(withTau).toBeGreaterThanOrEqual(0.1 / 5); // floored at s / MAX_SD_FACTOR
  });
});
