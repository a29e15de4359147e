/** The nested sd: pooled within-instance sd and the instance sd by the method of moments. */
import { describe, expect, it } from "vitest";
import { nestedSd } from "../../../src/core/stats/nested-sd.ts";
import { normalFrom, seededRandom } from "../../../src/core/base/random.ts";

describe("nestedSd", () => {
  it("pools the within-instance sd and gets the instance sd by the method of moments", () => {
    // One cell, two instances: {0, 0.2} and {1, 1.2}. Within: ss 0.04, df 2, s² 0.02.
    // Q = 2(0.1 − 0.6)² + 2(1.1 − 0.6)² = 1; E[Q] = σ² + (4 − 8/4) τ² → τ² = (1 − 0.02) / 2 = 0.49.
    const r = nestedSd([
      [
        [0, 0.2],
        [1, 1.2],
      ],
    ]);
    expect(r.pairDf).toBe(2);
    expect(r.pairSdPct).toBeCloseTo(Math.sqrt(0.02) * 100, 10);
    expect(r.instanceSdPct).toBeCloseTo(70, 10);
    expect(r.instanceDf).toBe(1);
    expect(r.pairs).toBe(4);
  });

  it("floors the instance variance at 0 and gives null with one instance", () => {
    expect(
      nestedSd([
        [
          [0, 0.2],
          [0.1, 0.1],
        ],
      ]).instanceSdPct,
    ).toBe(0);
    const one = nestedSd([[[0.1, -0.1, 0.05]], [[0, 0.02]]]);
    expect(one.instanceSdPct).toBeNull();
    expect(one.instanceDf).toBe(0);
    expect(one.pairDf).toBe(3);
  });

  it("recovers simulated pair and instance sds (2 cells × 40 instances × 10 pairs)", () => {
    const norm = normalFrom(seededRandom(3));
    const cells = [0, 1].map(() =>
      Array.from({ length: 40 }, () => {
        const u = 0.05 * norm();
        return Array.from({ length: 10 }, () => u + 0.1 * norm());
      }),
    );
    const r = nestedSd(cells);
    expect(r.pairDf).toBe(2 * 40 * 9);
    expect(r.pairSdPct).toBeGreaterThan(9.3);
    expect(r.pairSdPct).toBeLessThan(10.7);
    expect(r.instanceSdPct!).toBeGreaterThan(3.5);
    expect(r.instanceSdPct!).toBeLessThan(6.5);
    expect(r.instanceDf).toBe(78);
  });
});
