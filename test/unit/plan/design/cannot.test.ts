/** What the budget design cannot reach, and why: the refusal lines and their ± figures. */
import { describe, expect, it } from "vitest";
import { pct } from "../../../../src/core/plan/design/cannot.ts";
import type { Scenario } from "../../../../src/core/model/scenario/schema.ts";
import { designForBudget } from "../../../../src/core/plan/design/design.ts";
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

describe("cannotReach", () => {
  const s = scenario();

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
});

describe("pct", () => {
  it.each([
    [5, "±5.0%"],
    [2.345, "±2.3%"],
    [0, "±0.0%"],
    [Number.POSITIVE_INFINITY, "±∞"],
    [Number.NaN, "±∞"],
  ])("%d → %s", (x, text) => expect(pct(x)).toBe(text));
});
