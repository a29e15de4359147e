/** Calibrate's derived scenarios (the A/A pair and the one-server series) and its layout within its time. */
import { describe, expect, it } from "vitest";
import { aaScenario, calibrationLayout, seriesScenario } from "../../../src/core/plan/calibrate-layout.ts";
import { planRun } from "../../../src/core/plan/plan.ts";
import type { Scenario } from "../../../src/core/model/scenario/schema.ts";
import { scenarioFile, type ScenarioDoc } from "../../support/scenario.ts";

const load = (f: string, sets: (d: ScenarioDoc) => void = () => {}): Scenario => scenarioFile(f, sets);

describe("calibrate's scenarios and layout", () => {
  const quick = load("scenarios/quick.yaml");

  it("derives an A/A scenario of the first server against itself on at most 2 cells", () => {
    const aa = aaScenario(quick, 5);
    expect(aa.servers.map((s) => [s.id, s.image])).toEqual([
      ["a", "mariadb-11.8"],
      ["b", "mariadb-11.8"],
    ]);
    expect(aa.compare).toEqual({ numerator: "a", denominator: "b" });
    expect(aa.workload.tests).toEqual(["oltp_read_only", "oltp_point_select"]);
    expect(aa.workload.threads).toEqual([1]);
    expect(aa.workload.repeats).toBe(5);
    for (const k of ["duration", "warmup", "tables", "tableSize"] as const)
      expect(aa.workload[k]).toEqual(quick.workload[k]);
    expect(aa.storage).toEqual(quick.storage);
    expect(aa.resources).toEqual(quick.resources);
    expect(aa.load).toEqual(quick.load);
    expect(planRun(aa).cells).toHaveLength(20);
    const oneTest = aaScenario({ ...quick, workload: { ...quick.workload, tests: ["oltp_point_select"] } }, 2);
    expect(oneTest.workload.threads).toEqual([1, 4]);
  });

  it("derives a one-server series scenario", () => {
    const s = seriesScenario(quick, 90);
    expect(s.servers).toHaveLength(1);
    expect(s.workload.duration).toBe("90s");
    expect(planRun(s).cells).toHaveLength(1);
  });

  it("lays calibrate out within its time by the plan's model", () => {
    const l = calibrationLayout(quick, 600);
    expect(l.fits).toBe(true);
    expect(l.estimateSeconds).toBeLessThanOrEqual(600);
    expect(l.seriesSeconds).toBe(90);
    expect(l.instances).toBe(3);
    expect(l.repeats * l.cells * l.instances).toBeGreaterThanOrEqual(12);
    const tiny = calibrationLayout(quick, 60);
    expect(tiny.fits).toBe(false);
    expect(tiny.repeats).toBe(2);
  });
});
