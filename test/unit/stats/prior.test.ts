/** The pooled prior df: how unequal cells are, fitted over several runs. */
import { describe, expect, it } from "vitest";
import { type CellInput } from "../../../src/core/stats/estimate.ts";
import { fitPooledPriorDf } from "../../../src/core/stats/prior.ts";
import { gammaFrom, seededRandom } from "../../../src/core/base/random.ts";

const cell = (...ds: number[]): CellInput => ({ pairs: ds.map((d) => ({ d })) });

describe("fitPooledPriorDf: how unequal cells are, over several runs", () => {
  /** `runs` runs of `cells` cells: each run's level drawn freely, each cell's variance about it from the prior (d0), its s² with `df`. */
  function draw(d0: number, o: { runs: number; cells: number; df: number; seed: number }) {
    const rand = seededRandom(o.seed);
    const gamma = gammaFrom(rand);
    const chi2 = (k: number) => 2 * gamma(k / 2);
    return Array.from({ length: o.runs }, () => {
      const level = 0.0025 * Math.exp(2 * (rand() - 0.5)); // runs differ (pair sd 3%–8%): the fit centres each run
      return Array.from({ length: o.cells }, () => {
        const sigma2 = Number.isFinite(d0) ? (d0 * level) / chi2(d0) : level;
        return { s2: (sigma2 * chi2(o.df)) / o.df, df: o.df };
      });
    });
  }

  it("recovers a known prior df from runs of a few pairs per cell (seeded)", () => {
    const fits = [1, 2, 3, 4, 5].map((seed) => fitPooledPriorDf(draw(6, { runs: 10, cells: 6, df: 4, seed }))!.d0);
    const med = [...fits].sort((a, b) => a - b)[2]!;
    expect(med).toBeGreaterThan(3);
    expect(med).toBeLessThan(12);
    // very unequal cells (d0 = 1.5) read as very unequal, and far below equal ones
    const unequal = fitPooledPriorDf(draw(1.5, { runs: 10, cells: 6, df: 4, seed: 7 }))!;
    expect(unequal.d0).toBeLessThan(3);
    expect(unequal).toMatchObject({ groups: 10, cells: 60, df: 240 });
  });

  it("equal cells within each run (whatever the runs' levels): a large d0, capped at the cells' summed df", () => {
    const f = fitPooledPriorDf(draw(Number.POSITIVE_INFINITY, { runs: 10, cells: 6, df: 4, seed: 11 }))!;
    expect(f.d0).toBeGreaterThan(20);
    expect(f.d0).toBeLessThanOrEqual(240);
    // identical variances: no spread at all, so the cap
    expect(
      fitPooledPriorDf([
        [
          { s2: 0.01, df: 3 },
          { s2: 0.01, df: 3 },
        ],
      ])!.d0,
    ).toBe(6);
  });

  it("null when no run has 2 usable cells", () => {
    expect(fitPooledPriorDf([])).toBeNull();
    expect(
      fitPooledPriorDf([
        [{ s2: 0.01, df: 3 }],
        [
          { s2: 0.02, df: 3 },
          { s2: 0, df: 3 },
        ],
        [
          { s2: 0.02, df: 0 },
          { s2: 0.01, df: 2 },
        ],
      ]),
    ).toBeNull();
  });
});
