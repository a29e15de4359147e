/** Multiple testing over a table: Benjamini–Hochberg q-values and the false verdicts chance alone gives. */
import { describe, expect, it } from "vitest";
import { benjaminiHochberg, expectedFalseVerdicts } from "../../../src/core/stats/fdr.ts";

describe("benjaminiHochberg", () => {
  it("q-values in input order, monotone in p, null kept", () => {
    const q = benjaminiHochberg([0.01, 0.04, 0.03, 0.5, null]);
    expect(q[0]).toBeCloseTo(0.04, 12);
    expect(q[1]).toBeCloseTo((0.04 * 4) / 3, 12);
    expect(q[2]).toBeCloseTo((0.04 * 4) / 3, 12);
    expect(q[3]).toBeCloseTo(0.5, 12);
    expect(q[4]).toBeNull();
  });

  it("a q-value is never above 1 and never below its p; one p is its own q", () => {
    const ps = [0.9, 0.8, 0.95];
    const q = benjaminiHochberg(ps);
    q.forEach((x, i) => {
      expect(x!).toBeLessThanOrEqual(1);
      expect(x! + 1e-12).toBeGreaterThanOrEqual(ps[i]);
    });
    expect(benjaminiHochberg([0.03])).toEqual([0.03]);
    expect(benjaminiHochberg([])).toEqual([]);
    expect(benjaminiHochberg([null, null])).toEqual([null, null]);
  });
});

describe("expectedFalseVerdicts", () => {
  it("is cells × (1 − confidence)", () => {
    expect(expectedFalseVerdicts(6)).toBeCloseTo(0.3, 12);
    expect(expectedFalseVerdicts(24, 0.95)).toBeCloseTo(1.2, 12);
    expect(expectedFalseVerdicts(0)).toBe(0);
  });
});
