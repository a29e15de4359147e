/** Huber's location of a cell's units: the mean when the units agree, a bounded pull from one wild unit. */
import { describe, expect, it } from "vitest";
import { tCdf } from "../../../src/core/base/distributions.ts";
import { HUBER_K, HUBER_VARIANCE_FACTOR, huberLocation } from "../../../src/core/stats/robust.ts";

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

describe("huberLocation", () => {
  it("is the mean when no unit lies beyond k scales, weighted when weights are given", () => {
    const xs = [0.01, -0.02, 0.015, 0, 0.005];
    expect(huberLocation(xs, 0.05)).toBeCloseTo(mean(xs), 15);
    expect(huberLocation([1, 2, 3], 10, [1, 1, 2])).toBeCloseTo((1 + 2 + 6) / 4, 15);
  });

  it("the mean without a positive scale or with fewer than 3 units; nothing for no units", () => {
    expect(huberLocation([0, 0, 10], 0)).toBeCloseTo(10 / 3, 15);
    expect(huberLocation([0, 10], 0.1)).toBe(5);
    expect(huberLocation([], 1)).toBeNaN();
  });

  it("one wild unit among units that agree moves it by at most k scales over the count", () => {
    const agree = [0.01, -0.01, 0.0, 0.005, -0.005, 0.0, 0.01, -0.01, 0.0];
    const scale = 0.01;
    for (const wild of [0.5, 5, 500]) {
      const mu = huberLocation([...agree, wild], scale);
      expect(mu).toBeGreaterThan(0);
      expect(mu).toBeLessThanOrEqual((HUBER_K * scale) / agree.length + 1e-12);
    }
    // The mean is pulled without limit.
    expect(mean([...agree, 500])).toBeGreaterThan(40);
  });

  it("is symmetric: a wild unit below pulls it down as far", () => {
    const agree = [0.01, -0.01, 0.0, 0.005, -0.005];
    expect(huberLocation([...agree, -3], 0.01)).toBeCloseTo(-huberLocation([...agree, 3], 0.01), 12);
  });
});

describe("HUBER_VARIANCE_FACTOR", () => {
  it("is E[ψ²] / E[ψ']² at the standard normal for k = 1.345 (about 1 / 0.95)", () => {
    const Phi = tCdf(HUBER_K, 1e9);
    const phi = Math.exp(-(HUBER_K ** 2) / 2) / Math.sqrt(2 * Math.PI);
    const dpsi = 2 * Phi - 1;
    const psi2 = dpsi - 2 * HUBER_K * phi + 2 * HUBER_K ** 2 * (1 - Phi);
    expect(HUBER_VARIANCE_FACTOR).toBeCloseTo(psi2 / dpsi ** 2, 4);
  });
});
