/** The predicted half-width of a layout and the cheapest layout that reaches a precision target. */
import { describe, expect, it } from "vitest";
import { planPrecision } from "../../../../src/core/plan/calibration/prediction.ts";
import { predictHalfWidthPct } from "../../../../src/core/stats/half-width.ts";

describe("predictHalfWidthPct and planPrecision", () => {
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

  it("picks the cheapest layout that reaches the target, and says when the budget stops it", () => {
    const cost = (pairs: number, inst: number) => pairs * 10 + inst * 100;
    const base = {
      pairSdPct: 10,
      instanceSdPct: 0,
      cells: 6,
      minPairs: 4,
      maxPairs: 40,
      minInstances: 1,
      maxInstances: 3,
      cost,
    };
    const r = planPrecision({ ...base, precisionPct: 5 });
    expect(r.reached).toBe(true);
    expect(r.best!.instances).toBe(1);
    expect(r.best!.halfWidthPct).toBeLessThanOrEqual(5);
    expect(
      predictHalfWidthPct({ pairSdPct: 10, instanceSdPct: 0, pairs: r.best!.pairs - 1, instances: 1, cells: 6 }),
    ).toBeGreaterThan(5);
    const tight = planPrecision({ ...base, precisionPct: 5, budgetSeconds: 200 });
    expect(tight.reached).toBe(false);
    expect(tight.overBudget).toBe(true);
    expect(tight.narrowest!.seconds).toBeLessThanOrEqual(200);
    const never = planPrecision({ ...base, precisionPct: 0.1 });
    expect(never.reached).toBe(false);
    expect(never.overBudget).toBe(false);
  });
});
