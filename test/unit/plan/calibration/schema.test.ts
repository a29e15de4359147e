/** The calibration file's shapes: the stored cell-length curve accepted, others refused. */
import { describe, expect, it } from "vitest";
import { cellLengthCurve } from "../../../../src/core/plan/calibration/update.ts";
import { isCellLengthCurve } from "../../../../src/core/plan/calibration/schema.ts";

describe("isCellLengthCurve", () => {
  it("isCellLengthCurve accepts the stored shape and refuses others", () => {
    expect(isCellLengthCurve([{ cellSeconds: 10, pairSdPct: 9, pairDf: 4 }])).toBe(true);
    expect(isCellLengthCurve([])).toBe(true);
    expect(isCellLengthCurve([{ cellSeconds: 10, pairSdPct: "9", pairDf: 4 }])).toBe(false);
    expect(isCellLengthCurve([{ cellSeconds: 0, pairSdPct: 9, pairDf: 4 }])).toBe(false);
    expect(isCellLengthCurve({})).toBe(false);
  });
});
