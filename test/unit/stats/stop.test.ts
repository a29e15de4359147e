/** The adaptive stop rule's gate on the printed width (printedFactor, simulation only). */
import { describe, expect, it } from "vitest";
import type { Scenario } from "../../../src/core/model/scenario/schema.ts";
import {
  applyStopRule,
  PRINTED_WIDTH_FACTOR,
  printedWiderThanTarget,
  type AdaptiveCell,
} from "../../../src/core/stats/stop.ts";
import { scenario as scenarioOf } from "../../support/scenario.ts";

const scenario = (repeats: object | number, extra: Record<string, unknown> = {}): Scenario =>
  scenarioOf({ workload: { tests: ["oltp_read_only"], threads: [1, 2], duration: "5s", repeats, ...extra } });

describe("the stop rule's gate on the printed width (printedFactor, simulation only)", () => {
  const a = { min: 4, max: 40, precisionPct: 10 };
  const est = { n: 4, estimate: 100, low: 50, high: 200, halfWidthPct: 100, stopHalfWidthPct: 8 };
  it("shipped (PRINTED_WIDTH_FACTOR = Infinity): the stop half alone decides", () => {
    expect(PRINTED_WIDTH_FACTOR).toBe(Number.POSITIVE_INFINITY);
    const c: AdaptiveCell = {
      test: "t",
      threads: 1,
      n: 0,
      estimate: null,
      low: null,
      high: null,
      halfWidthPct: null,
      rounds: 3,
    };
    applyStopRule(c, est, true, a);
    expect(c.done).toBe("precision");
    expect(printedWiderThanTarget(c, 10)).toBe(true);
  });
  it("with a finite factor the printed half must be within it too", () => {
    const c: AdaptiveCell = {
      test: "t",
      threads: 1,
      n: 0,
      estimate: null,
      low: null,
      high: null,
      halfWidthPct: null,
      rounds: 3,
    };
    applyStopRule(c, est, true, { ...a, printedFactor: 2 });
    expect(c.done).toBeUndefined();
    applyStopRule(c, { ...est, halfWidthPct: 19.9, high: 119.9 }, true, { ...a, printedFactor: 2 });
    expect(c.done).toBe("precision");
  });
});
