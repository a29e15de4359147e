/** The budget-first design (issue 28, src/core/plan/design/) on fixtures; `plan --budget` through commander. */
import { readFileSync } from "node:fs";
import { Command } from "commander";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import type { Scenario } from "../../../src/core/model/scenario/schema.ts";
import { planRun } from "../../../src/core/plan/plan.ts";
import { designForBudget } from "../../../src/core/plan/design/design.ts";
import { designLines } from "../../../src/core/report/design.ts";
import { formatBudget } from "../../../src/core/plan/design/scenario.ts";
import { designOrder } from "../../../src/core/plan/design/layout.ts";
import {
  ar1MeanFactor,
  fitCurve,
  designInstanceSd,
  pairSdAtLength,
  seriesVariance,
  NOTES_SERIES,
  ASSUMED_PAIR_CELL_SECONDS,
} from "../../../src/core/plan/design/noise.ts";
import { ASSUMED_PAIR_SD_PCT } from "../../../src/core/plan/calibration/prediction.ts";
import { registerScenarioCommands } from "../../../src/cli/commands/scenario.ts";
import { calibrationFixture } from "../../support/calibration-fixture.ts";
import { scenario as scenarioOf, type ScenarioDoc } from "../../support/scenario.ts";

const ctx = { lockImages: ["mariadb-11.8", "mysql-9.7", "sysbench-1.0"], hostCpus: 2 };

/** 2 tests × 3 thread counts: the reduced run. */
const REDUCED = {
  workload: {
    tests: ["oltp_read_only", "oltp_update_index"],
    threads: [1, 2, 4],
    duration: "10s",
    repeats: 1,
    tables: 1,
    tableSize: 10000,
    fresh: "per-test",
  },
};
const scenario = (patch: (d: ScenarioDoc) => void = () => {}): Scenario => scenarioOf([REDUCED, patch]);

const cal = calibrationFixture({ cellSeconds: 10, instanceSdPct: 5, instanceDf: 4, secondsPerPair: null });

const FAST = { runs: 40 };

