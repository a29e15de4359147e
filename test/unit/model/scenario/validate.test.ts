import { readFileSync, readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { validateScenario } from "../../../../src/core/model/scenario/validate.ts";
import { plannedMaxConnections, parseCpuset } from "../../../../src/core/model/scenario/limits.ts";
import type { Scenario } from "../../../../src/core/model/scenario/schema.ts";

const F = "scenarios/x.yaml";
const ctx = { lockImages: ["mariadb-11.8", "mariadb-10.11", "mysql-9.7", "sysbench-1.0"], hostCpus: 2 };

type Doc = Record<string, any>;
function base(): Doc {
  return {
    name: "x",
    servers: [
      { id: "mariadb", image: "mariadb-11.8" },
      { id: "mysql", image: "mysql-9.7" },
    ],
    resources: { server: { cpuset: "1", memory: "4g" }, load: { cpuset: "0" } },
    storage: { kind: "tmpfs", size: "2g" },
    workload: { tests: ["oltp_read_only"], threads: [1, 2, 4], duration: "10s" },
  };
}
const run = (mut: (d: Doc) => void) => {
  const d = base();
  mut(d);
  return validateScenario(d, F, ctx);
};
const errorsOf = (mut: (d: Doc) => void) => {
  const r = run(mut);
  return "errors" in r ? r.errors : [];
};
const warningsOf = (mut: (d: Doc) => void) => {
  const r = run(mut);
  if ("errors" in r) throw new Error(`unexpected errors: ${r.errors.join("\n")}`);
  return r.warnings;
};

describe("validateScenario: adaptive repeats, instances, budget, margin", () => {
  it("accepts the adaptive form, a plain number still means a fixed count", () => {
    expect(
      warningsOf((d) => {
        d.workload.repeats = { min: 4, max: 40, precision: "3%" };
        d.workload.budget = "30m";
        d.workload.instances = 2;
        d.report = { margin: "5%" };
      }),
    ).toEqual([]);
    const r = run((d) => (d.workload.repeats = 4));
    expect("scenario" in r && r.scenario.workload.repeats).toBe(4);
  });
});

describe("validateScenario: errors, one case per rule", () => {
  const cases: Array<[string, (d: Doc) => void, string]> = [
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
      "adaptive repeats: precision syntax",
      (d) => (d.workload.repeats = { min: 4, max: 40, precision: "3 percent" }),
      `${F}: workload.repeats.precision: expected a percentage like "3%" or a number, got "3 percent"`,
    ],
    [
      "budget shorter than one round",
      (d) => ((d.workload.repeats = { min: 4, max: 40, precision: "3%" }), (d.workload.budget = "30s")),
      `${F}: workload.budget: "30s" is shorter than one round (1 tests × 3 thread counts × 2 servers × 11 s = 66 s)`,
    ],
    ["instances 0", (d) => (d.workload.instances = 0), `${F}: workload.instances: expected a positive integer, got 0`],
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
      "one server without compare hosts/runs",
      (d) => d.servers.pop(),
      `${F}: servers: expected at least 2 servers (the first two are the ratio's numerator and denominator), got 1; one server is enough with compare: hosts or compare: runs`,
    ],
    [
      "duplicate server id",
      (d) => (d.servers[1].id = "mariadb"),
      `${F}: servers.1.id: duplicate server id "mariadb" (already used by servers.0)`,
    ],
    [
      "image not in the lock",
      (d) => (d.servers[1].image = "mysql-9.8"),
      `${F}: servers.1.image: image "mysql-9.8" is not in the image lock (mariadb-11.8, mariadb-10.11, mysql-9.7, sysbench-1.0); did you mean "mysql-9.7"?`,
    ],
    [
      "load image as a server",
      (d) => (d.servers[1].image = "sysbench-1.0"),
      `${F}: servers.1.image: "sysbench-1.0" is the load (sysbench) image, not a server image`,
    ],
    [
      "compare names a server",
      (d) => (d.compare = { numerator: "mariadb", denominator: "mysq" }),
      `${F}: compare.denominator: "mysq" is not a server id (servers: mariadb, mysql); did you mean "mysql"?`,
    ],
    [
      "compare the same server",
      (d) => (d.compare = { numerator: "mysql", denominator: "mysql" }),
      `${F}: compare.denominator: "mysql" is also the numerator; compare two different servers`,
    ],
    [
      "threads above max_connections",
      (d) => {
        d.workload.threads = [1, 128];
        d.config = { set: { max_connections: 100 } };
      },
      `${F}: config.set.max_connections: 100 is lower than the 138 connections this scenario needs (workload.threads up to 128, plus 10 for twinbench's own)`,
    ],
    [
      "per-server max_connections",
      (d) => (d.servers[0].config = { set: { max_connections: "12" } }),
      `${F}: servers.0.config.set.max_connections: 12 is lower than the 14 connections this scenario needs (workload.threads up to 4, plus 10 for twinbench's own)`,
    ],
    [
      "cpuset not on this host",
      (d) => (d.resources.server.cpuset = "1-3"),
      `${F}: resources.server.cpuset: CPUs 2, 3 do not exist on this host (it has CPUs 0-1), got "1-3"`,
    ],
    [
      "cpuset syntax",
      (d) => (d.resources.load.cpuset = "a"),
      `${F}: resources.load.cpuset: expected a cpuset like "1" or "0-1,3", got "a"`,
    ],
    [
      "reversed cpuset range",
      (d) => (d.resources.load.cpuset = "1-0"),
      `${F}: resources.load.cpuset: reversed range in cpuset "1-0"`,
    ],
    [
      "tmpfs larger than the memory limit",
      (d) => (d.storage.size = "8g"),
      `${F}: storage.size: tmpfs size "8g" is larger than the server memory limit resources.server.memory "4g"; tmpfs pages count against the server container's memory`,
    ],
    [
      "raid0 without members",
      (d) => (d.storage = { kind: "raid0" }),
      `${F}: storage: raid0 needs its members: devices (2 or more /dev/... paths) or loop: { members: N, size: SIZE }`,
    ],
    [
      "raid0 with both",
      (d) => (d.storage = { kind: "raid0", devices: ["/dev/sdb", "/dev/sdc"], loop: { members: 2, size: "1g" } }),
      `${F}: storage: raid0 takes devices or loop, not both`,
    ],
    [
      "raid0 one device",
      (d) => (d.storage = { kind: "raid0", devices: ["/dev/sdb"] }),
      `${F}: storage.devices: expected a list of at least 2 items, got ["/dev/sdb"]`,
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
    [
      "host ids unique",
      (d) =>
        (d.hosts = [
          { id: "a", engine: "unix:///var/run/docker.sock" },
          { id: "a", engine: "tcp://127.0.0.2:2375" },
        ]),
      `${F}: hosts.1.id: duplicate host id "a" (already used by hosts.0)`,
    ],
    [
      "shard needs two hosts",
      (d) => (d.shard = true),
      `${F}: shard: shard: true spreads cells over hosts and needs at least 2 hosts, got 0`,
    ],
    [
      "shard excludes compare hosts",
      (d) => {
        d.shard = true;
        d.compare = "hosts";
        d.hosts = [
          { id: "a", engine: "unix:///var/run/docker.sock" },
          { id: "b", engine: "tcp://127.0.0.2:2375" },
        ];
      },
      `${F}: shard: shard: true and compare: hosts exclude each other (compare runs every cell on every host)`,
    ],
  ];
  it.each(cases)("%s", (_name, mut, expected) => {
    expect(errorsOf(mut)).toContain(expected);
  });

  it("reports every zod problem at once", () => {
    const errs = errorsOf((d) => {
      d.workload.threads = [0, "x"];
      d.order = "z";
      d.bogus = 1;
    });
    expect(errs).toHaveLength(4);
  });

  it("refuses a document that is not a mapping", () => {
    expect(validateScenario([1, 2], F, ctx)).toEqual({
      errors: [`${F}: expected a mapping at the top level, got [1,2]`],
    });
  });
});

