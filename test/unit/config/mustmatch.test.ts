/**
 * The must-match comparison on SHOW GLOBAL VARIABLES recorded from real servers (test/fixtures/variables/README.md).
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseVariablesTsv } from "../../../src/core/config/cnf.ts";
import {
  VOLATILE_VARIABLES,
  diffVariables,
  mustMatch,
  unexpectedDifferences,
  type MustMatchServer,
} from "../../../src/core/config/mustmatch.ts";

const vars = (name: string) => parseVariablesTsv(readFileSync(`test/fixtures/variables/${name}.tsv`, "utf8"));
const server = (name: string, over: Partial<MustMatchServer> = {}): MustMatchServer => ({
  id: name,
  family: name.startsWith("mysql") ? "mysql" : "mariadb",
  variables: vars(name),
  deliberate: [],
  ...over,
});
const row = (rows: ReturnType<typeof mustMatch>, variable: string) => rows.find((r) => r.variable === variable)!;

const CURATED = [
  "innodb_buffer_pool_size",
  "redo log capacity",
  "innodb_log_buffer_size",
  "innodb_flush_log_at_trx_commit",
  "innodb_doublewrite",
  "data/redo file I/O",
  "log_bin",
  "sync_binlog",
  "performance_schema",
  "character_set_server",
  "collation_server",
  "transaction_isolation",
  "max_connections",
  "innodb_adaptive_hash_index",
  "innodb_io_capacity",
  "innodb_io_capacity_max",
  "innodb_flush_neighbors",
  "innodb_max_dirty_pages_pct",
  "table_open_cache",
  "thread_cache_size",
];

describe("mustMatch on the rendered lab config", () => {
  it.each([
    ["mariadb-11.8.9-tmpfs", "mysql-9.7.4-tmpfs"],
    ["mariadb-11.8.9-volume", "mysql-9.7.4-volume"],
    ["mariadb-10.11.19-tmpfs", "mysql-9.7.4-tmpfs"],
    ["mariadb-10.11.19-volume", "mysql-9.7.4-volume"],
    ["mariadb-11.8.9-tmpfs-durable", "mysql-9.7.4-tmpfs-durable"],
    ["mariadb-11.8.9-volume-durable", "mysql-9.7.4-volume-durable"],
    ["mariadb-10.11.19-tmpfs-durable", "mysql-9.7.4-tmpfs-durable"],
    ["mariadb-10.11.19-tmpfs", "mariadb-11.8.9-volume"],
  ])("%s vs %s: zero must-match differences", (a, b) => {
    const rows = mustMatch([server(a), server(b)]);
    for (const v of CURATED) expect(rows.map((r) => r.variable)).toContain(v);
    expect(unexpectedDifferences(rows).map((r) => `${r.variable}: ${JSON.stringify(r.values)}`)).toEqual([]);
  });

  it("normalises what each family reports", () => {
    const rows = mustMatch([
      server("mariadb-11.8.9-tmpfs"),
      server("mysql-9.7.4-tmpfs"),
      server("mariadb-10.11.19-tmpfs"),
    ]);
    expect(row(rows, "redo log capacity").values).toEqual({
      "mariadb-11.8.9-tmpfs": "512M",
      "mysql-9.7.4-tmpfs": "512M",
      "mariadb-10.11.19-tmpfs": "512M",
    });
    expect(new Set(Object.values(row(rows, "data/redo file I/O").values))).toEqual(
      new Set(["data=direct redo=buffered"]),
    );
    expect(new Set(Object.values(row(rows, "innodb_change_buffering").values))).toEqual(new Set(["none"]));
    expect(new Set(Object.values(row(rows, "innodb_max_dirty_pages_pct").values))).toEqual(new Set(["80"]));
    // MariaDB 10.11 only has tx_isolation
    expect(row(rows, "transaction_isolation").values["mariadb-10.11.19-tmpfs"]).toBe("REPEATABLE-READ");
  });

  it("compares binlog settings only when a binlog is on", () => {
    const off = mustMatch([server("mariadb-11.8.9-tmpfs"), server("mysql-9.7.4-tmpfs")]);
    expect(row(off, "binlog_format")).toMatchObject({ equal: true, note: expect.stringMatching(/binary log off/) });
    const on = mustMatch([server("mariadb-11.8.9-tmpfs-durable"), server("mysql-9.7.4-tmpfs-durable")]);
    expect(row(on, "log_bin").values).toEqual({
      "mariadb-11.8.9-tmpfs-durable": "ON",
      "mysql-9.7.4-tmpfs-durable": "ON",
    });
    expect(row(on, "binlog_format").equal).toBe(true);
    expect(row(on, "binlog_format").note).toBeUndefined();
    expect(row(on, "sync_binlog").values["mariadb-11.8.9-tmpfs-durable"]).toBe("1");
  });
});

describe("mustMatch on default configs", () => {
  it("finds the differences the seed config never pinned", () => {
    const rows = mustMatch([server("mariadb-11.8.9-tmpfs-defaults"), server("mysql-9.7.4-tmpfs-defaults")]);
    const diff = unexpectedDifferences(rows).map((r) => r.variable);
    expect(diff).toEqual(
      expect.arrayContaining([
        "redo log capacity",
        "log_bin",
        "performance_schema",
        "collation_server",
        "innodb_io_capacity",
        "innodb_flush_neighbors",
        "innodb_snapshot_isolation",
        "innodb_change_buffering",
        "thread_cache_size",
      ]),
    );
    expect(row(rows, "collation_server").values).toEqual({
      "mariadb-11.8.9-tmpfs-defaults": "utf8mb4_uca1400_ai_ci",
      "mysql-9.7.4-tmpfs-defaults": "utf8mb4_0900_ai_ci",
    });
  });

  it("shows character_set_collations overriding collation_server on MariaDB 11", () => {
    const v = { ...vars("mariadb-11.8.9-tmpfs"), character_set_collations: "utf8mb4=uca1400_ai_ci" };
    const rows = mustMatch([{ id: "m", family: "mariadb", variables: v, deliberate: [] }, server("mysql-9.7.4-tmpfs")]);
    expect(row(rows, "collation_server")).toMatchObject({
      equal: false,
      values: { m: "utf8mb4_general_ci (CHARACTER SET utf8mb4 → utf8mb4_uca1400_ai_ci via character_set_collations)" },
    });
  });
});

describe("mustMatch: deliberate differences, TLS, missing variables", () => {
  const changed = (name: string, patch: Record<string, string>) => ({ ...vars(name), ...patch });

  it.each([
    [["innodb_io_capacity"], "innodb_io_capacity", { innodb_io_capacity: "4000" }],
    [["innodb_flush_method"], "data/redo file I/O", { innodb_data_file_buffering: "ON" }],
    [["innodb_redo_log_capacity"], "redo log capacity", { innodb_log_file_size: "1073741824" }],
    [["skip-log-bin"], "log_bin", { log_bin: "ON" }],
  ])("a per-server %j makes the %s row deliberate", (deliberate, variable, patch) => {
    const maria: MustMatchServer = {
      id: "m",
      family: "mariadb",
      variables: changed("mariadb-11.8.9-tmpfs", patch),
      deliberate,
    };
    const rows = mustMatch([maria, server("mysql-9.7.4-tmpfs")]);
    expect(row(rows, variable)).toMatchObject({ equal: false, deliberate: true });
    expect(unexpectedDifferences(rows)).toEqual([]);
    const undeclared = mustMatch([{ ...maria, deliberate: [] }, server("mysql-9.7.4-tmpfs")]);
    expect(unexpectedDifferences(undeclared).map((r) => r.variable)).toContain(variable);
  });

  it.each([
    ["TLS_AES_256_GCM_SHA384", "TLS_AES_128_GCM_SHA256", true],
    ["TLS_AES_256_GCM_SHA384", "", false],
    [null, "", true],
  ])("TLS %j vs %j: equal=%s", (a, b, equal) => {
    const rows = mustMatch([
      server("mariadb-11.8.9-tmpfs", { sslCipher: a }),
      server("mysql-9.7.4-tmpfs", { sslCipher: b }),
    ]);
    expect(row(rows, "connection TLS").equal).toBe(equal);
  });

  it("leaves the TLS row out when no connection was measured", () => {
    expect(
      mustMatch([server("mariadb-11.8.9-tmpfs"), server("mysql-9.7.4-tmpfs")]).map((r) => r.variable),
    ).not.toContain("connection TLS");
  });

  it("a variable missing on one server is a difference with a note", () => {
    const v = vars("mysql-9.7.4-tmpfs");
    delete v.innodb_io_capacity;
    const rows = mustMatch([
      server("mariadb-11.8.9-tmpfs"),
      { id: "my", family: "mysql", variables: v, deliberate: [] },
    ]);
    expect(row(rows, "innodb_io_capacity")).toMatchObject({ equal: false, note: "not reported by my" });
  });
});

describe("diffVariables", () => {
  it("lists every differing variable, sorted, including one-sided ones", () => {
    const d = diffVariables({ a: "1", b: "2", c: "3" }, { b: "2", c: "4", d: "5" });
    expect(d).toEqual([
      { variable: "a", a: "1", b: null },
      { variable: "c", a: "3", b: "4" },
      { variable: "d", a: null, b: "5" },
    ]);
  });

  it("on real servers: the version differs, the pinned buffer pool does not; volatile ones can be ignored", () => {
    const a = vars("mariadb-11.8.9-tmpfs");
    const b = vars("mysql-9.7.4-tmpfs");
    const all = diffVariables(a, b).map((d) => d.variable);
    expect(all).toContain("version");
    expect(all).not.toContain("innodb_buffer_pool_size");
    expect(all.length).toBeGreaterThan(300);
    const quiet = diffVariables(a, b, { ignore: VOLATILE_VARIABLES }).map((d) => d.variable);
    expect(quiet).not.toContain("version");
    expect(quiet).not.toContain("hostname");
  });
});
