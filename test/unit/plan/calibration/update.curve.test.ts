/** The cell-length curve from calibrate's A/A runs (cellLengthCurve) and its stored shape. */
import { describe, expect, it } from "vitest";
import { cellLengthCurve } from "../../../../src/core/plan/calibration/update.ts";
import { nestedSd } from "../../../../src/core/stats/nested-sd.ts";

describe("cellLengthCurve", () => {
  it("one point per length: the pair sd within each run's cells (nestedSd), sorted by length; no df, no point", () => {
    const at10 = [
      new Map([
        ["t|1", [0.1, -0.1, 0.05]],
        ["t|2", [0.02, 0.0]],
      ]),
      new Map([["t|1", [0.2, 0.1]]]),
    ];
    const at30 = [new Map([["t|1", [0.03, -0.03, 0.01, 0.0]]])];
    const none = [new Map([["t|1", [0.5]]])];
    const curve = cellLengthCurve(
      new Map([
        [30, at30],
        [10, at10],
        [90, none],
      ]),
    );
    expect(curve.map((p) => p.cellSeconds)).toEqual([10, 30]);
    const want10 = nestedSd([
      [
        [0.1, -0.1, 0.05],
        [0.2, 0.1],
      ],
      [[0.02, 0.0], []],
    ]);
    expect(curve[0].pairSdPct).toBeCloseTo(want10.pairSdPct, 10);
    expect(curve[0].pairDf).toBe(want10.pairDf);
    expect(curve[1].pairDf).toBe(3);
    // By hand: mean 0.0025, squares about it.
    const xs = [0.03, -0.03, 0.01, 0.0];
    const m = xs.reduce((a, b) => a + b, 0) / 4;
    expect(curve[1].pairSdPct).toBeCloseTo(Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / 3) * 100, 10);
  });
});
