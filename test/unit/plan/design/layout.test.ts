/** A candidate layout of the budget design: warm-up per cell length, the cells' names and the test order. */
import { describe, expect, it } from "vitest";
import { cellNames, cellsOf, designOrder, warmupFor } from "../../../../src/core/plan/design/layout.ts";
import { scenario } from "../../../support/scenario.ts";

describe("warmupFor", () => {
  it.each([
    [5, 10],
    [10, 10],
    [20, 20],
    [30, 30],
    [120, 30],
  ])("%i s cells → %i s warm-up", (cell, warm) => expect(warmupFor(cell)).toBe(warm));
});

describe("the cells of a scenario", () => {
  const s = scenario((d) => {
    d.workload.tests = ["oltp_read_only", "oltp_update_index"];
    d.workload.threads = [1, 4, 16];
  });
  it("cellsOf counts tests × threads", () => expect(cellsOf(s)).toBe(6));
  it("cellNames: each test's threads in the scenario's order, as test@threads", () =>
    expect(cellNames(s)).toEqual([
      "oltp_read_only@1",
      "oltp_read_only@4",
      "oltp_read_only@16",
      "oltp_update_index@1",
      "oltp_update_index@4",
      "oltp_update_index@16",
    ]));
});

describe("designOrder", () => {
  const tests = ["oltp_read_only", "oltp_update_index", "oltp_point_select", "oltp_write_only"];
  it.each<[string, string | undefined, string[]]>([
    [
      "fresh: per-test puts the write tests first, each group in its order",
      "per-test",
      ["oltp_update_index", "oltp_write_only", "oltp_read_only", "oltp_point_select"],
    ],
    ["otherwise the scenario's order", undefined, tests],
  ])("%s", (_, fresh, want) =>
    expect(
      designOrder(
        scenario((d) => {
          d.workload.tests = tests;
          if (fresh) d.workload.fresh = fresh;
          else delete d.workload.fresh;
        }),
      ),
    ).toEqual(want),
  );
});
