/**
 * The latency readings as shipped are honest: a seeded simulation of runs whose repeats record sysbench histograms
 * (log-normal events, repeat-to-repeat noise from below one bucket to 6%, quantised to sysbench's own buckets) read
 * through the report's path (ratioTableFromSides with the percentile metrics, latencySection's joint
 * Benjamini–Hochberg). The bar, per percentile: coverage near 95% and at most about 5% A/A faster/slower readings.
 */
import { describe, expect, it } from "vitest";
import { simulateLatency } from "../../../src/core/stats/latency-sim.ts";
import { LATENCY_PERCENTILES } from "../../../src/core/stats/metric.ts";

const SEED = 20261207;
/** Two binomial standard errors of a 95% coverage over n readings: an honest path must not fail by chance. */
const tol = (n: number) => 2 * Math.sqrt((0.95 * 0.05) / n);

describe("latency readings (seeded simulation of the shipped path)", () => {
  it("A/A: every percentile covers about 95% and says faster or slower about 5% of the time at most", () => {
    const s = simulateLatency({ runs: 60, seed: SEED });
    for (const p of LATENCY_PERCENTILES) {
      const x = s.percentiles[p];
      expect(x.readings, p).toBeGreaterThan(300);
      expect(x.coverage, `${p} coverage`).toBeGreaterThanOrEqual(0.93 - tol(x.readings));
      expect(x.directed, `${p} A/A faster/slower`).toBeLessThanOrEqual(0.06 + tol(x.readings));
      expect(x.afterFdr, `${p} after Benjamini–Hochberg`).toBeLessThanOrEqual(x.directed);
    }
    // the done-when of an A/A run: at most 1 false verdict over the 18 readings after the control, in most runs
    const runs = s.heldPerRun.reduce((a, n) => a + n, 0);
    expect(runs).toBe(60);
    const twoOrMore = s.heldPerRun.slice(2).reduce((a, n) => a + n, 0);
    expect(twoOrMore / runs).toBeLessThanOrEqual(0.1);
  });

  it("a true difference: the intervals hold the true latency ratio (0.9) about 95% of the time", () => {
    const s = simulateLatency({ runs: 40, seed: SEED + 1, trueRatio: 0.9 });
    for (const p of LATENCY_PERCENTILES) {
      const x = s.percentiles[p];
      expect(x.coverage, `${p} coverage`).toBeGreaterThanOrEqual(0.93 - tol(x.readings));
      expect(x.coverage, `${p} coverage`).toBeLessThanOrEqual(0.995);
    }
    // a 10% difference is seen
    expect(s.afterFdr).toBeGreaterThan(0.5);
  });

  it("quiet cells, where the histogram's rounding rules: honest (if wide), at the histogram's resolution", () => {
    // repeats 0.1–0.4% apart, tight event spreads: a pair often differs by less than one bucket
    const s = simulateLatency({ runs: 40, seed: SEED + 2, repeatSd: [0.001, 0.004], spread: [0.1, 0.3], events: 4000 });
    for (const p of LATENCY_PERCENTILES) {
      const x = s.percentiles[p];
      expect(x.coverage, `${p} coverage`).toBeGreaterThanOrEqual(0.93 - tol(x.readings));
      expect(x.coverage, `${p} coverage`).toBeLessThanOrEqual(0.995);
      expect(x.directed, `${p} A/A faster/slower`).toBeLessThanOrEqual(0.06 + tol(x.readings));
    }
    expect(s.atResolution).toBeGreaterThan(0.02);
  });

  it("is deterministic for a seed", () => {
    expect(simulateLatency({ runs: 3, seed: 7 })).toEqual(simulateLatency({ runs: 3, seed: 7 }));
  });
});
