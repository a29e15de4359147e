/** The predicted half-width of a ratio interval, on one instance and over several. */
import { describe, expect, it } from "vitest";
import { predictHalfWidthPct } from "../../../src/core/stats/half-width.ts";

describe("predictHalfWidthPct", () => {
  it("is exp(t(df)·se) − 1 with df = cells × (n − 1) on one instance", () => {
    // t(0.975, 9) = 2.262157
    const h = predictHalfWidthPct({ pairSdPct: 10, instanceSdPct: null, pairs: 10, instances: 1, cells: 1 });
    expect(h).toBeCloseTo((Math.exp(2.262157 * (0.1 / Math.sqrt(10))) - 1) * 100, 3);
  });

  it("adds the instance level over I instances with df = cells × (I − 1)", () => {
    // t(0.975, 6) = 2.446912; se = sqrt(0.1²/20 + 0.05²/2)
    const h = predictHalfWidthPct({ pairSdPct: 10, instanceSdPct: 5, pairs: 20, instances: 2, cells: 6 });
    expect(h).toBeCloseTo((Math.exp(2.446912 * Math.sqrt(0.01 / 20 + 0.0025 / 2)) - 1) * 100, 3);
    expect(predictHalfWidthPct({ pairSdPct: 10, instanceSdPct: null, pairs: 1, instances: 1, cells: 6 })).toBe(
      Number.POSITIVE_INFINITY,
    );
  });
});
