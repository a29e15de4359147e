/** Special functions: digamma, trigamma and its inverse. */
import { describe, expect, it } from "vitest";
import { digamma, trigamma, trigammaInverse } from "../../../src/core/stats/special.ts";

describe("special functions", () => {
  it("digamma and trigamma at known points", () => {
    expect(digamma(1)).toBeCloseTo(-0.5772156649, 9);
    expect(digamma(0.5)).toBeCloseTo(-1.963510026, 9);
    expect(trigamma(1)).toBeCloseTo(Math.PI ** 2 / 6, 9);
    expect(trigamma(0.5)).toBeCloseTo(Math.PI ** 2 / 2, 9);
    for (const x of [0.3, 1, 4, 40]) expect(trigammaInverse(trigamma(x))).toBeCloseTo(x, 6);
  });
});
