/**
 * The shipped adaptive procedure's 95% intervals cover 95% under its own stopping. Seeded simulations of
 * the real estimator (estimateRun, sequential split) and the real stop rule (applyStopRule / stopForBudget), with
 * quick.yaml's own settings, under the noise models of src/core/stats/coverage.ts. docs/stats.md has the full table
 * (bench/coverage.ts). A check that the record path (adaptiveState over CellRecords, through ratioTableFromSides)
 * stops the same cells in the same rounds as the simulation, so the simulation is of the shipped path.
 */
import { describe, expect, it } from "vitest";
import { adaptiveSettings, adaptiveState } from "../../../src/core/plan/adaptive.ts";
import type { CellRecord } from "../../../src/core/model/results.ts";
import {
  NOISE_MODELS,
  simulateRuns,
  summarizeCoverage,
  type Design,
  type SimulatedCell,
} from "../../../src/core/stats/coverage.ts";
import { scenarioFile } from "../../support/scenario.ts";

const SEED = 20261202;
const quick = scenarioFile("scenarios/quick.yaml");
const settings = adaptiveSettings(quick)!;
const cells = quick.workload.tests.length * quick.workload.threads.length;
const model = (name: string) => NOISE_MODELS.find((m) => m.name === name)!;

/**
 * The bar: 94–96% coverage and at most 5.5% A/A false verdicts per cell. A simulation of N cells estimates a coverage
 * with a binomial standard error √(0.95·0.05/N) (0.5% at 1800 cells), so each bound is widened by two of those: a
 * seeded run of a procedure whose true coverage is 95.0% must not fail by chance. The cells that stop first are
 * those whose stage happened to look quiet: the staged interval covers over all cells, not for them alone (91–96% in
 * docs/stats.md); a floor of 89% catches a stop rule that selects on the printed width much more (the gate on a
 * printed half gave 89.5–92.3%, the full-sample interval 86–91%).
 */
function expectHonest(
  d: Design,
  noise: string,
  runs: number,
  truth?: (i: number, u: () => number) => number,
  keepDisturbed?: boolean,
) {
  const s = summarizeCoverage(simulateRuns(d, model(noise), { runs, seed: SEED, truth, keepDisturbed }));
  const tol = (n: number) => 2 * Math.sqrt((0.95 * 0.05) / n);
  expect(s.coverage, `${noise}: coverage`).toBeGreaterThanOrEqual(0.94 - tol(s.cells));
  expect(s.coverage, `${noise}: coverage`).toBeLessThanOrEqual(0.96 + tol(s.cells));
  expect(s.coverageFirst, `${noise}: coverage of the cells that stop first`).toBeGreaterThanOrEqual(0.89);
  if (s.falseVerdicts !== null) {
    expect(s.falseVerdicts, `${noise}: A/A false verdicts`).toBeLessThanOrEqual(0.055 + tol(s.cells));
    // and they are counted at all: 95% intervals give about 5% (a count of 0 would mean the verdict kinds moved)
    expect(s.falseVerdicts, `${noise}: A/A false verdicts`).toBeGreaterThan(0.02);
  }
  // No precision stop prints wider than 1.2× its target (Stein: the printed width is the one it stopped at).
  if (s.printedOver1_2x !== null)
    expect(s.printedOver1_2x, `${noise}: printed > 1.2× target`).toBeLessThanOrEqual(0.01);
  return s;
}

