/**
 * The dialect table, option by option: every seed option and every fairness pin, for each server family and
 * version range (MariaDB 10.11 / 11.x, MySQL 8.0 before and after 8.0.30, 8.4, 9.x).
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { DIALECT_TABLE } from "../../../src/core/config/dialect.ts";
import { type Family } from "../../../src/core/config/dialect-types.ts";
import { renderConfig } from "../../../src/core/config/render.ts";
import { scenario as scenarioOf } from "../../support/scenario.ts";

const TARGETS = [
  "mariadb 10.11.19",
  "mariadb 11.8.9",
  "mysql 8.0.28",
  "mysql 8.0.40",
  "mysql 8.4.3",
  "mysql 9.7.4",
] as const;
type Target = (typeof TARGETS)[number];

const scenario = scenarioOf(
  { servers: [{ id: "s", image: "x" }], workload: { tests: ["oltp_read_only"], threads: [1, 4] } },
  { check: "schema" },
);

function render(neutral: string, target: Target, storageKind: "tmpfs" | "volume" = "tmpfs") {
  const [family, version] = target.split(" ") as [Family, string];
  return renderConfig({ neutral, family, version, storageKind, scenario, serverId: "s" });
}

/** "fate: line; line" for one option on one target. */
function fateOf(option: string, value: string | null, target: Target): string {
  const line = value === null ? option : `${option} = ${value}`;
  const out = render(`[mysqld]\n${line}\n`, target);
  const entry = out.translation.find((t) => t.option === option.replace(/-/g, "_"));
  if (!entry) throw new Error(`no translation entry for ${option}`);
  expect(entry.reason).not.toBe("");
  return `${entry.fate}: ${entry.rendered.join("; ")}`.trimEnd();
}

const keepAll = (line: string): Record<Target, string> =>
  Object.fromEntries(TARGETS.map((t) => [t, `keep: ${line}`])) as Record<Target, string>;
const dropAll = Object.fromEntries(TARGETS.map((t) => [t, "drop:"])) as Record<Target, string>;
const byFamily = (mariadb: string, mysql: string): Record<Target, string> =>
  Object.fromEntries(TARGETS.map((t) => [t, t.startsWith("mariadb") ? mariadb : mysql])) as Record<Target, string>;

// The seed's "Configuration used for MariaDB and MySQL" (seeds 000 and 001), option by option.
const SEED: Array<[string, string | null, Record<Target, string>]> = [
  ["skip-grant-tables", null, dropAll],
  ["language", "./sql/share/english", dropAll],
  ["datadir", "/var/lib/mysql", keepAll("datadir = /var/lib/mysql")],
  ["tmpdir", "/tmp", keepAll("tmpdir = /tmp")],
  ["socket", "/run/mysqld/mysqld.sock", keepAll("socket = /run/mysqld/mysqld.sock")],
  ["table_open_cache", "512", keepAll("table_open_cache = 512")],
  // capped at max_connections (151 for threads [1, 4]): MariaDB caps it silently
  ["thread_cache", "512", byFamily("rename: thread_cache_size = 151", "rename: thread_cache_size = 151")],
  ["query_cache_size", "0", { ...byFamily("keep: query_cache_size = 0", "drop:") }],
  ["query_cache_type", "0", byFamily("keep: query_cache_type = 0", "drop:")],
  ["innodb_data_home_dir", "/var/lib/mysql", keepAll("innodb_data_home_dir = /var/lib/mysql")],
  ["innodb_data_file_path", "ibdata1:128M:autoextend", keepAll("innodb_data_file_path = ibdata1:128M:autoextend")],
  ["innodb_log_group_home_dir", "/var/lib/mysql", keepAll("innodb_log_group_home_dir = /var/lib/mysql")],
  ["innodb_buffer_pool_size", "1024M", keepAll("innodb_buffer_pool_size = 1024M")],
  ["innodb_additional_mem_pool_size", "32M", dropAll],
  [
    "innodb_log_file_size",
    "256M",
    {
      "mariadb 10.11.19": "translate: innodb_log_file_size = 512M",
      "mariadb 11.8.9": "translate: innodb_log_file_size = 512M",
      "mysql 8.0.28": "keep: innodb_log_file_size = 256M",
      "mysql 8.0.40": "translate: innodb_redo_log_capacity = 512M",
      "mysql 8.4.3": "translate: innodb_redo_log_capacity = 512M",
      "mysql 9.7.4": "translate: innodb_redo_log_capacity = 512M",
    },
  ],
  ["innodb_log_buffer_size", "16M", keepAll("innodb_log_buffer_size = 16M")],
  ["innodb_flush_log_at_trx_commit", "1", keepAll("innodb_flush_log_at_trx_commit = 1")],
  ["innodb_lock_wait_timeout", "50", keepAll("innodb_lock_wait_timeout = 50")],
  [
    "innodb_doublewrite",
    "0",
    Object.fromEntries(TARGETS.map((t) => [t, "translate: innodb_doublewrite = OFF"])) as Record<Target, string>,
  ],
  [
    "innodb_flush_method",
    "O_DIRECT",
    {
      "mariadb 10.11.19": "translate: innodb_flush_method = O_DIRECT; innodb_log_file_buffering = ON",
      "mariadb 11.8.9":
        "translate: innodb_data_file_buffering = OFF; innodb_data_file_write_through = OFF; innodb_log_file_buffering = ON; innodb_log_file_write_through = OFF",
      "mysql 8.0.28": "keep: innodb_flush_method = O_DIRECT",
      "mysql 8.0.40": "keep: innodb_flush_method = O_DIRECT",
      "mysql 8.4.3": "keep: innodb_flush_method = O_DIRECT",
      "mysql 9.7.4": "keep: innodb_flush_method = O_DIRECT",
    },
  ],
  ["innodb_thread_concurrency", "0", byFamily("drop:", "keep: innodb_thread_concurrency = 0")],
  ["innodb_max_dirty_pages_pct", "80", keepAll("innodb_max_dirty_pages_pct = 80")],
];

