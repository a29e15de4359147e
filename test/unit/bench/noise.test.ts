import { describe, expect, it } from "vitest";
import {
  NOISE_ARMS,
  NOISE_COST,
  blockSeconds,
  detectableSdRatio,
  formatSdRatio,
  noiseSchedule,
  noiseTable,
  pairsForBudget,
  residualSpread,
  scheduleSeconds,
  sdEstimate,
  sdRatio,
  type NoiseBlock,
} from "../../../bench/lib/noise.ts";
import { chiSquareQuantile, fQuantile } from "../../../src/core/base/distributions.ts";
import { normalFrom, seededRandom } from "../../../src/core/base/random.ts";

describe("chi-square and F quantiles (against scipy)", () => {
  it.each([
    [chiSquareQuantile(0.975, 4), 11.143286781877796],
    [chiSquareQuantile(0.025, 4), 0.4844185570879299],
    [chiSquareQuantile(0.975, 100), 129.5611971858366],
    [fQuantile(0.975, 6, 30), 2.866696153975248],
    [fQuantile(0.975, 30, 6), 5.065226841982697],
    [fQuantile(0.2, 6, 30), 0.5044209692533822],
  ])("%f ≈ %f", (got, want) => expect(got).toBeCloseTo(want, 7));
});

describe("noiseSchedule", () => {
  it("puts a manual block before, between and after the lab arms, in a seeded order", () => {
    const s = noiseSchedule(["defaults", "nopause", "quiesce"], 42);
    expect(s.map((b) => b.kind)).toEqual(["manual", "lab", "manual", "lab", "manual", "lab", "manual"]);
    expect(
      s
        .filter((b) => b.kind === "lab")
        .map((b) => b.arm)
        .sort(),
    ).toEqual(["defaults", "nopause", "quiesce"]);
    expect(noiseSchedule(["defaults", "nopause", "quiesce"], 42)).toEqual(s);
    const orders = new Set(
      [1, 2, 3, 4, 5, 6, 7, 8].map((seed) =>
        noiseSchedule(["a", "b", "c"], seed)
          .filter((b) => b.kind === "lab")
          .map((b) => b.arm)
          .join(),
      ),
    );
    expect(orders.size).toBeGreaterThan(1);
  });
});

describe("duration and pairs", () => {
  const c = { tests: 2, threads: 1, seconds: 5, warmupSeconds: 3, ...NOISE_COST };
  it("longer cells and trimming cost more; more pairs cost more", () => {
    const arm = (id: string) => NOISE_ARMS.find((a) => a.id === id);
    const base = blockSeconds({ kind: "lab", arm: "defaults" }, { ...c, pairs: 4 }, arm("defaults"));
    expect(blockSeconds({ kind: "lab", arm: "len20" }, { ...c, pairs: 4 }, arm("len20"))).toBeGreaterThan(base);
    expect(blockSeconds({ kind: "lab", arm: "trim" }, { ...c, pairs: 4 }, arm("trim"))).toBeGreaterThan(base);
    expect(blockSeconds({ kind: "lab", arm: "defaults" }, { ...c, pairs: 5 }, arm("defaults"))).toBeGreaterThan(base);
  });
  it("pairsForBudget picks the most pairs that fit, at least 2", () => {
    const s = noiseSchedule(["defaults", "quiesce"], 1);
    const p = pairsForBudget(s, c, 900);
    expect(scheduleSeconds(s, { ...c, pairs: p })).toBeLessThanOrEqual(900);
    expect(scheduleSeconds(s, { ...c, pairs: p + 1 })).toBeGreaterThan(900);
    expect(pairsForBudget(s, c, 1)).toBe(2);
  });
});

