/** The shape of a scenario (zod), each problem as one line naming the field and the value, with a suggestion where a close name exists. */
import { describe, expect, it } from "vitest";
import { VALIDATION_FILE as F, validationErrors, type ScenarioDoc } from "../../../support/scenario.ts";

describe("validate-zod: errors, one case per rule", () => {
  const cases: Array<[string, (d: ScenarioDoc) => void, string]> = [
    [
      "type error shows the value",
      (d) => (d.workload.threads = [1, 2, "8x"]),
      `${F}: workload.threads.2: expected an integer from 1 to 4096, got "8x"`,
    ],
    [
      "zero threads",
      (d) => (d.workload.threads = [0]),
      `${F}: workload.threads.0: expected an integer from 1 to 4096, got 0`,
    ],
    [
      "fractional tables",
      (d) => (d.workload.tables = 1.5),
      `${F}: workload.tables: expected an integer from 1 to 1024, got 1.5`,
    ],
    [
      "unknown key, did you mean",
      (d) => (d.workload.tabels = 3),
      `${F}: workload.tabels: unknown key; did you mean "tables"?`,
    ],
    ["unknown top-level key", (d) => (d.ordr = "grouped"), `${F}: ordr: unknown key; did you mean "order"?`],
    ["unknown key, nothing close", (d) => (d.zzzzzzzz = 1), `${F}: zzzzzzzz: unknown key`],
    [
      "missing required key",
      (d) => delete d.workload.tests,
      `${F}: workload.tests: required key missing (expected a list)`,
    ],
    [
      "order enum",
      (d) => (d.order = "grouped2"),
      `${F}: order: expected one of "interleaved", "grouped", "randomized", got "grouped2"; did you mean "grouped"?`,
    ],
    [
      "adaptive repeats: precision syntax",
      (d) => (d.workload.repeats = { min: 4, max: 40, precision: "3 percent" }),
      `${F}: workload.repeats.precision: expected a percentage like "3%" or a number, got "3 percent"`,
    ],
    ["instances 0", (d) => (d.workload.instances = 0), `${F}: workload.instances: expected a positive integer, got 0`],
    [
      "fresh enum",
      (d) => (d.workload.fresh = "per_test"),
      `${F}: workload.fresh: expected one of "per-server", "per-test", got "per_test"; did you mean "per-test"?`,
    ],
    [
      "storage kind",
      (d) => (d.storage = { kind: "tmpfz" }),
      `${F}: storage.kind: expected one of "tmpfs", "volume", "bind", "raid0", got "tmpfz"; did you mean "tmpfs"?`,
    ],
    [
      "duration syntax",
      (d) => (d.workload.duration = "10q"),
      `${F}: workload.duration: expected a duration like "10s", "5m" or a number of seconds, got "10q"`,
    ],
    [
      "compare literal",
      (d) => (d.compare = "host"),
      `${F}: compare: expected a mapping, "hosts" or "runs", got "host"; did you mean "hosts"?`,
    ],
    [
      "cpuset syntax",
      (d) => (d.resources.load.cpuset = "a"),
      `${F}: resources.load.cpuset: expected a cpuset like "1" or "0-1,3", got "a"`,
    ],
    [
      "raid0 one device",
      (d) => (d.storage = { kind: "raid0", devices: ["/dev/sdb"] }),
      `${F}: storage.devices: expected a list of at least 2 items, got ["/dev/sdb"]`,
    ],
  ];
  it.each(cases)("%s", (_name, mut, expected) => {
    expect(validationErrors(mut)).toContain(expected);
  });

  it("reports every zod problem at once", () => {
    const errs = validationErrors((d) => {
      d.workload.threads = [0, "x"];
      d.order = "z";
      d.bogus = 1;
    });
    expect(errs).toHaveLength(4);
  });
});
