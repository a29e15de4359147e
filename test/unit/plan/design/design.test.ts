/** The budget-first design (designForBudget) on fixtures: budget, monotonicity, layout, curve, hosts, refusals. */
import { describe, expect, it } from "vitest";
import type { Scenario } from "../../../../src/core/model/scenario/schema.ts";
import { planRun } from "../../../../src/core/plan/plan.ts";
import { designForBudget } from "../../../../src/core/plan/design/design.ts";
import { designLines } from "../../../../src/core/report/design.ts";
import { designOrder } from "../../../../src/core/plan/design/layout.ts";
import { designInstanceSd } from "../../../../src/core/plan/design/noise.ts";
import { calibrationFixture } from "../../../support/calibration-fixture.ts";
import { scenario as scenarioOf, type ScenarioDoc } from "../../../support/scenario.ts";

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
    // the same 0% from 2 df is not trusted (a run once read 0.0% from 2 df, then measured 17.2%): 5% assumed
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
});
