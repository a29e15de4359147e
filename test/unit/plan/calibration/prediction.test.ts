/** The predicted half-width of a layout and the cheapest layout that reaches a precision target. */
import { describe, expect, it } from "vitest";
import { planPrecision } from "../../../../src/core/plan/calibration/prediction.ts";
import { predictHalfWidthPct } from "../../../../src/core/stats/half-width.ts";

describe("predictHalfWidthPct and planPrecision", () => {
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
