/** A calibration's costs: seconds per pair moved to another cell length. */
import { describe, expect, it } from "vitest";
import { pairSecondsAt } from "../../../../src/core/plan/calibration/costs.ts";

describe("pairSecondsAt", () => {
  it("pairSecondsAt: both cells at the run's gross seconds, moved to another cell length by its overhead", () => {
    // On this project's VM, calibrate's quiet A/A run took 7.19 s per 7 s cell: 14.38 s a pair, not its span's 15.3 s.
    expect(pairSecondsAt(7, 7.19, 7)).toBeCloseTo(14.38, 10);
    // A run of 5 s cells at 5.26 s, stored at the calibration's 7 s: 2 × (7 + 0.26).
    expect(pairSecondsAt(7, 5.26, 5)).toBeCloseTo(14.52, 10);
    expect(pairSecondsAt(7, 4.9, 5)).toBe(14); // never less than the cells themselves
  });
});
