import { describe, expect, it } from "vitest";
import { coefficientOfVariation, mean, median, ratioEstimate, stddev, tQuantile, verdictMark } from "../../src/core/stats.ts";

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

describe("ratioEstimate: paired t-interval on log ratios", () => {
  it("known answer, interval includes 100 -> same", () => {
    // d = ln(1.1), ln(1.2), ln(1.0) = 0.0953102, 0.1823216, 0
    // mean m = 0.0925439; sd s = 0.0911928; se = s/sqrt(3) = 0.0526502; t(0.975,2) = 4.302653
    // half = 0.2265355 -> low = exp(-0.1339916) = 0.874599, high = exp(0.3190794) = 1.375859
    // ratio = median(num)/median(den) = 1100/1000 = 110
    const e = ratioEstimate([1100, 1200, 1000], [1000, 1000, 1000]);
    expect(e.ratio).toBeCloseTo(110, 10);
    expect(e.low).toBeCloseTo(87.4599, 3);
    expect(e.high).toBeCloseTo(137.5859, 3);
    expect(e.geomean).toBeCloseTo(Math.exp(0.0925439) * 100, 3);
    expect(e).toMatchObject({ n: 3, df: 2, verdict: "same" });
    expect(e.cvNumeratorPct).toBeCloseTo(100 / 11, 6);
    expect(e.cvDenominatorPct).toBe(0);
  });

  it("tight ratios above 100 -> faster", () => {
    // ratios 1.02, 1.019802, 1.020202: d = 0.0198026, 0.0196085, 0.0200007; m = 0.0198039
    // s = 0.0001961, se = 0.0001132, half = 4.302653 * se = 0.000487 -> [101.9505, 102.0498]
    const e = ratioEstimate([1020, 1030, 1010], [1000, 1010, 990]);
    expect(e.ratio).toBeCloseTo(102, 10);
    expect(e.low).toBeCloseTo(101.9505, 3);
    expect(e.high).toBeCloseTo(102.0498, 3);
    expect(e.verdict).toBe("faster");
  });

  it("tight ratios below 100 -> slower", () => {
    // ratios 0.90, 0.91, 0.89 -> all well below 1 with a small spread
    const e = ratioEstimate([900, 910, 890], [1000, 1000, 1000]);
    expect(e.ratio).toBeCloseTo(90, 10);
    expect(e.high!).toBeLessThan(100);
    expect(e.verdict).toBe("slower");
  });

  it("identical ratios give a point interval; exactly 100 is 'same'", () => {
    const e = ratioEstimate([1000, 2000], [1000, 2000]);
    expect(e).toMatchObject({ ratio: 100, n: 2 });
    expect(e.low).toBeCloseTo(100, 10);
    expect(e.high).toBeCloseTo(100, 10);
    // CV of 1000/2000 is 47% -> noisy -> unknown, even though the pairs agree perfectly
    expect(e.verdict).toBe("unknown");
    expect(ratioEstimate([1000, 2000], [1000, 2000], { cvThresholdPct: 50 }).verdict).toBe("same");
  });

  it.each([
    { name: "one repeat", num: [1100], den: [1000], n: 1, reason: "too-few-repeats" },
    { name: "no complete pair", num: [1100, null], den: [null, 1000], n: 0, reason: "too-few-repeats" },
    { name: "no data on one side", num: [null, null], den: [1000, 1000], n: 0, reason: "no-data" },
    { name: "noisy numerator (CV 32.8%)", num: [1000, 1500, 800], den: [1000, 1000, 1000], n: 3, reason: "noisy" },
  ])("$name -> unknown", ({ num, den, n, reason }) => {
    const e = ratioEstimate(num, den);
    expect(e.verdict).toBe("unknown");
    expect(e.n).toBe(n);
    expect(e.reason).toBe(reason);
    expect(verdictMark(e.verdict)).toBe("?");
  });

  it("n counts complete pairs only; the medians use every value", () => {
    // pairs: (1100,1000), (1200,1000); repeat 3 has only a numerator
    const e = ratioEstimate([1100, 1200, 1300], [1000, 1000, null]);
    expect(e.n).toBe(2);
    expect(e.ratio).toBeCloseTo(120, 10); // median 1200 / median 1000
  });

  it("the CV threshold is configurable", () => {
    const num = [1000, 1150, 1100]; // CV 7%
    expect(ratioEstimate(num, [1000, 1000, 1000]).reason).not.toBe("noisy");
    expect(ratioEstimate(num, [1000, 1000, 1000], { cvThresholdPct: 5 }).reason).toBe("noisy");
  });
});

describe("ratioEstimate: inverted (latency, lower is better)", () => {
  it("numerator latency 20% lower reads 125 (above 100 = numerator better)", () => {
    // p95: numerator 8.0, 8.0, 8.0 ms vs denominator 10.0, 10.1, 9.9 ms
    // ratio = median(den)/median(num) * 100 = 10/8 * 100 = 125
    const e = ratioEstimate([8, 8, 8], [10, 10.1, 9.9], { invert: true });
    expect(e.ratio).toBeCloseTo(125, 10);
    expect(e.low!).toBeGreaterThan(100);
    expect(e.verdict).toBe("faster");
    // the same numbers not inverted read 80 and "slower"
    const plain = ratioEstimate([8, 8, 8], [10, 10.1, 9.9]);
    expect(plain.ratio).toBeCloseTo(80, 10);
    expect(plain.verdict).toBe("slower");
    // inversion mirrors the interval: low_inv = 10000 / high_plain
    expect(e.low!).toBeCloseTo(10000 / plain.high!, 8);
  });
});

describe("ratioEstimate: unpaired (two runs), Welch t-interval on log values", () => {
  it("known answer", () => {
    // new = 0.9 * base; ln values of each side have the same spread as ln(1, 1.01, 0.99):
    // var = 1.000075e-4 on each side, se = sqrt(2 * 1.000075e-4 / 3) = 0.0081653
    // Welch df = (2v/3)^2 / (2 (v/3)^2 / 2) = 4, t(0.975,4) = 2.776445, half = 0.0226704
    // centre = ln 0.9 -> [90 * exp(-0.0226704), 90 * exp(0.0226704)] = [87.9826, 92.0636]
    const base = [15000, 15150, 14850];
    const e = ratioEstimate(base.map((x) => x * 0.9), base, { pairing: "unpaired" });
    expect(e.ratio).toBeCloseTo(90, 8);
    expect(e.df).toBeCloseTo(4, 8);
    expect(e.low).toBeCloseTo(87.9826, 3);
    expect(e.high).toBeCloseTo(92.0636, 3);
    expect(e.verdict).toBe("slower");
    expect(e.n).toBe(3);
  });
  it("n = min of the two sides; one side with a single value -> unknown", () => {
    expect(ratioEstimate([1000, 1010, 990], [1000, 1010], { pairing: "unpaired" }).n).toBe(2);
    expect(ratioEstimate([1000, 1010, 990], [1000], { pairing: "unpaired" }).verdict).toBe("unknown");
  });
});
