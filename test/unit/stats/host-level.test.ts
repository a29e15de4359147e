import { describe, expect, it } from "vitest";
import { atHostLevel, hostLevelInterval, welchDf, type CellLevel } from "../../../src/core/stats/host-level.ts";
import type { RatioCell, RatioTable } from "../../../src/core/stats/ratio-model.ts";
import { tQuantile } from "../../../src/core/base/distributions.ts";
import { compareRuns } from "../../../src/core/stats/compare.ts";
import { betweenRunsLine } from "../../../src/core/report/compare.ts";
import { load } from "../../support/results-fixture.ts";

function cell(threads: number, estimate: number, low: number, high: number, df = 10): RatioCell {
  return {
    threads,
    ratio: estimate,
    estimate,
    low,
    high,
    verdict: "faster",
    direction: "faster",
    equivalence: "undetermined",
    fdr: "holds",
    n: 8,
    status: "ok",
    instances: 1,
    df,
    p: 0.001,
    q: 0.001,
    unstable: [],
    cvNumerator: 1,
    cvDenominator: 1,
    numeratorMedian: 110,
    denominatorMedian: 100,
    numeratorValues: [],
    denominatorValues: [],
    failedRepeats: 0,
    loadBound: false,
  } as RatioCell;
}

function table(cells: RatioCell[]): RatioTable {
  return {
    metric: "qps",
    numerator: "mariadb",
    denominator: "mysql",
    confidence: 0.95,
    threads: cells.map((c) => c.threads),
    rows: [{ test: "oltp_read_only", cells }],
  } as unknown as RatioTable;
}

describe("verdicts at the host level", () => {
  it("widens a cell by the level between runs: a clear run-level win becomes unclear on this host", () => {
    // 110 [105–115.2] on 10 df: se of ln = (ln 115.2 − ln 105) / (2 · t(0.975, 10)).
    const t = table([cell(1, 110, 105, 115.2)]);
    const levels = new Map<string, CellLevel>([["oltp_read_only|1", { tau: 0.08, within: 0.0005, df: 8, k: 4 }]]);
    const r = atHostLevel(t, levels, 5);
    const c = r.table.rows[0].cells[0];
    expect(r.widened).toBe(1);
    expect(r.runs).toBe(4);
    expect(c.estimate).toBe(110);
    expect(c.low!).toBeLessThan(100);
    expect(c.high!).toBeGreaterThan(115.2);
    expect(c.verdict).toBe("inconclusive");
    expect(c.direction).toBe("none");
    expect(c.p!).toBeGreaterThan(0.05);
    // The input is not changed.
    expect(t.rows[0].cells[0].low).toBe(105);
    expect(t.rows[0].cells[0].verdict).toBe("faster");
  });

  it("leaves cells without a level as they were and counts only the widened ones", () => {
    const t = table([cell(1, 110, 105, 115.2), cell(4, 120, 115, 125)]);
    const r = atHostLevel(t, new Map([["oltp_read_only|4", { tau: 0.01, within: 0.0004, df: 20, k: 3 }]]), 5);
    expect(r.widened).toBe(1);
    expect(r.table.rows[0].cells[0]).toMatchObject({ low: 105, high: 115.2 });
    expect(r.table.rows[0].cells[1].low!).toBeLessThan(115);
  });

  it("is s̃² = τ² + mean(se²) on the history's df for a run as noisy as the earlier ones", () => {
    const h = hostLevelInterval(0.1, 0.02, 10, { tau: 0.05, within: 0.0004, df: 6 }, 0.95);
    const half = tQuantile(0.975, 6) * Math.sqrt(0.05 ** 2 + 0.0004);
    expect(h.df).toBe(6);
    expect(h.low).toBeCloseTo(0.1 - half, 12);
    expect(h.high).toBeCloseTo(0.1 + half, 12);
  });

  it("widens further for a run noisier than the history's, on the Welch–Satterthwaite df", () => {
    const quiet = hostLevelInterval(0.1, 0.02, 10, { tau: 0.05, within: 0.0004, df: 6 }, 0.95);
    const noisy = hostLevelInterval(0.1, 0.06, 10, { tau: 0.05, within: 0.0004, df: 6 }, 0.95);
    expect(noisy.high - noisy.low).toBeGreaterThan(quiet.high - quiet.low);
    expect(noisy.df).toBeGreaterThan(6);
    // A quieter run cannot narrow it below the history's s̃².
    const quieter = hostLevelInterval(0.1, 0.005, 10, { tau: 0.05, within: 0.0004, df: 6 }, 0.95);
    expect(quieter.high - quieter.low).toBeCloseTo(quiet.high - quiet.low, 12);
  });

  it("Welch–Satterthwaite df: equal variances on equal df double the df; one variance alone keeps its df", () => {
    expect(welchDf(1, 10, 1, 10)).toBeCloseTo(20, 12);
    expect(welchDf(1, 7, 0, 3)).toBeCloseTo(7, 12);
  });
});

describe("compare with one run a side", () => {
  it("adds each server's level between runs twice (once per run), and says nothing was added without one", () => {
    const a = load("compare-a");
    const b = load("compare-b");
    const plain = compareRuns(a, b);
    expect(plain.betweenRuns).toEqual({ widened: 0, runs: 0 });
    expect(betweenRunsLine(plain)).toMatch(/leave out the level between runs/);
    const server = plain.tables[0].numerator;
    const levels = new Map<string, CellLevel>();
    for (const row of plain.tables[0].rows)
      for (const c of row.cells) levels.set(`${row.test}|${c.threads}`, { tau: 0.05, within: 0, df: 12, k: 4 });
    const wide = compareRuns(a, b, { betweenRuns: new Map([[server, levels]]) });
    expect(wide.betweenRuns!.widened).toBeGreaterThan(0);
    expect(wide.betweenRuns!.runs).toBe(4);
    expect(betweenRunsLine(wide)).toMatch(/include each server's level between runs on this host, from up to 4/);
    const before = plain.tables[0].rows[0].cells.find((c) => c.low !== null)!;
    const after = wide.tables[0].rows[0].cells.find((c) => c.threads === before.threads)!;
    // √(se² + 2 · 0.05²) > se: wider on both sides, same estimate.
    expect(after.estimate).toBe(before.estimate);
    expect(after.high! - after.low!).toBeGreaterThan(before.high! - before.low!);
  });

  it("with several runs a side the intervals hold the level by themselves: nothing is added", () => {
    const a = load("compare-a");
    const b = load("compare-b");
    const cmp = compareRuns([a, a], [b, b], { force: true });
    expect(cmp.betweenRuns).toBeNull();
    expect(betweenRunsLine(cmp)).toBeNull();
  });
});