describe("pair sd against cell length", () => {
  it("the AR(1) variance factor of a mean: 1 at one second, 1/L for white noise, above 1/L when correlated", () => {
    expect(ar1MeanFactor(0.77, 1)).toBeCloseTo(1, 12);
    expect(ar1MeanFactor(0, 20)).toBeCloseTo(1 / 20, 12);
    expect(ar1MeanFactor(0.77, 20)).toBeGreaterThan(1 / 20);
    // Direct sum: var(mean) = (1/L²) Σ_i Σ_j φ^|i−j|.
    let sum = 0;
    for (let i = 0; i < 20; i++) for (let j = 0; j < 20; j++) sum += 0.77 ** Math.abs(i - j);
    expect(ar1MeanFactor(0.77, 20)).toBeCloseTo(sum / 400, 10);
  });

  it("the series model holds the per-second CV and the block CV it was fitted to", () => {
    const v = seriesVariance({ lag1: 0.77, cvPct: 18.3, blockSeconds: 20, blockCvPct: 11.1 });
    expect(Math.sqrt(v(1)) * 100).toBeCloseTo(18.3, 6);
    expect(Math.sqrt(v(20)) * 100).toBeCloseTo(11.1, 6);
    expect(v(300)).toBeLessThan(v(20)); // longer cells help, but a slow level stays
    expect(v(3000)).toBeGreaterThan(0.0005);
  });

  it("no calibration: the notes' model, scaled to the assumed pair sd at 6 s cells", () => {
    const p = pairSdAtLength(null);
    expect(p.source).toBe("notes");
    expect(p.at(ASSUMED_PAIR_CELL_SECONDS)).toBeCloseTo(ASSUMED_PAIR_SD_PCT, 10);
    expect(p.at(30)).toBeLessThan(p.at(10));
    expect(p.note).toContain(`lag-1 autocorrelation ${NOTES_SERIES.lag1}`);
  });

  it("the host's own series when the calibration has one, anchored at its pair sd and cell length", () => {
    const p = pairSdAtLength(
      cal({
        perSecond: {
          seconds: 90,
          cvPct: 10,
          autocorr: [0.5, 0.3],
          blocks: [{ seconds: 10, cvPct: 5, whiteNoiseCvPct: 3.2 }],
        },
      }),
    );
    expect(p.source).toBe("host series");
    expect(p.at(10)).toBeCloseTo(10, 10);
    expect(p.note).toContain("this host's per-second series");
  });

  it("the curve when there is one: a power law fitted to its points (weighted by df), flat past the longest", () => {
    // Points on an exact power law, sd = 24 · L^−0.3: the fit goes through them.
    const law = (L: number) => 24 * L ** -0.3;
    const curve = [
      { cellSeconds: 10, pairSdPct: law(10), pairDf: 6 },
      { cellSeconds: 90, pairSdPct: law(90), pairDf: 3 },
      { cellSeconds: 30, pairSdPct: law(30), pairDf: 6 },
    ];
    const p = pairSdAtLength(cal({ cellLengthCurve: curve }));
    expect(p.source).toBe("curve");
    expect(fitCurve(curve).slope).toBeCloseTo(0.3, 10);
    expect(p.at(10)).toBeCloseTo(law(10), 8);
    expect(p.at(45)).toBeCloseTo(law(45), 8);
    expect(p.at(5)).toBeCloseTo(law(5), 8); // the law goes on below the shortest length, flat past the longest
    expect(p.at(300)).toBeCloseTo(law(90), 8);
    expect(p.note).toContain("fitted as pair sd ∝ length^−0.30");
  });

  it("the fit weighs points by df and holds the slope to 0–0.5 (2026-12-06's curve fell faster than white noise at 6 df)", () => {
    // 2026-12-06, this VM: 7 s 5.0% (df 21), 10 s 3.2% (6), 30 s 2.6% (6), 90 s 2.0% (3).
    const today = [
      { cellSeconds: 7, pairSdPct: 4.98, pairDf: 21 },
      { cellSeconds: 10, pairSdPct: 3.19, pairDf: 6 },
      { cellSeconds: 30, pairSdPct: 2.55, pairDf: 6 },
      { cellSeconds: 90, pairSdPct: 2.01, pairDf: 3 },
    ];
    const f = fitCurve(today);
    expect(f.slope).toBeGreaterThan(0.3);
    expect(f.slope).toBeLessThan(0.45);
    expect(f.at(7)).toBeLessThan(4.98); // the df-21 point pulls hardest, but the others lower it
    expect(f.at(10) / f.at(7)).toBeGreaterThan(Math.sqrt(7 / 10)); // never faster than white noise
    // A curve that rises with length, or one that falls faster than white noise: slope 0, or 0.5.
    expect(
      fitCurve([
        { cellSeconds: 7, pairSdPct: 5.8, pairDf: 3 },
        { cellSeconds: 10, pairSdPct: 8.7, pairDf: 6 },
      ]).slope,
    ).toBe(0);
    expect(
      fitCurve([
        { cellSeconds: 10, pairSdPct: 20, pairDf: 6 },
        { cellSeconds: 90, pairSdPct: 1, pairDf: 6 },
      ]).slope,
    ).toBe(0.5);
  });
});

