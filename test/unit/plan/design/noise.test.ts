/** Pair sd against cell length: the AR(1) variance factor, the series model and the fitted curve. */
import { describe, expect, it } from "vitest";
import {
  ar1MeanFactor,
  fitCurve,
  pairSdAtLength,
  seriesVariance,
  NOTES_SERIES,
  ASSUMED_PAIR_CELL_SECONDS,
} from "../../../../src/core/plan/design/noise.ts";
import { ASSUMED_PAIR_SD_PCT } from "../../../../src/core/plan/calibration/prediction.ts";
import { calibrationFixture } from "../../../support/calibration-fixture.ts";

const cal = calibrationFixture({ cellSeconds: 10, instanceSdPct: 5, instanceDf: 4, secondsPerPair: null });

describe("pair sd against cell length", () => {
  it("the AR(1) variance factor of a mean: 1 at one second, 1/L for white noise, above 1/L when correlated", () => {
    expect(ar1MeanFactor(0.77, 1)).toBeCloseTo(1, 12);
    expect(ar1MeanFactor(0, 20)).toBeCloseTo(1 / 20, 12);
    expect(ar1MeanFactor(0.77, 20)).toBeGreaterThan(1 / 20);
    // Direct sum: var(mean) = (1/L²) Σ_i Σ_j φ^|i−j|.
    let sum = 0;
    for (let i = 0; i < 20; i++) for (let j = 0; j < 20; j++) sum += 0.77 ** Math.abs(i - j);
    expect(ar1MeanFactor(0.77, 20)).toBeCloseTo(sum / 400, 10);
  });

  it("the series model holds the per-second CV and the block CV it was fitted to", () => {
    const v = seriesVariance({ lag1: 0.77, cvPct: 18.3, blockSeconds: 20, blockCvPct: 11.1 });
    expect(Math.sqrt(v(1)) * 100).toBeCloseTo(18.3, 6);
    expect(Math.sqrt(v(20)) * 100).toBeCloseTo(11.1, 6);
    expect(v(300)).toBeLessThan(v(20)); // longer cells help, but a slow level stays
    expect(v(3000)).toBeGreaterThan(0.0005);
  });

  it("no calibration: the notes' model, scaled to the assumed pair sd at 6 s cells", () => {
    const p = pairSdAtLength(null);
    expect(p.source).toBe("notes");
    expect(p.at(ASSUMED_PAIR_CELL_SECONDS)).toBeCloseTo(ASSUMED_PAIR_SD_PCT, 10);
    expect(p.at(30)).toBeLessThan(p.at(10));
    expect(p.note).toContain(`lag-1 autocorrelation ${NOTES_SERIES.lag1}`);
  });

  it("the host's own series when the calibration has one, anchored at its pair sd and cell length", () => {
    const p = pairSdAtLength(
      cal({
        perSecond: {
          seconds: 90,
          cvPct: 10,
          autocorr: [0.5, 0.3],
          blocks: [{ seconds: 10, cvPct: 5, whiteNoiseCvPct: 3.2 }],
        },
      }),
    );
    expect(p.source).toBe("host series");
    expect(p.at(10)).toBeCloseTo(10, 10);
    expect(p.note).toContain("this host's per-second series");
  });

  it("the curve when there is one: a power law fitted to its points (weighted by df), flat past the longest", () => {
    // Points on an exact power law, sd = 24 · L^−0.3: the fit goes through them.
    const law = (L: number) => 24 * L ** -0.3;
    const curve = [
      { cellSeconds: 10, pairSdPct: law(10), pairDf: 6 },
      { cellSeconds: 90, pairSdPct: law(90), pairDf: 3 },
      { cellSeconds: 30, pairSdPct: law(30), pairDf: 6 },
    ];
    const p = pairSdAtLength(cal({ cellLengthCurve: curve }));
    expect(p.source).toBe("curve");
    expect(fitCurve(curve).slope).toBeCloseTo(0.3, 10);
    expect(p.at(10)).toBeCloseTo(law(10), 8);
    expect(p.at(45)).toBeCloseTo(law(45), 8);
    expect(p.at(5)).toBeCloseTo(law(5), 8); // the law goes on below the shortest length, flat past the longest
    expect(p.at(300)).toBeCloseTo(law(90), 8);
    expect(p.note).toContain("fitted as pair sd ∝ length^−0.30");
  });

  it("the fit weighs points by df and holds the slope to 0–0.5 (a measured curve fell faster than white noise at 6 df)", () => {
    // Measured on this project's VM: 7 s 5.0% (df 21), 10 s 3.2% (6), 30 s 2.6% (6), 90 s 2.0% (3).
    const today = [
      { cellSeconds: 7, pairSdPct: 4.98, pairDf: 21 },
      { cellSeconds: 10, pairSdPct: 3.19, pairDf: 6 },
      { cellSeconds: 30, pairSdPct: 2.55, pairDf: 6 },
      { cellSeconds: 90, pairSdPct: 2.01, pairDf: 3 },
    ];
    const f = fitCurve(today);
    expect(f.slope).toBeGreaterThan(0.3);
    expect(f.slope).toBeLessThan(0.45);
    expect(f.at(7)).toBeLessThan(4.98); // the df-21 point pulls hardest, but the others lower it
    expect(f.at(10) / f.at(7)).toBeGreaterThan(Math.sqrt(7 / 10)); // never faster than white noise
    // A curve that rises with length, or one that falls faster than white noise: slope 0, or 0.5.
    expect(
      fitCurve([
        { cellSeconds: 7, pairSdPct: 5.8, pairDf: 3 },
        { cellSeconds: 10, pairSdPct: 8.7, pairDf: 6 },
      ]).slope,
    ).toBe(0);
    expect(
      fitCurve([
        { cellSeconds: 10, pairSdPct: 20, pairDf: 6 },
        { cellSeconds: 90, pairSdPct: 1, pairDf: 6 },
      ]).slope,
    ).toBe(0.5);
  });
});
