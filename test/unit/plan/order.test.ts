/** The order of servers within a cell group (serverOrder), by group index. */
import { describe, expect, it } from "vitest";
import { planRun } from "../../../src/core/plan/plan.ts";
import { serverOrder } from "../../../src/core/plan/order.ts";
import type { Scenario } from "../../../src/core/model/scenario/schema.ts";
import { scenario as scenarioOf, type ScenarioDoc } from "../../support/scenario.ts";

const BASE = {
  workload: {
    tests: ["oltp_read_only", "oltp_update_index"],
    threads: [1, 4],
    duration: "10s",
    repeats: 2,
    tables: 2,
    tableSize: 10000,
  },
};
const scenario = (patch: (d: ScenarioDoc) => void = () => {}): Scenario => scenarioOf([BASE, patch]);
const order = (s: Scenario) => planRun(s).cells.map((c) => `${c.server}:${c.test}:${c.threads}:${c.repeat}`);

describe("serverOrder", () => {
  const cases: Array<[string[], number, string[]]> = [
    [["a", "b"], 0, ["a", "b"]],
    [["a", "b"], 1, ["b", "a"]],
    [["a", "b"], 2, ["a", "b"]],
    [["a", "b", "c"], 1, ["b", "c", "a"]],
    // n = 3: a Williams design of 6 rows, the square then its mirror (balanced carry-over as well as position).
    [["a", "b", "c"], 3, ["c", "b", "a"]],
    [["a", "b", "c"], 6, ["a", "b", "c"]],
    [["a"], 5, ["a"]],
  ];
  it.each(cases)("%j, group %i → %j", (servers, k, expected) => expect(serverOrder(servers, k)).toEqual(expected));
});
