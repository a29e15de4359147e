/** plan --precision: the prediction from the host's calibration or an assumed one, and its lines. */
import { describe, expect, it } from "vitest";
import { predictPrecision, precisionLines, runSeconds } from "../../../src/core/plan/precision.ts";
import type { Scenario } from "../../../src/core/model/scenario/schema.ts";
import { calibrationFixture } from "../../support/calibration-fixture.ts";
import { scenarioFile, type ScenarioDoc } from "../../support/scenario.ts";

const load = (f: string, sets: (d: ScenarioDoc) => void = () => {}): Scenario => scenarioFile(f, sets);

const cal = calibrationFixture({});

describe("plan --precision", () => {
  const adaptive = (precision: string, budget?: string) =>
    load("scenarios/quick.yaml", (d) => {
      d.workload.repeats = { min: 4, max: 40, precision };
      if (budget) d.workload.budget = budget;
    });

  it("uses the host's calibration and its seconds per pair", () => {
    const s = adaptive("10%");
    const c = cal({ pairSdPct: 8, instanceSdPct: 2, secondsPerPair: 20, cellSeconds: 7 });
    const p = predictPrecision(s, c)!;
    expect(p.source).toBe("calibration");
    expect(p.best).not.toBeNull();
    expect(p.best!.halfWidthPct).toBeLessThanOrEqual(10);
    expect(p.best!.seconds).toBeCloseTo(
      runSeconds(s, p.best!.pairs, p.best!.instances, { secondsPerPair: 20, calCellSeconds: 7 }),
      6,
    );
    const lines = precisionLines(p, c, c.hostKey).join("\n");
    expect(lines).toContain("host calibration test-host");
    expect(lines).toContain(
      `${p.best!.pairs} pairs per cell over ${p.best!.instances} server instance${p.best!.instances === 1 ? "" : "s"}`,
    );
    // The layout is the run's own: instances from the setting, a new one every ceil(min / setting) rounds.
    expect(p.best!.instances).toBe(Math.ceil(p.best!.pairs / Math.ceil(4 / p.best!.setting!)));
    expect(lines).toContain("cell length 7 s");
  });

  it("without a calibration, says what it assumed and suggests calibrate", () => {
    const p = predictPrecision(adaptive("10%"), null)!;
    expect(p.source).toBe("assumed");
    const lines = precisionLines(p, null, "k").join("\n");
    expect(lines).toContain("assumed pair sd 11%");
    expect(lines).toContain("twinbench calibrate");
    // the expected coverage and A/A false verdicts of the printed intervals, from the same simulated runs
    expect(lines).toMatch(
      /expected of the printed 95% intervals \(A\/A, the same 200 simulated runs, \d+ intervals\): coverage \d+\.\d%, false faster\/slower \d+\.\d% per cell/,
    );
    const iv = p.simulated!.intervals;
    expect(lines).toContain(`coverage ${(100 * iv.coverage!).toFixed(1)}%`);
  });

  it("says when the budget cannot reach the target", () => {
    const p = predictPrecision(adaptive("5%", "5m"), cal({ pairSdPct: 11, instanceSdPct: 0 }))!;
    expect(p.best).toBeNull();
    expect(p.overBudget).toBe(true);
    expect(precisionLines(p, null).join("\n")).toContain("cannot be reached within the budget 5m 00s");
  });

  it("gives nothing without a precision target", () => {
    expect(
      predictPrecision(
        load("scenarios/quick.yaml", (d) => {
          d.workload.repeats = 2;
        }),
        cal(),
      ),
    ).toBeNull();
  });

  it("predicts the run by simulating its stopping rule: the time model's costs, more time at more noise", () => {
    const s = adaptive("10%", "15m");
    const quiet = predictPrecision(s, cal({ pairSdPct: 3, instanceSdPct: 0, secondsPerPair: 16, cellSeconds: 7 }), {
      runs: 60,
    })!;
    const noisy = predictPrecision(s, cal({ pairSdPct: 11, instanceSdPct: 3, secondsPerPair: 16, cellSeconds: 7 }), {
      runs: 60,
    })!;
    expect(quiet.simulated).not.toBeNull();
    expect(quiet.simulated!.rounds.median).toBeGreaterThanOrEqual(4); // min 4
    expect(quiet.simulated!.seconds.median).toBeGreaterThanOrEqual(
      runSeconds(s, 4, 2, { secondsPerPair: 16, calCellSeconds: 7 }) - 1e-6,
    );
    expect(noisy.simulated!.seconds.median).toBeGreaterThan(quiet.simulated!.seconds.median);
    expect(noisy.simulated!.seconds.high).toBeLessThanOrEqual(900);
    const lines = precisionLines(noisy, null).join("\n");
    expect(lines).toMatch(/expected run: about \d+m \d+s \(80% of runs/);
    expect(lines).toContain("simulated 60 times");
  });
});