describe("designForBudget", () => {
  const s = scenario();

  it("respects the budget: the plan of the designed scenario fits in it", () => {
    for (const b of [20 * 60, 30 * 60, 2 * 3600]) {
      const d = designForBudget({ scenario: s, budgetSeconds: b, calibration: cal(), ...FAST });
      expect(d.chosen.seconds).toBeLessThanOrEqual(b);
      expect(planRun(d.scenario).estimate.totalSeconds).toBeLessThanOrEqual(b);
      expect(d.plannedSeconds).toBeCloseTo(d.chosen.seconds, 6); // the affine cost model is the plan's own
      // The budget buys as much as fits: one more instance would not.
      expect(
        d.chosen.seconds +
          (d.chosen.seconds -
            planRun({
              ...d.scenario,
              workload: {
                ...d.scenario.workload,
                repeats: d.chosen.rounds - d.chosen.roundsPerInstance,
                instances: d.chosen.instances - 1,
              },
            }).estimate.totalSeconds),
      ).toBeGreaterThan(b);
    }
  });

  it("is monotone in the budget: more time never widens the expected interval", () => {
    const widths = [15, 20, 30, 45, 60, 120, 240].map(
      (m) => designForBudget({ scenario: s, budgetSeconds: m * 60, calibration: cal(), ...FAST }).chosen.halfWidthPct,
    );
    for (let i = 1; i < widths.length; i++) expect(widths[i]).toBeLessThanOrEqual(widths[i - 1] + 1e-9);
    expect(widths.at(-1)!).toBeLessThan(widths[0]);
  });

  it("prefers a fresh instance every round when the instance level dominates, and several rounds per instance when it is absent", () => {
    const inst = designForBudget({
      scenario: s,
      budgetSeconds: 3600,
      calibration: cal({ pairSdPct: 2, instanceSdPct: 15 }),
      ...FAST,
    });
    expect(inst.chosen.roundsPerInstance).toBe(1);
    expect(inst.chosen.instances).toBe(inst.chosen.rounds);
    const pairOnly = designForBudget({
      scenario: s,
      budgetSeconds: 3600,
      calibration: cal({ pairSdPct: 10, instanceSdPct: 0, instanceDf: 20 }),
      ...FAST,
    });
    expect(pairOnly.chosen.roundsPerInstance).toBeGreaterThan(1);
    expect(pairOnly.chosen.rounds).toBeGreaterThan(inst.chosen.rounds);
    // the same 0% from 2 df is not trusted (2026-12-03: 0.0% from 2 df, then 17.2% measured by the run): 5% assumed
    const thin = designForBudget({
      scenario: s,
      budgetSeconds: 3600,
      calibration: cal({ pairSdPct: 10, instanceSdPct: 0, instanceDf: 2 }),
      ...FAST,
    });
    expect(thin.noise.instanceSdPct).toBe(5);
    expect(thin.chosen.roundsPerInstance).toBeLessThan(pairOnly.chosen.roundsPerInstance);
    expect(designLines(thin).join("\n")).toContain("the calibration's 0.0% rests on 2 df (fewer than 10): 5% assumed");
    expect(designInstanceSd({ instanceSdPct: 12, instanceDf: 2, pairSdPct: 5 })).toEqual({ pct: 12, note: null }); // large is believed
    expect(designInstanceSd({ instanceSdPct: null, instanceDf: 0, pairSdPct: 5.3 }).pct).toBe(5);
    // A pair sd from runs with a fresh instance each round holds both levels: split evenly, not 5% added on top.
    const both = designInstanceSd({ instanceSdPct: null, instanceDf: 0, pairSdPct: 5.3, pairHoldsInstances: true });
    expect(both.pct).toBeCloseTo(5.3 / Math.SQRT2, 10);
    expect(both.note).toMatch(/holds both levels .* split evenly, 3\.7% each/);
    expect(designInstanceSd({ instanceSdPct: 1, instanceDf: 30, pairSdPct: 5 })).toEqual({ pct: 1, note: null });
  });

  it("groups the write tests first so that each new instance's fresh data serves one of them: fewer restores", () => {
    const readFirst = scenario(
      (d) => (d.workload.tests = ["oltp_read_only", "oltp_update_index", "oltp_point_select", "oltp_delete"]),
    );
    expect(designOrder(readFirst)).toEqual(["oltp_update_index", "oltp_delete", "oltp_read_only", "oltp_point_select"]);
    const d = designForBudget({ scenario: readFirst, budgetSeconds: 3600, calibration: cal(), ...FAST });
    expect(d.restoresSaved).toBeGreaterThan(0);
    const asWritten = planRun({ ...d.scenario, workload: { ...d.scenario.workload, tests: readFirst.workload.tests } });
    expect(planRun(d.scenario).restores.length).toBe(d.restores);
    expect(d.restores).toBeLessThan(asWritten.restores.length);
    // Without fresh: per-test there is nothing to restore and the order stays the scenario's.
    const plain = scenario((d) => (d.workload.fresh = "per-server"));
    expect(designOrder(plain)).toEqual(plain.workload.tests);
  });

  it("follows the curve: a host whose noise falls with length (as white noise's, the steepest the fit allows) gets longer cells", () => {
    const flat = designForBudget({
      scenario: s,
      budgetSeconds: 2 * 3600,
      calibration: cal({
        cellLengthCurve: [
          { cellSeconds: 10, pairSdPct: 10, pairDf: 6 },
          { cellSeconds: 90, pairSdPct: 10, pairDf: 6 },
        ],
      }),
      ...FAST,
    });
    const falls = designForBudget({
      scenario: s,
      budgetSeconds: 2 * 3600,
      calibration: cal({
        instanceSdPct: 0.5,
        instanceDf: 20,
        cellLengthCurve: [
          { cellSeconds: 10, pairSdPct: 20, pairDf: 6 },
          { cellSeconds: 90, pairSdPct: 1, pairDf: 6 },
        ],
      }),
      ...FAST,
    });
    expect(flat.noise.source).toBe("curve");
    expect(flat.chosen.cellSeconds).toBe(5); // no gain from length: the shortest cells, the most rounds
    expect(falls.chosen.cellSeconds).toBeGreaterThanOrEqual(10);
    expect(falls.byLength.find((x) => x.cellSeconds === 5)!.halfWidthPct).toBeGreaterThan(falls.chosen.halfWidthPct);
    expect(designLines(falls).join("\n")).toContain("the calibration's curve");
  });

  it("with --precision on one host: an adaptive design with the budget, its overrides valid for the scenario", () => {
    const d = designForBudget({ scenario: s, budgetSeconds: 1800, calibration: cal(), precisionPct: 5, ...FAST });
    expect(d.mode).toBe("adaptive");
    expect(d.scenario.workload.repeats).toMatchObject({ min: 4, precision: "5%" });
    expect(d.scenario.workload.budget).toBe("30m");
    expect(d.overrides).toContain("workload.budget=30m");
    expect(d.simulated.seconds.high).toBeLessThanOrEqual(1800);
    expect(d.simulated.coverage).toBeGreaterThan(0.85);
  });

  it("several hosts shard the rounds: the same design takes less time, the budget buys more rounds, and a fixed count", () => {
    const one = designForBudget({ scenario: s, budgetSeconds: 3600, calibration: cal(), ...FAST });
    const two = designForBudget({
      scenario: s,
      budgetSeconds: 3600,
      calibration: cal(),
      hosts: 2,
      precisionPct: 5,
      ...FAST,
    });
    expect(two.mode).toBe("fixed"); // adaptive runs are one host only (assertRunnable)
    expect(two.overrides).toContain("shard=true");
    expect(two.chosen.rounds).toBeGreaterThan(one.chosen.rounds);
    expect(one.hostsForecast.map((h) => h.hosts)).toEqual([1, 2, 4]);
    expect(one.hostsForecast[1].seconds).toBeLessThan(one.hostsForecast[0].seconds);
    expect(one.hostsForecast[1].rounds).toBeGreaterThan(one.hostsForecast[0].rounds);
    expect(one.hostsForecast[0].seconds).toBeCloseTo(one.plannedSeconds, 6);
  });

  it("says why when the budget cannot buy ±5%", () => {
    const d = designForBudget({
      scenario: s,
      budgetSeconds: 15 * 60,
      calibration: cal({ pairSdPct: 25, instanceSdPct: 10 }),
      ...FAST,
    });
    expect(d.chosen.halfWidthPct).toBeGreaterThan(5);
    expect(d.cannot.join("\n")).toMatch(
      /no cell is expected within ±5%: at pair sd .* buys \d+ rounds .*; ±5% needs about \d+ rounds/,
    );
  });

  it("formats budgets the schema parses", () => {
    expect([formatBudget(28800), formatBudget(1800), formatBudget(95)]).toEqual(["8h", "30m", "95s"]);
  });
});

