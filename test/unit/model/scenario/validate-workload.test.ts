/** The workload checks: tests, thread counts, duration or events, repeats (fixed or adaptive), budget, instances, the report margin. */
import { describe, expect, it } from "vitest";
import {
  VALIDATION_FILE as F,
  validationErrors,
  validationWarnings,
  type ScenarioDoc,
} from "../../../support/scenario.ts";

describe("validate-workload: errors, one case per rule", () => {
  const cases: Array<[string, (d: ScenarioDoc) => void, string]> = [
    [
      "adaptive repeats: min above max",
      (d) => (d.workload.repeats = { min: 5, max: 4, precision: "3%" }),
      `${F}: workload.repeats.min: min 5 is above max 4`,
    ],
    [
      "adaptive repeats: precision 0",
      (d) => (d.workload.repeats = { min: 4, max: 40, precision: "0%" }),
      `${F}: workload.repeats.precision: expected a precision above 0%, got "0%"`,
    ],
    [
      "adaptive repeats: negative precision",
      (d) => (d.workload.repeats = { min: 4, max: 40, precision: -2 }),
      `${F}: workload.repeats.precision: expected a precision above 0%, got -2`,
    ],
    [
      "budget shorter than one round",
      (d) => ((d.workload.repeats = { min: 4, max: 40, precision: "3%" }), (d.workload.budget = "30s")),
      `${F}: workload.budget: "30s" is shorter than one round (1 tests × 3 thread counts × 2 servers × 11 s = 66 s)`,
    ],
    [
      "more instances than repeats",
      (d) => ((d.workload.instances = 3), (d.workload.repeats = 2)),
      `${F}: workload.instances: 3 instances need at least 3 repeats (one pair per instance), got repeats 2`,
    ],
    [
      "report margin 0",
      (d) => (d.report = { margin: "0%" }),
      `${F}: report.margin: expected a margin above 0% and below 100%, got "0%"`,
    ],
    [
      "unknown test",
      (d) => (d.workload.tests = ["oltp_red_only"]),
      `${F}: workload.tests.0: unknown test "oltp_red_only": expected a sysbench 1.0.20 script (oltp_delete, oltp_insert, oltp_point_select, oltp_read_only, oltp_read_write, oltp_update_index, oltp_update_non_index, oltp_write_only, select_random_points, select_random_ranges, bulk_insert), a legacy name (delete, insert, oltp_complex_ro, oltp_complex_rw, oltp_simple, select, update_index, update_non_index) or your own script as { script: FILE.lua, writes: true|false }; did you mean "oltp_read_only"?`,
    ],
    [
      "duplicate test",
      (d) => (d.workload.tests = ["oltp_read_only", "oltp_read_only"]),
      `${F}: workload.tests.1: duplicate test "oltp_read_only" (already workload.tests.0)`,
    ],
    [
      "duplicate threads",
      (d) => (d.workload.threads = [1, 4, 1]),
      `${F}: workload.threads.2: duplicate thread count 1 (already workload.threads.0)`,
    ],
    [
      "neither duration nor events",
      (d) => delete d.workload.duration,
      `${F}: workload: expected duration or events, got neither`,
    ],
    [
      "zero duration without events",
      (d) => (d.workload.duration = "0s"),
      `${F}: workload: expected duration or events, got duration "0s"`,
    ],
    [
      "both duration and events",
      (d) => (d.workload.events = 1000),
      `${F}: workload.events: give duration or events, not both (got duration "10s" and events 1000); with events sysbench runs with --time=0`,
    ],
  ];
  it.each(cases)("%s", (_name, mut, expected) => {
    expect(validationErrors(mut)).toContain(expected);
  });
});

describe("validate-workload: warnings", () => {
  const cases: Array<[string, (d: ScenarioDoc) => void, string]> = [
    [
      "inexact legacy test",
      (d) => (d.workload.tests = ["oltp_simple"]),
      `${F}: workload.tests.0: legacy test "oltp_simple" runs as oltp_point_select, not exactly: 1.0.20 oltp_point_select runs a prepared SELECT c FROM sbtestN WHERE id=? (as the 2010 trunk script did); 0.5's oltp_simple sent it as a text query: set workload.sysbench.db-ps-mode: disable to mimic 0.5`,
    ],
    [
      "per-test without write tests",
      (d) => (d.workload.fresh = "per-test"),
      `${F}: workload.fresh: per-test restores the data before write tests, and none of workload.tests writes`,
    ],
  ];
  it.each(cases)("%s", (_name, mut, expected) => {
    expect(validationWarnings(mut)).toContain(expected);
  });
});