describe("validateScenario: warnings", () => {
  const cases: Array<[string, (d: Doc) => void, string]> = [
    [
      "overlapping cpusets",
      (d) => (d.resources.load.cpuset = "0-1"),
      `${F}: resources: server cpuset "1" and load cpuset "0-1" overlap on CPU 1; sysbench competes with the server there`,
    ],
    [
      "tmpfs plus buffer pool above the memory limit",
      (d) => (d.storage.size = "3.5g"),
      `${F}: storage.size: tmpfs size "3.5g" plus innodb_buffer_pool_size "1024M" exceeds resources.server.memory "4g"; the server can be OOM-killed as the data dir fills`,
    ],
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
    [
      "per-server config is an asymmetry",
      (d) => (d.servers[0].config = { set: { innodb_io_capacity: 4000 } }),
      `${F}: servers.0.config.set: deliberate asymmetry: innodb_io_capacity set for mariadb only; every report flags it`,
    ],
  ];
  it.each(cases)("%s", (_name, mut, expected) => {
    expect(warningsOf(mut)).toContain(expected);
  });

  it("a clean scenario has no warnings", () => {
    expect(warningsOf(() => {})).toEqual([]);
  });
});

describe("validateScenario: the resolved scenario", () => {
  it("translates legacy options and normalizes names and values", () => {
    const r = run((d) => {
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

  it("one server is enough with compare: hosts or runs", () => {
    for (const compare of ["hosts", "runs"]) {
      const r = run((d) => {
        d.servers.pop();
        d.compare = compare;
      });
      expect("scenario" in r).toBe(true);
    }
  });

  it("plans max_connections as the most threads + 10 (at least 151) unless config.set says more", () => {
    expect(plannedMaxConnections((run(() => {}) as { scenario: Scenario }).scenario)).toBe(151);
    expect("scenario" in run((d) => (d.config = { set: { max_connections: "auto" } }))).toBe(true);
    const r = run((d) => (d.workload.threads = [1, 300]));
    if ("errors" in r) throw new Error(r.errors.join("\n"));
    expect(plannedMaxConnections(r.scenario)).toBe(310);
    const r2 = run((d) => {
      d.workload.threads = [1, 300];
      d.config = { set: { max_connections: 1000 } };
    });
    expect(plannedMaxConnections((r2 as { scenario: Scenario }).scenario)).toBe(1000);
  });

  it("parses cpusets", () => {
    expect(parseCpuset("0-2,5")).toEqual([0, 1, 2, 5]);
    expect(parseCpuset("3-1")).toBeUndefined();
  });
});

describe("shipped scenarios", () => {
  const files = readdirSync("scenarios").filter((f) => f.endsWith(".yaml"));
  it("include the five the issue names", () => {
    expect(files).toEqual(
      expect.arrayContaining([
        "quick.yaml",
        "quick-raid0.yaml",
        "aa-mariadb.yaml",
        "seed-mariadb-vs-mysql.yaml",
        "seed-kernel-ro300.yaml",
      ]),
    );
  });
  it.each(files)("%s validates and cites its seed", (f) => {
    const text = readFileSync(`scenarios/${f}`, "utf8");
    expect(text).toMatch(/^# .*[Ss]eed/m);
    const r = validateScenario(parse(text), `scenarios/${f}`, ctx);
    if ("errors" in r) throw new Error(r.errors.join("\n"));
    expect(r.scenario.name).toBe(f.replace(/\.yaml$/, ""));
  });
});