describe("plan scenarios/seed-verdicts.yaml --budget 8h", () => {
  it("prints a design with the time per phase and what cannot reach ±5%; its overrides make a valid scenario", async () => {
    const out: string[] = [];
    const program = new Command("twinbench").exitOverride();
    registerScenarioCommands(program, {
      out: (l) => out.push(l),
      err: (l) => out.push(`ERR ${l}`),
      loadLockImages: async () => ctx.lockImages,
      loadPins: async () => [],
      renderTranslations: async () => ({}),
      hostCpus: () => 2,
      loadCalibration: async () => ({ key: "k", calibration: null }),
    });
    await program.parseAsync(["plan", "scenarios/seed-verdicts.yaml", "--budget", "8h"], { from: "user" });
    const text = out.join("\n");
    expect(text).toMatch(/Design for a budget of 8h 00m/);
    expect(text).toMatch(/design: \d+ s cells, \d+ s warm-up, \d+ rounds on \d+ server instances/);
    expect(text).toContain("noise: pair sd from a model from the notes' figures");
    expect(text).toMatch(/time per phase[\s\S]*measure \(\d+ cells × \d+ s\)[\s\S]*total: \d+h \d+m of 8h 00m/);
    expect(text).toMatch(/coverage of the 95% intervals \d+\.\d%/);
    expect(text).toMatch(/cells that cannot reach ±5%, and why:|every cell is expected within ±5%/);
    expect(text).toMatch(/hosts: 1 host: .*; 2 hosts: .*; 4 hosts: /);
    const sets = [...text.matchAll(/--set '([^']+)'/g)].map((m) => m[1]);
    expect(sets.length).toBeGreaterThanOrEqual(5);
    // The printed overrides applied to the seeds' procedure give a valid scenario that fits the budget.
    const seed = parse(readFileSync("scenarios/seed-mariadb-vs-mysql.yaml", "utf8"));
    const { loadScenarioText } = await import("../../../src/adapters/scenario-file.ts");
    const r = loadScenarioText(readFileSync("scenarios/seed-mariadb-vs-mysql.yaml", "utf8"), "seed.yaml", {
      sets,
      lockImages: ctx.lockImages,
      hostCpus: 2,
    });
    expect(seed.workload.duration).toBe("300s"); // the seeds' file stays the seeds' procedure
    expect(planRun(r.scenario).estimate.totalSeconds).toBeLessThanOrEqual(8 * 3600);
  }, 60_000);
});