// The fairness pins and neutral names of lab/my.cnf that are not plain keeps everywhere.
const PINS: Array<[string, string | null, Record<Target, string>]> = [
  [
    "innodb_redo_log_capacity",
    "512M",
    {
      "mariadb 10.11.19": "rename: innodb_log_file_size = 512M",
      "mariadb 11.8.9": "rename: innodb_log_file_size = 512M",
      "mysql 8.0.28": "translate: innodb_log_file_size = 256M; innodb_log_files_in_group = 2",
      "mysql 8.0.40": "keep: innodb_redo_log_capacity = 512M",
      "mysql 8.4.3": "keep: innodb_redo_log_capacity = 512M",
      "mysql 9.7.4": "keep: innodb_redo_log_capacity = 512M",
    },
  ],
  ["skip_log_bin", null, keepAll("skip_log_bin")],
  [
    "binlog_format",
    "ROW",
    { ...byFamily("keep: binlog_format = ROW", "drop:"), "mysql 8.0.28": "keep: binlog_format = ROW" },
  ],
  ["performance_schema", "OFF", keepAll("performance_schema = OFF")],
  ["collation_server", "utf8mb4_general_ci", keepAll("collation_server = utf8mb4_general_ci")],
  [
    "character_set_collations",
    "utf8mb4=utf8mb4_general_ci",
    { ...byFamily("drop:", "drop:"), "mariadb 11.8.9": "keep: character_set_collations = utf8mb4=utf8mb4_general_ci" },
  ],
  ["innodb_snapshot_isolation", "OFF", byFamily("keep: innodb_snapshot_isolation = OFF", "drop:")],
  ["innodb_change_buffering", "none", byFamily("drop:", "keep: innodb_change_buffering = none")],
  ["innodb_buffer_pool_instances", "1", byFamily("drop:", "keep: innodb_buffer_pool_instances = 1")],
  ["innodb_page_cleaners", "1", byFamily("drop:", "keep: innodb_page_cleaners = 1")],
  ["mysqlx", "OFF", byFamily("drop:", "keep: mysqlx = OFF")],
  ["container_aware", "OFF", { ...byFamily("drop:", "drop:"), "mysql 9.7.4": "keep: container_aware = OFF" }],
  [
    "max_connections",
    "auto",
    Object.fromEntries(TARGETS.map((t) => [t, "translate: max_connections = 151"])) as Record<Target, string>,
  ],
  [
    "tx_isolation",
    "REPEATABLE-READ",
    Object.fromEntries(TARGETS.map((t) => [t, "rename: transaction_isolation = REPEATABLE-READ"])) as Record<
      Target,
      string
    >,
  ],
  ["skip_name_resolve", null, keepAll("skip_name_resolve")],
  ["innodb_numa_interleave", "OFF", keepAll("innodb_numa_interleave = OFF")],
];

