/** workload.sysbench: option names checked against sysbench 1.0.20, legacy names translated or refused, options twinbench sets refused, values normalized. */
import { describe, expect, it } from "vitest";
import {
  VALIDATION_FILE as F,
  validated,
  validationErrors,
  validationWarnings,
  type ScenarioDoc,
} from "../../../support/scenario.ts";

describe("validate-options: errors, one case per rule", () => {
  const cases: Array<[string, (d: ScenarioDoc) => void, string]> = [
    [
      "unknown sysbench option",
      (d) => (d.workload.sysbench = { "rand-typ": "uniform" }),
      `${F}: workload.sysbench.rand-typ: unknown sysbench 1.0.20 option --rand-typ; did you mean "rand-type"?`,
    ],
    [
      "sysbench option value",
      (d) => (d.workload.sysbench = { "db-ps-mode": "off" }),
      `${F}: workload.sysbench.db-ps-mode: expected one of auto, disable, got "off"`,
    ],
    [
      "sysbench int option",
      (d) => (d.workload.sysbench = { point_selects: "many" }),
      `${F}: workload.sysbench.point_selects: expected a non-negative integer, got "many"`,
    ],
    [
      "managed option",
      (d) => (d.workload.sysbench = { threads: 4 }),
      `${F}: workload.sysbench.threads: --threads is set by twinbench from workload.threads; remove it from workload.sysbench`,
    ],
    [
      "connection option",
      (d) => (d.workload.sysbench = { "mysql-host": "db" }),
      `${F}: workload.sysbench.mysql-host: --mysql-host is set by twinbench from load.transport (it connects the load container itself); remove it from workload.sysbench`,
    ],
    [
      "1.1-only option",
      (d) => (d.workload.sysbench = { "warmup-time": 5 }),
      `${F}: workload.sysbench.warmup-time: --warmup-time is not a sysbench 1.0.20 option: added in sysbench 1.1; use workload.warmup`,
    ],
    [
      "legacy option that picked the script",
      (d) => (d.workload.sysbench = { "oltp-read-only": "on" }),
      `${F}: workload.sysbench.oltp-read-only: legacy option --oltp-read-only chose the test in sysbench 0.4; pick the script instead: oltp_read_only (complex, read-only) or oltp_read_write`,
    ],
    [
      "legacy option with no equivalent",
      (d) => (d.workload.sysbench = { "oltp-connect-delay": 10 }),
      `${F}: workload.sysbench.oltp-connect-delay: legacy option --oltp-connect-delay has no sysbench 1.0.20 equivalent (1.0.20 has no connect delay); remove it`,
    ],
    [
      "legacy field option conflicting with the field",
      (d) => {
        d.workload.tableSize = 5000;
        d.workload.sysbench = { "oltp-table-size": 2000000 };
      },
      `${F}: workload.sysbench.oltp-table-size: legacy option --oltp-table-size=2000000 conflicts with workload.tableSize: 5000; keep only workload.tableSize`,
    ],
  ];
  it.each(cases)("%s", (_name, mut, expected) => {
    expect(validationErrors(mut)).toContain(expected);
  });
});

describe("validate-options: warnings", () => {
  const cases: Array<[string, (d: ScenarioDoc) => void, string]> = [
    [
      "legacy option renamed",
      (d) => (d.workload.sysbench = { "oltp-point-selects": 50 }),
      `${F}: workload.sysbench.oltp-point-selects: legacy option --oltp-point-selects is --point-selects in sysbench 1.0.20; translated`,
    ],
    [
      "legacy option moved to a field",
      (d) => (d.workload.sysbench = { "oltp-table-size": 2000000 }),
      `${F}: workload.sysbench.oltp-table-size: legacy option --oltp-table-size is --table-size in sysbench 1.0.20, which twinbench sets from workload.tableSize; translated to workload.tableSize: 2000000`,
    ],
    [
      "mysql-engine-trx explained",
      (d) => (d.workload.sysbench = { "mysql-engine-trx": "yes" }),
      `${F}: workload.sysbench.mysql-engine-trx: legacy option --mysql-engine-trx dropped: no 1.0.20 equivalent: each 1.0 script decides whether it sends BEGIN/COMMIT (the OLTP ones do unless --skip-trx=on); 0.4/0.5 used it to choose between BEGIN/COMMIT and LOCK TABLES`,
    ],
  ];
  it.each(cases)("%s", (_name, mut, expected) => {
    expect(validationWarnings(mut)).toContain(expected);
  });
});

describe("validate-options: the resolved scenario", () => {
  it("translates legacy options and normalizes names and values", () => {
    const r = validated((d) => {
      d.workload.sysbench = {
        "oltp-table-size": 2000000,
        oltp_point_selects: 5,
        skip_trx: "on",
        "mysql-table-engine": "MyISAM",
        "max-time": 60,
      };
      delete d.workload.duration;
    });
    if ("errors" in r) throw new Error(r.errors.join("\n"));
    expect(r.scenario.workload.tableSize).toBe(2000000);
    expect(r.scenario.workload.engine).toBe("myisam");
    expect(r.scenario.workload.duration).toBe("60s");
    expect(r.scenario.workload.sysbench).toEqual({ "point-selects": 5, "skip-trx": true });
  });
});