describe("run --budget --design (resolveRunRequest)", () => {
  it("applies the design's settings as overrides after the user's, and prints the design", async () => {
    const { resolveRunRequest } = await import("../../../src/app/start.ts");
    const lines: string[] = [];
    const r = await resolveRunRequest({
      file: "scenarios/seed-verdicts.yaml",
      sets: ["workload.threads=[1, 4, 8]", "workload.tests=[oltp_simple, update_index]"],
      budget: "30m",
      design: { calibration: async () => null, log: (l) => lines.push(l) },
    });
    expect(lines.join("\n")).toMatch(/design: \d+ s cells/);
    expect(r.adaptive).toContain("workload.tests=[update_index, oltp_simple]"); // the write test first
    expect(r.scenario.workload.threads).toEqual([1, 4, 8]);
    expect(r.scenario.workload.tests).toEqual(["update_index", "oltp_simple"]);
    expect(planRun(r.scenario).estimate.totalSeconds).toBeLessThanOrEqual(1800);
    const withPrecision = await resolveRunRequest({
      file: "scenarios/seed-verdicts.yaml",
      sets: ["workload.threads=[1, 4, 8]", "workload.tests=[oltp_simple, update_index]"],
      budget: "30m",
      precision: "5%",
      design: { calibration: async () => null, log: () => {} },
    });
    expect(withPrecision.scenario.workload.repeats).toMatchObject({ min: 4, precision: "5%" });
    expect(withPrecision.scenario.workload.budget).toBe("30m");
  }, 60_000);

  it("--design needs --budget, and does not go with --resume", async () => {
    const { resolveRunRequest } = await import("../../../src/app/start.ts");
    await expect(
      resolveRunRequest({
        file: "scenarios/seed-verdicts.yaml",
        sets: [],
        design: { calibration: async () => null, log: () => {} },
      }),
    ).rejects.toMatchObject({ code: "DESIGN_OPTIONS" });
    await expect(
      resolveRunRequest({
        file: "x",
        sets: [],
        resume: "results/x",
        design: { calibration: async () => null, log: () => {} },
      }),
    ).rejects.toMatchObject({ code: "RESUME_OPTIONS" });
  });
});
