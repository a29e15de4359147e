/**
 * A performance gate: a small scenario on real servers through the library, then assertions on the ratio table.
 * A gate fails only when the whole 95% interval lies below the bound.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import type { RunReport } from "twinbench";
import { expectRatio, runBenchmark } from "twinbench/testing";
import { leftovers } from "./leftovers.ts";

let report: RunReport;

beforeAll(async () => {
  ({ report } = await runBenchmark("scenarios/gate.yaml"));
});
afterAll(async () => {
  expect(await leftovers()).toEqual([]);
});

it("passes a reachable gate: MariaDB does at least half of MySQL's point selects", () => {
  expectRatio(report, { test: "oltp_point_select", threads: 1 }).atLeast(50);
});

it("fails an impossible gate, with the estimate and the interval in the message", () => {
  expect(() => expectRatio(report, { test: "oltp_point_select", threads: 1 }).atLeast(1000)).toThrow(
    /mariadb\/mysql qps = \d+\.\d% \[\d+\.\d–\d+\.\d\] \(95% interval, 3 pairs\): significantly below 1000%/,
  );
});
