/** Calibrate's layout with --lengths: one A/A run per cell length, and the option's parsing. */
import { describe, expect, it } from "vitest";
import { CURVE_PAIRS, calibrationLayout, curveScenario } from "../../../src/core/plan/calibrate-layout.ts";
import { planRun } from "../../../src/core/plan/plan.ts";
import { parseLengths } from "../../../src/cli/commands/calibrate.ts";
import { scenarioFile } from "../../support/scenario.ts";

const quick = scenarioFile("scenarios/quick.yaml");

describe("calibrate's layout with --lengths", () => {
  it("one A/A run per length, CURVE_PAIRS pairs at that cell length, inside the estimate", () => {
    const base = calibrationLayout(quick, 3600);
    const l = calibrationLayout(quick, 3600, { lengths: [30, 10, 90, 10] });
    expect(base.curve).toEqual([]);
    expect(l.curve.map((c) => c.cellSeconds)).toEqual([10, 30, 90]);
    expect(l.curve.every((c) => c.repeats === CURVE_PAIRS)).toBe(true);
    expect(l.curve.at(-1)!.cells).toBe(1); // long cells on one cell
    const s = curveScenario(quick, 30, 2);
    expect(s.workload.duration).toBe("30s");
    expect(s.workload.repeats).toBe(CURVE_PAIRS);
    expect(planRun(s).cells).toHaveLength(2 * 2 * CURVE_PAIRS);
    const curveSeconds = l.curve.reduce((a, c) => a + c.runSeconds, 0);
    expect(curveSeconds).toBeGreaterThan(4 * 2 * 90); // the 90 s run alone measures 8 cells of 90 s
    expect(l.estimateSeconds).toBeLessThanOrEqual(3600);
    expect(l.estimateSeconds).toBeGreaterThanOrEqual(curveSeconds);
  });

  it("--lengths takes whole seconds from 2, comma-separated", () => {
    expect(parseLengths("10,30,90")).toEqual([10, 30, 90]);
    expect(parseLengths(undefined)).toBeUndefined();
    for (const bad of ["10,x", "1", "", "10,,30", "2.5"]) expect(() => parseLengths(bad)).toThrow(/--lengths/);
  });
});