describe("coverage of the shipped adaptive procedure (seeded simulation)", () => {
  it("quick.yaml is what the simulation drives: min 4, ±10%, a fresh instance every round", () => {
    expect(settings).toMatchObject({ min: 4, precisionPct: 10, roundsPerInstance: 1 });
  });

  for (const m of NOISE_MODELS)
    it(`default settings, A/A, ${m.name} (${m.description})`, () => {
      const s = expectHonest({ cells, settings }, m.name, 250);
      // the median rounds of the split-half rule this replaced, at 500 runs (docs/stats.md): 5, 8, 4, 17, 6, 8; for
      // speed switches, those of the shipped rule without the speed check (8 at 1000 runs)
      const before: Record<string, number> = {
        "cells differ": 5,
        "cells alike": 8,
        quiet: 4,
        "very noisy": 17,
        "one-sided stalls": 6,
        "disturbed server": 8,
        "speed switches": 8,
      };
      expect(s.medianRounds).toBeLessThanOrEqual(Math.ceil(before[m.name] * 1.5));
      expect(s.stops.precision ?? 0).toBeGreaterThan(0);
      // the printed width is the one the stop rule read: never over the target
      expect(s.printedMaxRatio).toBeLessThanOrEqual(1 + 1e-9);
    });

  it("default settings, true ratios 90–150: the same coverage (the stop rule reads only widths)", () => {
    expectHonest({ cells, settings }, "cells differ", 300, (_i, u) => Math.log(0.9 + 0.6 * u()));
  });

  it("±5% target, cells differ and quiet", () => {
    expectHonest({ cells, settings: { ...settings, precisionPct: 5 } }, "cells differ", 200);
    expectHonest({ cells, settings: { ...settings, precisionPct: 5 } }, "quiet", 300);
  });

  it("a budget that stops the run after 5 rounds: the open cells keep an honest interval", () => {
    const s = expectHonest({ cells, settings, budgetRounds: 5 }, "cells alike", 300);
    expect(s.stops.budget).toBeGreaterThan(0);
  });

  it("outside work tied to one server: pairs disturbed in both attempts, kept, bias the cells; left out, they do not", () => {
    const d = { cells, settings };
    const bias = (c: readonly SimulatedCell[]) =>
      c.reduce((a, x) => a + Math.log((x.estimate ?? x.truth) / x.truth), 0) / c.length;
    const kept = simulateRuns(d, model("disturbed server"), { runs: 120, seed: SEED, keepDisturbed: true });
    const left = simulateRuns(d, model("disturbed server"), { runs: 120, seed: SEED });
    // 500 runs (docs/stats.md): -1.25% kept, +0.04% left out; a cell's estimate has an se of about 3% here
    expect(bias(kept)).toBeLessThan(-0.008);
    expect(Math.abs(bias(left))).toBeLessThan(0.004);
    // and the kept ones cost rounds: they make the cells look noisier
    expect(summarizeCoverage(left).medianRounds).toBeLessThan(summarizeCoverage(kept).medianRounds);
  });

  it("a change of CPU speed inside a pair: flagged and re-run, the cells need fewer rounds and print narrower", () => {
    const d = { cells, settings, budgetRounds: 5 };
    const checked = summarizeCoverage(simulateRuns(d, model("speed switches"), { runs: 150, seed: SEED }));
    const unchecked = summarizeCoverage(
      simulateRuns(d, model("speed switches"), { runs: 150, seed: SEED, noSpeedCheck: true }),
    );
    // 1000 runs (docs/stats.md): half-width 9.3% against 12.1% at the budget's stop; 5 rounds against 8 without a budget
    expect(checked.medianHalfWidthPct).toBeLessThan(unchecked.medianHalfWidthPct * 0.9);
    expect(checked.stops.precision ?? 0).toBeGreaterThan(unchecked.stops.precision ?? 0);
  });

  it("the record path stops the same cells in the same rounds (adaptiveState over CellRecords)", () => {
    const runs: Array<{ pairs: number[][]; done: Array<[string | undefined, number]> }> = [];
    simulateRuns({ cells, settings }, model("cells differ"), {
      runs: 6,
      seed: SEED,
      onRun: (pairs, state) =>
        runs.push({ pairs: pairs.map((p) => p.map((x) => x.d)), done: state.map((c) => [c.done, c.rounds]) }),
    });
    const ids = quick.workload.tests.flatMap((test) => quick.workload.threads.map((threads) => ({ test, threads })));
    for (const run of runs) {
      const records: CellRecord[] = [];
      let clock = 0;
      run.pairs.forEach((ds, i) =>
        ds.forEach((d, j) => {
          const repeat = j + 1;
          const first = repeat % 2 ? "mariadb" : "mysql";
          for (const server of first === "mariadb" ? ["mariadb", "mysql"] : ["mysql", "mariadb"]) {
            const at = new Date(Date.UTC(2026, 11, 2) + repeat * 3_600_000 + i * 60_000 + clock++ * 1000).toISOString();
            records.push({
              key: `${server}-${i}-${repeat}`,
              server,
              test: ids[i].test,
              threads: ids[i].threads,
              repeat,
              phase: "measure",
              status: "ok",
              metrics: { status: "ok", qps: server === "mariadb" ? 1000 * Math.exp(d) : 1000 } as never,
              raw: "",
              startedAt: at,
              endedAt: at,
              instance: repeat - 1,
            });
          }
        }),
      );
      expect(adaptiveState(quick, records).map((c) => [c.done, c.rounds])).toEqual(run.done);
    }
  });
});
