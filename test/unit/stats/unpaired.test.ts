/** The unpaired estimate of a ratio (compare of two runs' cells). */
import { describe, expect, it } from "vitest";
import { estimateUnpaired } from "../../../src/core/stats/unpaired.ts";

describe("unpaired (compare)", () => {
  it("known answer: pooled two-sample variance on log values", () => {
    // a − b = 0.1; both sides have ss = 0.0008, df = 4, s² = 0.0004, se = sqrt(0.0004 · 2/3) = 0.0163299
    const e = estimateUnpaired([{ a: [0.1, 0.12, 0.08], b: [0, 0.02, -0.02] }]).cells[0];
    expect(e.estimate).toBeCloseTo(Math.exp(0.1) * 100, 8);
    expect(e.df).toBe(4);
    expect(e.low).toBeCloseTo(Math.exp(0.1 - 2.776445 * 0.0163299) * 100, 3);
    expect(e.verdict).toBe("faster-beyond"); // low exp(0.05466) = 105.6, above 105
    expect(estimateUnpaired([{ a: [0.1], b: [0, 0.1] }]).cells[0]).toMatchObject({
      verdict: "unknown",
      reason: "too-few-pairs",
    });
  });
});
