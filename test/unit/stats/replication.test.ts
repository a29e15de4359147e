import { describe, expect, it } from "vitest";
import {
  replicationAnalysis,
  runsOutside,
  seFromInterval,
  type CellRuns,
} from "../../../src/core/stats/replication.ts";

const cell = (name: string, ys: number[], se = 0.01): CellRuns => ({
  cell: name,
  runs: ys.map((y, i) => ({ run: `r${i}`, y, se, df: 20 })),
});

describe("the level between runs", () => {
  it("gives no interval below two runs, and says so with nulls", () => {
    const [c] = replicationAnalysis([cell("a", [0.1])]);
    expect(c.k).toBe(1);
    expect(c.tau).toBeNull();
    expect(c.replicationLow).toBeNull();
    expect(c.df).toBeNull();
  });

  it("one cell alone is the classical one-way model: the mean's t interval on k − 1 df", () => {
    // y = 0.10, 0.14, 0.12: mean 0.12, sd 0.02, k = 3; qt(0.975, 2) = 4.302653 (R).
    const [c] = replicationAnalysis([cell("a", [0.1, 0.14, 0.12])]);
    expect(c.pooled).toBeCloseTo(0.12, 12);
    expect(c.df).toBe(2);
    expect(c.pooledHigh - c.pooled).toBeCloseTo((4.302653 * 0.02) / Math.sqrt(3), 5);
    // Replication: s²(1 + 1/k) for a next run as noisy as these: 4.302653 · 0.02 · √(4/3).
    expect(c.replicationHigh! - c.pooled).toBeCloseTo(4.302653 * 0.02 * Math.sqrt(4 / 3), 5);
    // τ² = s² − se² = 0.0004 − 0.0001; I² = τ² / s².
    expect(c.tau).toBeCloseTo(Math.sqrt(0.0003), 10);
    expect(c.i2).toBeCloseTo(0.75, 10);
    expect(c.tauLow!).toBeLessThan(c.tau!);
    expect(c.tauHigh!).toBeGreaterThan(c.tau!);
  });

  it("reads no level between runs when the runs agree within their own noise", () => {
    const [c] = replicationAnalysis([cell("a", [0.1, 0.1005, 0.0995], 0.01)]);
    expect(c.tau).toBe(0);
    expect(c.i2).toBe(0);
  });

  it("runs that agree to the last digit (copies of one run) keep at least the runs' own noise", () => {
    const [c] = replicationAnalysis([cell("a", [0.1, 0.1, 0.1], 0.01)]);
    expect(c.replicationHigh! - c.pooled).toBeCloseTo(4.302653 * 0.01 * Math.sqrt(4 / 3), 5);
  });

  it("a noisier next run widens the replication interval; a quieter one does not narrow it", () => {
    const h = [cell("a", [0.1, 0.14, 0.12]), cell("b", [0.2, 0.23, 0.21])];
    const base = replicationAnalysis(h)[0];
    const noisy = replicationAnalysis(h, { next: new Map([["a", { se: 0.1, df: 20 }]]) })[0];
    // Quieter within what the se's df explain (se² half the earlier runs', below F's 99.9% point on 60 and 20 df).
    const quiet = replicationAnalysis(h, { next: new Map([["a", { se: 0.007, df: 20 }]]) })[0];
    expect(noisy.replicationHigh!).toBeGreaterThan(base.replicationHigh!);
    expect(quiet.replicationHigh!).toBeCloseTo(base.replicationHigh!, 12);
  });

  it("a next run far quieter than the earlier ones (they ran busy) is read with its own se", () => {
    const h = [cell("a", [0.1, 0.14, 0.12]), cell("b", [0.2, 0.23, 0.21])];
    const base = replicationAnalysis(h)[0];
    const [far] = replicationAnalysis(h, { next: new Map([["a", { se: 0.001, df: 20 }]]) });
    // τ̂² + s̃²/k + se_next² instead of s̃²(1 + 1/k): narrower, and still wider than τ̂² + s̃²/k alone.
    expect(far.replicationHigh!).toBeLessThan(base.replicationHigh!);
    const floor = Math.sqrt(far.tau! ** 2 + (far.tau! ** 2 + far.within!) / 3);
    expect(far.replicationHigh! - far.pooled).toBeGreaterThan(2 * floor);
  });

  it("one far noisier run is left out: it neither widens the interval nor pulls the pooled estimate", () => {
    // Six runs at ±3% and a run on a busy machine (se 0.37, its 95% interval about ×/÷ 100) far below them.
    const quiet = [0.137, 0.107, 0.07, 0.101, 0.093, 0.087];
    const h = (busy: boolean): CellRuns[] => [
      {
        cell: "a",
        runs: [
          ...quiet.map((y, i) => ({ run: `r${i}`, y, se: 0.03, df: 10 })),
          ...(busy ? [{ run: "busy", y: -0.113, se: 0.37, df: 1 }] : []),
        ],
      },
    ];
    const [without] = replicationAnalysis(h(false));
    const [withBusy] = replicationAnalysis(h(true));
    const half = (c: typeof without) => (c.replicationHigh! - c.replicationLow!) / 2;
    expect(half(withBusy)).toBeLessThan(1.1 * half(without));
    expect(Math.abs(withBusy.pooled - without.pooled)).toBeLessThan(0.005);
    expect(withBusy.leftOut).toEqual(["busy"]);
    expect(without.leftOut).toEqual([]);
    // The runs' own se² is the quiet runs' (with the busy run, the mean of se² would be 0.0203).
    expect(withBusy.within!).toBeLessThan(0.03 ** 2 * 1.2);
  });

  it("a level between runs still shows beside a noisy run, and a noisy next run keeps its own se", () => {
    const ys = [0.0, 0.2, 0.1, -0.1, 0.15, 0.05];
    const [c] = replicationAnalysis([
      {
        cell: "a",
        runs: [...ys.map((y, i) => ({ run: `r${i}`, y, se: 0.01, df: 10 })), { run: "b", y: 0, se: 0.4, df: 2 }],
      },
    ]);
    // sd of ys ≈ 0.107: the level between runs is read, not hidden by the noisy run.
    expect(c.tau!).toBeGreaterThan(0.08);
    expect(c.tau!).toBeLessThan(0.13);
    const cells = [
      { cell: "a", runs: [0.1, 0.12, 0.11].map((y, i) => ({ run: `r${i}`, y, se: 0.01, df: 10 })) },
      { cell: "b", runs: [0.1, 0.11, 0.1].map((y, i) => ({ run: `r${i}`, y, se: i === 0 ? 0.3 : 0.01, df: 10 })) },
    ];
    const [noisyNext] = replicationAnalysis(cells, { next: new Map([["a", { se: 0.3, df: 10 }]]) });
    // A next run with se 0.3 after runs at 0.01 is read with its own se. Pooled with the earlier runs' se² on their
    // 30 df it would read about 0.15, and the interval about ±0.32.
    expect(noisyNext.replicationHigh! - noisyNext.pooled).toBeGreaterThan(1.8 * 0.3);
  });

  it("names a run that falls outside the interval the other runs give it", () => {
    const h = [cell("a", [0.1, 0.101, 0.099, 0.1, 0.4], 0.002), cell("b", [0.2, 0.201, 0.199, 0.2, 0.2], 0.002)];
    expect(runsOutside(h)).toEqual(["a: r4"]);
  });

  it("takes a run's se from its printed interval", () => {
    // 95% interval [90, 110] on 10 df: (ln 110 − ln 90) / (2 · 2.228139).
    expect(seFromInterval(90, 110, 10)).toBeCloseTo((Math.log(110) - Math.log(90)) / (2 * 2.228139), 6);
    expect(seFromInterval(0, 110, 10)).toBeNull();
  });
});