describe.each(TARGETS)("dialect table on %s", (target) => {
  it.each(SEED)("seed option %s=%s", (option, value, expected) => {
    expect(fateOf(option, value, target)).toBe(expected[target]);
  });
  it.each(PINS)("pin %s=%s", (option, value, expected) => {
    expect(fateOf(option, value, target)).toBe(expected[target]);
  });
  it("renders lab/my.cnf without unknown options or version warnings", () => {
    const out = render(readFileSync("lab/my.cnf", "utf8"), target);
    expect(out.warnings).toEqual([]);
    expect(out.asymmetries).toEqual([]);
  });
});

describe("version edges", () => {
  it.each([
    ["mariadb 11.0.1", "rename: loose_innodb_snapshot_isolation = OFF"],
    ["mariadb 10.11.7", "rename: loose_innodb_snapshot_isolation = OFF"],
    ["mariadb 11.4.2", "keep: innodb_snapshot_isolation = OFF"],
  ])("innodb_snapshot_isolation on %s", (target, expected) => {
    expect(fateOf("innodb_snapshot_isolation", "OFF", target as Target)).toBe(expected);
  });

  it.each([
    ["mariadb 10.6.5", "keep: innodb_change_buffering = none"],
    ["mariadb 10.9.1", "drop:"],
  ])("innodb_change_buffering on %s", (target, expected) => {
    expect(fateOf("innodb_change_buffering", "none", target as Target)).toBe(expected);
  });

  it.each([
    ["mysql 8.0.2", "keep: query_cache_type = 0"],
    ["mysql 8.0.3", "drop:"],
  ])("query_cache_type on %s", (target, expected) => {
    expect(fateOf("query_cache_type", "0", target as Target)).toBe(expected);
  });

  it("innodb_log_file_size follows innodb_log_files_in_group", () => {
    const out = render("[mysqld]\ninnodb_log_file_size = 256M\ninnodb_log_files_in_group = 4\n", "mariadb 11.8.9");
    expect(out.options).toContainEqual({ name: "innodb_log_file_size", value: "1G" });
    expect(out.translation.find((t) => t.option === "innodb_log_files_in_group")?.fate).toBe("drop");
  });

  it("warns for versions older than the table covers", () => {
    expect(render("[mysqld]\n", "mysql 5.7.44" as Target).warnings.join("\n")).toMatch(/MySQL 5\.7\.44 is older/);
  });
});

describe("table hygiene", () => {
  it("has one entry per option and a reason for every fate", () => {
    const names = DIALECT_TABLE.map((o) => o.name);
    expect(new Set(names).size).toBe(names.length);
    for (const o of DIALECT_TABLE) expect(o.rules.length, o.name).toBeGreaterThan(0);
  });

  it("never drops silently: the whole seed config at once gives every option a fate and a reason", () => {
    const text = `[mysqld]\n${SEED.map(([o, v]) => (v === null ? o : `${o}=${v}`)).join("\n")}\n`;
    for (const target of TARGETS) {
      const out = render(text, target);
      for (const [o] of SEED) {
        const entry = out.translation.find((t) => t.option === o.replace(/-/g, "_"));
        expect(entry, `${o} on ${target}`).toBeDefined();
        expect(entry!.reason.length, `${o} on ${target}`).toBeGreaterThan(0);
      }
      // the one warning: the seed's innodb_log_file_size is read as a per-file size
      expect(
        out.warnings.map((w) => w.replace(/ \(.*?\):.*/, "")),
        target,
      ).toEqual(target === "mysql 8.0.28" ? [] : ["innodb_log_file_size"]);
    }
  });
});
