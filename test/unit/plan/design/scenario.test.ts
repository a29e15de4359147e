/** The designed scenario's budget: formatted so the schema parses it back. */
import { describe, expect, it } from "vitest";
import { formatBudget } from "../../../../src/core/plan/design/scenario.ts";

describe("formatBudget", () => {
  it("formats budgets the schema parses", () => {
    expect([formatBudget(28800), formatBudget(1800), formatBudget(95)]).toEqual(["8h", "30m", "95s"]);
  });
});
