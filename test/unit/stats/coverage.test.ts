/**
 * Issue 23: the shipped adaptive procedure's 95% intervals cover 95% under its own stopping. Seeded simulations of
 * the real estimator (estimateRun, sequential split) and the real stop rule (applyStopRule / stopForBudget), with
 * quick.yaml's own settings, under the noise models of src/core/stats/coverage.ts. docs/stats.md has the full table
 * (bench/coverage.ts). A check that the record path (adaptiveState over CellRecords, through ratioTableFromSides)
 * stops the same cells in the same rounds as the simulation, so the simulation is of the shipped path.
 */
import { describe, expect, it } from "vitest";
import { adaptiveSettings, adaptiveState } from "../../../src/core/plan/adaptive.ts";
import type { CellRecord } from "../../../src/core/model/results.ts";
import { NOISE_MODELS, simulateRuns, summarizeCoverage, type Design } from "../../../src/core/stats/coverage.ts";
import { scenarioFile } from "../../support/scenario.ts";

const SEED = 20261202;
const quick = scenarioFile("scenarios/quick.yaml");
const settings = adaptiveSettings(quick)!;
const cells = quick.workload.tests.length * quick.workload.threads.length;
const model = (name: string) => NOISE_MODELS.find((m) => m.name === name)!;

/**
 * The bar: 94–96% coverage, also for the cells that stop first, and at most 5.5% A/A false verdicts per cell.
 * A simulation of N cells estimates a coverage with a binomial standard error √(0.95·0.05/N) (0.45% at 2400 cells),
 * so each bound is widened by two of those: a seeded run of a procedure whose true coverage is 95.0% must not fail
 * by chance, while today's rule (86–91%) fails by many. docs/stats.md has the figures at 2000 runs.
 */
function expectHonest(d: Design, noise: string, runs: number, truth?: (i: number, u: () => number) => number) {
  const s = summarizeCoverage(simulateRuns(d, model(noise), { runs, seed: SEED, truth }));
  const tol = (n: number) => 2 * Math.sqrt((0.95 * 0.05) / n);
  expect(s.coverage, `${noise}: coverage`).toBeGreaterThanOrEqual(0.94 - tol(s.cells));
  expect(s.coverage, `${noise}: coverage`).toBeLessThanOrEqual(0.96 + tol(s.cells));
  expect(s.coverageFirst, `${noise}: coverage of the cells that stop first`).toBeGreaterThanOrEqual(
    0.94 - tol(s.firstCells),
  );
  expect(s.coverageFirst, `${noise}: coverage of the cells that stop first`).toBeLessThanOrEqual(
    0.96 + tol(s.firstCells),
  );
  if (s.falseVerdicts !== null) {
    expect(s.falseVerdicts, `${noise}: A/A false verdicts`).toBeLessThanOrEqual(0.055 + tol(s.cells));
    // and they are counted at all: 95% intervals give about 5% (a count of 0 would mean the verdict kinds moved)
    expect(s.falseVerdicts, `${noise}: A/A false verdicts`).toBeGreaterThan(0.02);
  }
  return s;
}

describe("coverage of the shipped adaptive procedure (seeded simulation)", () => {
  it("quick.yaml is what the simulation drives: min 4, ±10%, a fresh instance every round", () => {
    expect(settings).toMatchObject({ min: 4, precisionPct: 10, roundsPerInstance: 1 });
  });

  for (const m of NOISE_MODELS)
    it(`default settings, A/A, ${m.name} (${m.description})`, () => {
      const s = expectHonest({ cells, settings }, m.name, 400);
      // what honesty costs: today's rule stopped at a median of 4 rounds in the table; at most 2× that
      if (m.name === "cells differ") expect(s.medianRounds).toBeLessThanOrEqual(8);
      expect(s.stops.precision ?? 0).toBeGreaterThan(0);
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

  it("counts the precision stops whose printed interval is wider than 2× the target (the report labels them)", () => {
    // The shipped rule lets the stop half alone decide: about 1 precision stop in 6 prints more than 2× the target
    // (docs/stats.md). A gate at 2× the target removes nearly all of them, at a cost in coverage (docs/stats.md).
    const shipped = summarizeCoverage(
      simulateRuns({ cells, settings }, model("cells differ"), { runs: 150, seed: SEED }),
    );
    const gated = summarizeCoverage(
      simulateRuns({ cells, settings: { ...settings, printedFactor: 2 } }, model("cells differ"), {
        runs: 150,
        seed: SEED,
      }),
    );
    expect(shipped.printedOver2x).toBeGreaterThan(0.08);
    expect(shipped.printedOverTarget!).toBeGreaterThan(shipped.printedOver2x!);
    expect(gated.printedOver2x).toBeLessThan(0.05);
    // a fixed count has no precision stop
    expect(
      summarizeCoverage(simulateRuns({ cells, settings, fixedRounds: 4 }, model("quiet"), { runs: 20, seed: SEED }))
        .printedOver2x,
    ).toBeNull();
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