describe("pair sd figures", () => {
  it("residuals are taken within each cell of each block (a block's level does not count)", () => {
    const blocks: NoiseBlock[] = [
      { index: 0, kind: "manual", arm: "manual", seconds: 5, cells: { "x/1": [0.1, 0.3], "y/1": [0.5] } },
      { index: 2, kind: "manual", arm: "manual", seconds: 5, cells: { "x/1": [-1.0, -1.2] } },
    ];
    const s = residualSpread(blocks);
    expect(s.df).toBe(2);
    expect(s.pairs).toBe(5);
    expect(s.ss).toBeCloseTo(0.01 + 0.01 + 0.01 + 0.01, 12);
    const e = sdEstimate(s)!;
    expect(e.sdPct).toBeCloseTo(100 * Math.sqrt(0.02), 10);
    expect(e.lowPct).toBeLessThan(e.sdPct);
    expect(e.highPct).toBeGreaterThan(e.sdPct);
    expect(sdEstimate({ ss: 0, df: 0, pairs: 1 })).toBeNull();
  });
  it("the chi-square interval matches the textbook one", () => {
    const e = sdEstimate({ ss: 4 * 0.01, df: 4, pairs: 6 })!;
    expect(e.lowPct).toBeCloseTo(10 * Math.sqrt(4 / 11.143286781877796), 6);
    expect(e.highPct).toBeCloseTo(10 * Math.sqrt(4 / 0.4844185570879299), 6);
  });
  it("an sd ratio's F interval: contains 1 for equal noise, excludes it for twice the noise with many df", () => {
    const same = sdRatio({ ss: 6 * 0.01, df: 6, pairs: 12 }, { ss: 30 * 0.01, df: 30, pairs: 45 })!;
    expect(same.ratio).toBeCloseTo(1, 12);
    expect(same.low).toBeCloseTo(1 / Math.sqrt(2.866696153975248), 6);
    expect(same.high).toBeCloseTo(Math.sqrt(5.065226841982697), 6);
    expect(same.measurable).toBe(false);
    expect(formatSdRatio(same)).toMatch(/no measurable effect$/);
    const double = sdRatio({ ss: 200 * 0.04, df: 200, pairs: 300 }, { ss: 200 * 0.01, df: 200, pairs: 300 })!;
    expect(double.ratio).toBeCloseTo(2, 12);
    expect(double.measurable).toBe(true);
  });
  it("detectableSdRatio matches scipy", () => {
    expect(detectableSdRatio(6, 30)).toBeCloseTo(2.3839342090529545, 6);
    expect(detectableSdRatio(20, 40)).toBeCloseTo(1.7157477482499617, 6);
  });
  it("noiseTable: simulated arms at 10% and 20% pair sd come out near their truth, the lever as measurable", () => {
    const rnd = normalFrom(seededRandom(11));
    const block = (index: number, kind: "manual" | "lab", arm: string, sd: number): NoiseBlock => ({
      index,
      kind,
      arm,
      seconds: 5,
      cells: Object.fromEntries(
        ["p/1", "u/1"].map((k) => {
          const level = 0.1 * rnd();
          return [k, Array.from({ length: 40 }, () => level + sd * rnd())];
        }),
      ),
    });
    const blocks = [
      block(0, "manual", "manual", 0.1),
      block(1, "lab", "defaults", 0.1),
      block(2, "manual", "manual", 0.1),
      block(3, "lab", "noisy", 0.2),
      block(4, "manual", "manual", 0.1),
    ];
    const t = noiseTable(blocks, ["defaults", "noisy"], { noisy: "twice the noise" });
    expect(t.map((r) => r.arm)).toEqual(["manual", "defaults", "noisy"]);
    expect(t[0]!.sd!.sdPct).toBeGreaterThan(8);
    expect(t[0]!.sd!.sdPct).toBeLessThan(12);
    expect(t[1]!.vsDefaults).toBeNull();
    expect(t[1]!.vsManual!.measurable).toBe(false);
    expect(t[2]!.label).toBe("twice the noise");
    expect(t[2]!.vsDefaults!.measurable).toBe(true);
    expect(t[2]!.vsDefaults!.low).toBeGreaterThan(1.3);
  });
});
