/** The seeded generators (src/core/base/random.ts): reproducible from the seed, in range, and a shuffle of a copy. */
import { describe, expect, it } from "vitest";
import { gammaFrom, normalFrom, seedFromString, seededRandom, shuffled } from "../../../src/core/base/random.ts";

const take = (f: () => number, n: number) => Array.from({ length: n }, f);

describe("seededRandom", () => {
  it("the same seed gives the same stream, another seed another one", () => {
    expect(take(seededRandom(42), 5)).toEqual(take(seededRandom(42), 5));
    expect(take(seededRandom(42), 5)).not.toEqual(take(seededRandom(43), 5));
  });

  it("draws in [0, 1) with a uniform mean and spread", () => {
    const xs = take(seededRandom(7), 20000);
    expect(Math.min(...xs)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...xs)).toBeLessThan(1);
    const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
    expect(mean).toBeCloseTo(0.5, 2);
    expect(xs.filter((x) => x < 0.25).length / xs.length).toBeCloseTo(0.25, 1);
  });
});

describe("normalFrom and gammaFrom", () => {
  it("normal draws are fixed by the seed and have mean 0, sd 1", () => {
    expect(take(normalFrom(seededRandom(3)), 4)).toEqual(take(normalFrom(seededRandom(3)), 4));
    const xs = take(normalFrom(seededRandom(3)), 20000);
    const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
    const sd = Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / (xs.length - 1));
    expect(Math.abs(mean)).toBeLessThan(0.03);
    expect(sd).toBeCloseTo(1, 1);
  });

  it("gamma(shape, rate 1) draws are positive with mean = shape", () => {
    const g = gammaFrom(seededRandom(5));
    const xs = Array.from({ length: 20000 }, () => g(3));
    expect(Math.min(...xs)).toBeGreaterThan(0);
    expect(xs.reduce((a, b) => a + b, 0) / xs.length).toBeCloseTo(3, 1);
  });
});

describe("shuffled", () => {
  it("returns a permutation of a copy, the input untouched, fixed by the seed", () => {
    const xs = [1, 2, 3, 4, 5, 6, 7, 8];
    const a = shuffled(xs, seededRandom(9));
    expect(xs).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect([...a].sort((x, y) => x - y)).toEqual(xs);
    expect(a).not.toEqual(xs);
    expect(shuffled(xs, seededRandom(9))).toEqual(a);
  });

  it("an empty or one-element list comes back as it was", () => {
    expect(shuffled([], seededRandom(1))).toEqual([]);
    expect(shuffled(["x"], seededRandom(1))).toEqual(["x"]);
  });
});

describe("seedFromString (FNV-1a, 32 bits)", () => {
  it.each([
    ["", 0x811c9dc5],
    ["a", 0xe40c292c],
    ["foobar", 0xbf9cf968],
  ])("%j → %i", (s, want) => expect(seedFromString(s)).toBe(want));
});
