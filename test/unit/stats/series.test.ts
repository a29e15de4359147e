/** A per-second series' statistics: CV, autocorrelation and block CVs. */
import { describe, expect, it } from "vitest";
import { seriesStats } from "../../../src/core/stats/series.ts";
import { normalFrom, seededRandom } from "../../../src/core/base/random.ts";

describe("seriesStats", () => {
  it("gives the exact CV, autocorrelation and block CVs of a small series", () => {
    const s = seriesStats([1, 2, 3, 4], { lags: 2, blocks: [2] });
    // mean 2.5, sd sqrt(5/3); lag 1: (-1.5·-0.5 + -0.5·0.5 + 0.5·1.5) / 5 = 0.25; lag 2: (-1.5·0.5 + -0.5·1.5) / 5 = -0.3
    expect(s.seconds).toBe(4);
    expect(s.cvPct).toBeCloseTo((Math.sqrt(5 / 3) / 2.5) * 100, 10);
    expect(s.autocorr[0]).toBeCloseTo(0.25, 12);
    expect(s.autocorr[1]).toBeCloseTo(-0.3, 12);
    // block means 1.5 and 3.5: sd sqrt(2), mean 2.5
    expect(s.blocks).toHaveLength(1);
    expect(s.blocks[0].cvPct).toBeCloseTo((Math.sqrt(2) / 2.5) * 100, 10);
    expect(s.blocks[0].whiteNoiseCvPct).toBeCloseTo(s.cvPct / Math.sqrt(2), 10);
  });

  it("finds an AR(1) series' autocorrelation φ^k and block CVs above white noise", () => {
    const phi = 0.6;
    const norm = normalFrom(seededRandom(7));
    const xs: number[] = [];
    let e = 0;
    for (let t = 0; t < 20000; t++) {
      e = phi * e + norm() * 0.05;
      xs.push(1000 * (1 + e));
    }
    const s = seriesStats(xs);
    for (let k = 1; k <= 5; k++) expect(s.autocorr[k - 1]).toBeCloseTo(phi ** k, 1);
    expect(s.blocks.map((b) => b.seconds)).toEqual([2, 5, 10, 20]);
    // Variance of a block mean of an AR(1): σ²/L · (1 + 2 Σ (1 − k/L) φ^k); at L = 20 that is about 3.4× white noise's.
    const b20 = s.blocks.find((b) => b.seconds === 20)!;
    expect(b20.cvPct / b20.whiteNoiseCvPct).toBeGreaterThan(1.6);
    expect(b20.cvPct / b20.whiteNoiseCvPct).toBeLessThan(2.1);
  });

  it("gives block CVs near white noise's for white noise, and skips blocks with fewer than 2 blocks", () => {
    const norm = normalFrom(seededRandom(11));
    const s = seriesStats(Array.from({ length: 40000 }, () => 100 + norm()));
    for (const b of s.blocks) expect(b.cvPct / b.whiteNoiseCvPct).toBeCloseTo(1, 1);
    expect(Math.abs(s.autocorr[0])).toBeLessThan(0.02);
    expect(seriesStats([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]).blocks.map((b) => b.seconds)).toEqual([
      2, 5,
    ]);
  });
});
