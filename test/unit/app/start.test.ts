/** Resolving a run request: run --budget --design applies the design's overrides; --design's option rules. */
import { describe, expect, it } from "vitest";
import type { Scenario } from "../../../src/core/model/scenario/schema.ts";
import { planRun } from "../../../src/core/plan/plan.ts";
import { scenario as scenarioOf, type ScenarioDoc } from "../../support/scenario.ts";

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
