import { describe, expect, it } from "vitest";
import { coefficientOfVariation, mean, median, stddev, tQuantile } from "../../../src/core/base/distributions.ts";

describe("location and spread", () => {
  it.each([
    { xs: [3, 1, 2], median: 2, mean: 2, sd: 1 },
    { xs: [4, 1, 3, 2], median: 2.5, mean: 2.5, sd: Math.sqrt(5 / 3) },
    { xs: [5], median: 5, mean: 5, sd: Number.NaN },
  ])("$xs", ({ xs, median: md, mean: mn, sd }) => {
    expect(median(xs)).toBe(md);
    expect(mean(xs)).toBe(mn);
    if (Number.isNaN(sd)) expect(stddev(xs)).toBeNaN();
    else expect(stddev(xs)).toBeCloseTo(sd, 12);
  });

  it("empty lists give NaN, CV needs two values and a non-zero mean", () => {
    expect(median([])).toBeNaN();
    expect(mean([])).toBeNaN();
    expect(coefficientOfVariation([1])).toBeNull();
    expect(coefficientOfVariation([0, 0])).toBeNull();
    // sd of 1100, 1200, 1000 = 100, mean 1100 -> 0.0909
    expect(coefficientOfVariation([1100, 1200, 1000])).toBeCloseTo(1 / 11, 12);
  });
});

describe("tQuantile(0.975, df) against the printed t table", () => {
  it.each([
    [1, 12.7062],
    [2, 4.3027],
    [3, 3.1824],
    [4, 2.7764],
    [9, 2.2622],
    [29, 2.0452],
    [120, 1.9799],
  ])("df=%i -> %f", (df, q) => {
    expect(tQuantile(0.975, df)).toBeCloseTo(q, 4);
  });
  it("is symmetric and handles fractional df", () => {
    expect(tQuantile(0.025, 5)).toBeCloseTo(-tQuantile(0.975, 5), 10);
    const q = tQuantile(0.975, 7.5);
    expect(q).toBeLessThan(tQuantile(0.975, 7));
    expect(q).toBeGreaterThan(tQuantile(0.975, 8));
  });
});
