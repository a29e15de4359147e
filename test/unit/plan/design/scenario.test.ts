/** The designed scenario's budget: formatted so the schema parses it back. */
import { describe, expect, it } from "vitest";
import type { Scenario } from "../../../../src/core/model/scenario/schema.ts";
import { designForBudget } from "../../../../src/core/plan/design/design.ts";
import { formatBudget } from "../../../../src/core/plan/design/scenario.ts";
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

describe("formatBudget", () => {
  it("formats budgets the schema parses", () => {
    expect([formatBudget(28800), formatBudget(1800), formatBudget(95)]).toEqual(["8h", "30m", "95s"]);
  });
});
