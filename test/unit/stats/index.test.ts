/**
 * twinbench/stats (src/stats/index.ts): the public, pure API of the estimator and the stop rule. A user's design
 * simulated through it gives what the in-suite coverage test gives; estimateTable and nextRound are the report's and
 * the scheduler's own functions on a scenario's records.
 */
import { describe, expect, it } from "vitest";
import * as stats from "../../../src/stats/index.ts";
import type { CellRecord } from "../../../src/core/model/results.ts";
import { scenario } from "../../support/scenario.ts";
import { cellRecord, sysbench } from "../../support/record.ts";

const s = scenario({
  workload: {
    tests: ["oltp_read_only"],
    threads: [1, 2],
    duration: "5s",
    repeats: { min: 4, max: 10, precision: "10%" },
  },
});

/** Records of rounds 1..n: a/b = exp(d(round, threads)). */
function records(n: number, d: (round: number, threads: number) => number): CellRecord[] {
  const out: CellRecord[] = [];
  for (let round = 1; round <= n; round++)
    for (const threads of [1, 2])
      for (const server of round % 2 ? ["a", "b"] : ["b", "a"])
        out.push(
          cellRecord({
            server,
            threads,
            repeat: round,
            metrics: sysbench({ qps: server === "a" ? 1000 * Math.exp(d(round, threads)) : 1000 }),
            startedAt: new Date(Date.UTC(2026, 11, 2, 0, round, threads * 2 + (server === "a" ? 0 : 1))).toISOString(),
            instance: round - 1,
          }),
        );
  return out;
}

describe("twinbench/stats", () => {
  it("nextRound: round 1 first, then no precision stop before 4 instances, then only the open cell", () => {
    expect(stats.nextRound(s, []).round).toBe(1);
    // threads 1: ±0.5% alternating (precise); threads 2: ±30% (never precise)
    const d = (round: number, t: number) => (t === 1 ? 0.005 : 0.3) * (round % 3 === 0 ? 1 : -0.5);
    expect(stats.nextRound(s, records(3, d)).cells.map((c) => c.threads)).toEqual([1, 1, 2, 2]);
    const after4 = stats.nextRound(s, records(4, d));
    expect(after4.state.find((c) => c.threads === 1)!.done).toBe("precision");
    expect(after4.cells.every((c) => c.threads === 2)).toBe(true);
  });

  it("estimateTable: the adaptive scenario gets the split; the interval is centred on exp(mean ln ratio)", () => {
    const d = (round: number, t: number) => 0.1 + (t === 1 ? 0.02 : 0.05) * Math.sin(round * 1.7);
    const t = stats.estimateTable(s, records(6, d));
    const c = t.rows[0].cells[0];
    expect(c.split).toBe(true);
    const ds = [1, 2, 3, 4, 5, 6].map((round) => d(round, 1));
    expect(c.estimate!).toBeCloseTo(Math.exp(ds.reduce((a, x) => a + x, 0) / 6) * 100, 3);
    expect(c.low!).toBeLessThan(c.estimate!);
    expect(c.high!).toBeGreaterThan(c.estimate!);
    expect(stats.estimateTable(s, records(6, d), { sequential: false }).rows[0].cells[0].split).toBe(false);
  });

  it("simulateRuns through the public API: a user's ±5% design on the quiet model covers about 95%", () => {
    const quiet = stats.NOISE_MODELS.find((m) => m.name === "quiet")!;
    const sum = stats.summarizeCoverage(
      stats.simulateRuns({ cells: 6, settings: { min: 4, max: 40, precisionPct: 5 } }, quiet, { runs: 200, seed: 3 }),
    );
    // the bar of coverage.test.ts: 94–96%, widened by two binomial standard errors of this many cells
    const tol = 2 * Math.sqrt((0.95 * 0.05) / sum.cells);
    expect(sum.coverage).toBeGreaterThan(0.94 - tol);
    expect(sum.coverage).toBeLessThan(0.96 + tol);
    expect(sum.medianRounds).toBeGreaterThanOrEqual(stats.MIN_UNITS_FOR_PRECISION_STOP);
  });
});
