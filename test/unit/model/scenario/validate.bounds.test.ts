/**
 * Every input bounded at validation, each with its field path: the workload's numbers and durations, the data
 * against its tmpfs, absolute host paths, one my.cnf line per config value, server ids whose resource names cannot
 * collide.
 */
import { describe, expect, it } from "vitest";
import { validateScenario } from "../../../../src/core/model/scenario/validate.ts";

const F = "scenarios/x.yaml";
const ctx = { lockImages: ["mariadb-11.8", "mysql-9.7"], hostCpus: 2 };

type Doc = Record<string, any>;
function base(): Doc {
  return {
    name: "x",
    servers: [
      { id: "mariadb", image: "mariadb-11.8" },
      { id: "mysql", image: "mysql-9.7" },
    ],
    storage: { kind: "tmpfs", size: "2g" },
    workload: { tests: ["oltp_read_only"], threads: [1, 2], duration: "10s" },
  };
}
const errorsOf = (mut: (d: Doc) => void) => {
  const d = base();
  mut(d);
  const r = validateScenario(d, F, ctx);
  return "errors" in r ? r.errors : [];
};

describe("validateScenario: upper bounds, each with its field path", () => {
  const cases: Array<[string, (d: Doc) => void, string]> = [
    [
      "threads",
      (d) => (d.workload.threads = [1, 100000]),
      `${F}: workload.threads.1: expected an integer from 1 to 4096, got 100000`,
    ],
    [
      "tables",
      (d) => (d.workload.tables = 5000),
      `${F}: workload.tables: expected an integer from 1 to 1024, got 5000`,
    ],
    [
      "table size past sysbench's INT id",
      (d) => (d.workload.tableSize = 2 ** 31),
      `${F}: workload.tableSize: expected an integer from 1 to 2147483647, got 2147483648`,
    ],
    [
      "a duration whose timer would overflow",
      (d) => (d.workload.duration = "400h"),
      `${F}: workload.duration: expected at most 7 days (604800 s), got "400h"`,
    ],
    [
      "warm-up",
      (d) => (d.workload.warmup = 2_000_000),
      `${F}: workload.warmup: expected at most 7 days (604800 s), got 2000000`,
    ],
    [
      "budget",
      (d) => {
        d.workload.repeats = { min: 2, max: 10, precision: "3%" };
        d.workload.budget = "600h";
      },
      `${F}: workload.budget: expected at most 20 days (1728000 s), got "600h"`,
    ],
    [
      "a wait for a quiet machine longer than a burst of outside work",
      (d) => (d.workload.quietWait = "1h"),
      `${F}: workload.quietWait: expected at most 600 s (a wait for outside work to end), got "1h"`,
    ],
    [
      "data larger than its tmpfs",
      (d) => {
        d.workload.tables = 8;
        d.workload.tableSize = 2_000_000;
      },
      `${F}: storage.size: tmpfs size "2g" cannot hold the tables: workload.tables 8 × workload.tableSize 2000000 rows take at least 3052 MiB (200 bytes a row), before the redo log and system tablespace`,
    ],
    [
      "a relative bind path",
      (d) => (d.storage = { kind: "bind", path: "data/mysql" }),
      `${F}: storage.path: expected an absolute host path (e.g. /mnt/array), got "data/mysql"`,
    ],
    [
      "a relative loop dir",
      (d) => (d.servers[1].storage = { kind: "raid0", loop: { members: 2, size: "1g", dir: "loops" } }),
      `${F}: servers.1.storage.loop.dir: expected an absolute host path (e.g. /var/lib/twinbench/loop), got "loops"`,
    ],
    [
      "a newline in a config value",
      (d) => (d.config = { set: { innodb_io_capacity: "2000\nskip-grant-tables" } }),
      `${F}: config.set.innodb_io_capacity: a value is one my.cnf line: it cannot hold a line break or NUL, got "2000\\nskip-grant-tables"`,
    ],
    [
      "a newline in a server's config value",
      (d) => (d.servers[0].config = { set: { sort_buffer_size: "1M\r\n[client]" } }),
      `${F}: servers.0.config.set.sort_buffer_size: a value is one my.cnf line: it cannot hold a line break or NUL, got "1M\\r\\n[client]"`,
    ],
    [
      "server ids whose names collide",
      (d) => (d.servers[1].id = "mariadb-holder"),
      `${F}: servers.1.id: "mariadb-holder" begins with the server id "mariadb" and "-", so their container, network and volume names can collide (the holder of "mariadb" is named …-mariadb-holder); choose ids where neither is the other plus "-…"`,
    ],
  ];
  it.each(cases)("%s", (_name, mut, expected) => {
    expect(errorsOf(mut)).toContain(expected);
  });

  it("the bounds themselves are accepted", () => {
    expect(
      errorsOf((d) => {
        d.workload.threads = [1, 4096];
        d.workload.tables = 1024;
        d.workload.tableSize = 1000;
        d.workload.duration = 7 * 86400;
        d.servers[1].id = "mariadb_b";
        d.config = { set: { innodb_io_capacity: "2000" } };
      }),
    ).toEqual([]);
  });
});
