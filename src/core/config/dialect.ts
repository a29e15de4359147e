/**
 * data table: the dialect table. For each neutral option (the names lab/my.cnf uses) and each server family and version range,
 * what the option becomes — keep, rename, translate (a function of the value), or drop with the reason.
 *
 * Neutral names are the classic MySQL names; the seed's own spellings (`thread_cache`, `innodb_log_file_size` as
 * the 5.1 per-file size) are understood too. Options not in the table are passed through unchanged by the renderer
 * and flagged "unknown to the dialect table" (see render.ts). Pure data, no I/O: the rules its rows are built from
 * and the translations that depend on the value live in dialect-rules.ts, its vocabulary in dialect-types.ts.
 *
 * Versions covered: MariaDB 10.6–10.11 and 11.x, MySQL 8.0, 8.4 and 9.x. Facts were checked against MariaDB
 * 10.11.19, MariaDB 11.8.9 and MySQL 9.7.4 (`--verbose --help`, SHOW GLOBAL VARIABLES, /proc/PID/fdinfo); the rest is
 * from the release notes named in each reason.
 */
import { inRange, type Version } from "./version.ts";
import type { DialectOption, DialectRule, Family } from "./dialect-types.ts";
import {
  keep,
  rename,
  drop,
  rule,
  PIN,
  flushMariadbOld,
  flushMariadb11,
  flushMysql,
  redoCapacityToMariadb,
  redoCapacityToOldMysql,
  legacyLogFileSize,
  doublewrite,
  maxConnections,
  threadCache,
  plumbing,
  pin,
  mysqlOnly,
  queryCache,
  snapshotIsolationMariadb,
} from "./dialect-rules.ts";

/** Oldest versions the table is written for; older servers get a warning. */
export const SUPPORTED_FROM: Record<Family, string> = { mariadb: "10.6.0", mysql: "8.0.0" };

export const DIALECT_TABLE: readonly DialectOption[] = [
  // --- lab plumbing
  plumbing("user", "OS user the server drops to"),
  plumbing("datadir", "data directory (the storage mount)"),
  plumbing("tmpdir", "temporary files (seed: $TEMP_DIR)"),
  plumbing("socket", "Unix socket"),
  plumbing("port", "TCP port"),
  plumbing("bind_address", "listen address"),
  plumbing("pid_file", "pid file"),
  plumbing("log_error", "error log (unset: stderr)"),
  plumbing("innodb_data_home_dir", "InnoDB system tablespace directory (seed: $DATA_DIR)"),
  plumbing("innodb_log_group_home_dir", "redo log directory (seed: $DATA_DIR)"),
  plumbing("innodb_data_file_path", "system tablespace (seed: ibdata1:128M:autoextend)"),
  plumbing("server_id", "replication id"),
  plumbing("default_storage_engine", "default engine"),
  plumbing("innodb_file_per_table", "one .ibd per table"),
  plumbing("lower_case_table_names", "identifier case"),
  plumbing("sql_mode", "SQL mode"),
  plumbing("open_files_limit", "file descriptor limit"),
  plumbing("innodb_open_files", "open .ibd limit"),
  plumbing("lc_messages", "message language"),
  plumbing("lc_messages_dir", "message directory"),
  plumbing("general_log", "general query log"),
  plumbing("slow_query_log", "slow query log"),
  plumbing("log_warnings", "MariaDB error-log verbosity"),

  // --- the seed's values
  pin("innodb_buffer_pool_size", "seed 1024M", "seed value, valid everywhere"),
  pin("innodb_log_buffer_size", "seed 16M", "seed value, valid everywhere"),
  pin("innodb_flush_log_at_trx_commit", "seed 1", "seed value (the default on both)"),
  pin("innodb_lock_wait_timeout", "seed 50", "seed value (the default on both)"),
  pin("innodb_max_dirty_pages_pct", "seed 80", "seed value (both default to 90 now)"),
  pin("table_open_cache", "seed 512", "seed value, valid everywhere"),
  {
    name: "thread_cache_size",
    about: "seed 512 (as thread_cache), at most max_connections",
    rules: rule("both", threadCache("thread_cache_size", "")),
  },
  {
    name: "thread_cache",
    about: "the seed's spelling of thread_cache_size",
    rules: rule(
      "both",
      threadCache(
        "thread_cache",
        "not a variable: MariaDB accepts it only as a prefix of thread_cache_size, MySQL (no prefix matching since 5.7) refuses to start",
      ),
    ),
  },
  queryCache("query_cache_size"),
  queryCache("query_cache_type"),
  queryCache("query_cache_limit"),
  queryCache("query_cache_min_res_unit"),
  queryCache("query_cache_wlock_invalidate"),
  {
    name: "query_cache_strip_comments",
    about: "MariaDB query cache option",
    rules: [
      ...rule("mariadb", keep("MariaDB query cache option")),
      ...rule("mysql", drop("not applicable: MariaDB-only query cache option")),
    ],
  },
  {
    name: "innodb_additional_mem_pool_size",
    about: "seed 32M; long gone",
    rules: [
      ...rule("mariadb", drop("removed in MariaDB 10.2.2 (InnoDB uses the system allocator); the server refuses it")),
      ...rule("mysql", drop("removed in MySQL 5.7.4 (InnoDB uses the system allocator); the server refuses it")),
    ],
  },
  {
    name: "innodb_use_sys_malloc",
    about: "long gone",
    rules: [
      ...rule("mariadb", drop("removed in MariaDB 10.2.2; the server refuses it")),
      ...rule("mysql", drop("removed in MySQL 5.7.4; the server refuses it")),
    ],
  },
  {
    name: "innodb_thread_concurrency",
    about: "seed 0 (no throttle)",
    rules: [
      ...rule("mysql", keep("MySQL still has the InnoDB concurrency throttle; 0 = unlimited (the default)")),
      ...rule("mariadb", keep("present before MariaDB 10.6.0"), { until: "10.6.0" }),
      ...rule(
        "mariadb",
        (_n, value) => ({
          fate: "drop",
          lines: [],
          reason: "removed in MariaDB 10.6.0 (the server refuses it); MariaDB never throttles, which equals 0",
          asymmetry:
            value !== null && value.trim() !== "0"
              ? `innodb_thread_concurrency=${value}: MariaDB ≥10.6 cannot throttle InnoDB threads`
              : undefined,
        }),
        { from: "10.6.0" },
      ),
    ],
  },
  {
    name: "innodb_redo_log_capacity",
    about: "redo capacity: the seed's 2 × 256M = 512M",
    rules: [
      ...rule("mysql", keep("MySQL ≥8.0.30 sizes the redo log by capacity"), { from: "8.0.30" }),
      ...rule("mysql", redoCapacityToOldMysql, { until: "8.0.30" }),
      ...rule("mariadb", redoCapacityToMariadb, { from: "10.5.0" }),
    ],
  },
  {
    name: "innodb_log_file_size",
    about: "the seed's per-file redo size (5.x: × innodb_log_files_in_group, default 2)",
    rules: [
      ...rule("mariadb", legacyLogFileSize("innodb_log_file_size", "MariaDB ≥10.5 keeps it all in one ib_logfile0"), {
        from: "10.5.0",
      }),
      ...rule(
        "mysql",
        legacyLogFileSize(
          "innodb_redo_log_capacity",
          "MySQL ≥8.0.30 sizes the redo log by innodb_redo_log_capacity (innodb_log_file_size is deprecated, and gone in 9.7)",
        ),
        { from: "8.0.30" },
      ),
      ...rule("mysql", keep("MySQL before 8.0.30: per-file size × innodb_log_files_in_group"), { until: "8.0.30" }),
    ],
  },
  {
    name: "innodb_log_files_in_group",
    about: "the 5.x redo file count",
    rules: [
      ...rule(
        "mariadb",
        drop("folded into innodb_log_file_size: MariaDB ≥10.5 writes one ib_logfile0 (option removed in 10.6.0)"),
        { from: "10.5.0" },
      ),
      ...rule("mysql", drop("folded into innodb_redo_log_capacity (deprecated in MySQL 8.0.30, gone in 9.7)"), {
        from: "8.0.30",
      }),
      ...rule("mysql", keep("MySQL before 8.0.30"), { until: "8.0.30" }),
    ],
  },
  {
    name: "innodb_doublewrite",
    about: "seed 0 (off)",
    rules: [...rule("mariadb", doublewrite("mariadb")), ...rule("mysql", doublewrite("mysql"))],
  },
  {
    name: "innodb_flush_method",
    about: "seed O_DIRECT: data files direct, redo log buffered",
    rules: [
      ...rule("mariadb", flushMariadbOld, { until: "11.0.0" }),
      ...rule("mariadb", flushMariadb11, { from: "11.0.0" }),
      ...rule("mysql", flushMysql),
    ],
  },
  {
    name: "skip_grant_tables",
    about: "seed: no privilege checks",
    rules: rule(
      "both",
      drop(
        "bypasses authentication, and on MySQL ≥8.0 also forces skip_networking (WL#4321), so no TCP client could connect; the lab creates a benchmark user instead",
      ),
    ),
  },
  {
    name: "language",
    about: "seed: ./sql/share/english",
    rules: rule(
      "both",
      drop(
        "a path into the 2010 source tree; deprecated for lc_messages_dir/lc_messages, and packaged servers find their messages themselves",
      ),
    ),
  },

  // --- fairness pins
  pin("skip_log_bin", "no binary log on either side (MySQL ≥8.0 logs by default, MariaDB does not)"),
  pin("log_bin", "durable profile: binary log on both"),
  pin("sync_binlog", "binlog fsync per commit (MySQL default 1, MariaDB 0)"),
  {
    name: "binlog_format",
    about: "durable profile: ROW on both (MariaDB defaults to MIXED)",
    rules: [
      ...rule("mariadb", keep(PIN)),
      ...rule("mysql", keep(PIN), { until: "8.0.34" }),
      ...rule(
        "mysql",
        (name, value) =>
          (value ?? "").trim().toUpperCase() === "ROW"
            ? {
                fate: "drop",
                lines: [],
                reason: "ROW is MySQL's default, and the option is deprecated since 8.0.34 (a warning at every start)",
              }
            : {
                fate: "keep",
                lines: [{ name, value }],
                reason: "deprecated since MySQL 8.0.34",
                warning: `binlog_format=${value} is deprecated on MySQL ≥8.0.34`,
              },
        { from: "8.0.34" },
      ),
    ],
  },
  pin("performance_schema", "MySQL ON, MariaDB OFF by default"),
  pin("character_set_server", "utf8mb4 on both"),
  pin("collation_server", "utf8mb4_general_ci on both (MySQL defaults to utf8mb4_0900_ai_ci, MariaDB 11.8 to uca1400)"),
  {
    name: "character_set_collations",
    about: "MariaDB ≥11.2: per-charset default collation",
    rules: [
      ...rule(
        "mariadb",
        keep(
          "MariaDB ≥11.2 (11.8 defaults utf8mb4 to uca1400_ai_ci through it, overriding collation_server for CHARACTER SET utf8mb4)",
        ),
        {
          from: "11.2.0",
        },
      ),
      ...rule(
        "mariadb",
        drop("added in MariaDB 11.2; before it CHARACTER SET utf8mb4 already means utf8mb4_general_ci"),
        { until: "11.2.0" },
      ),
      ...rule(
        "mysql",
        drop(
          "not applicable: MySQL has no character_set_collations; collation_server decides the default of new databases and tables",
        ),
      ),
    ],
  },
  pin("innodb_adaptive_hash_index", "OFF on both (MySQL 8.0 had ON)"),
  pin("innodb_io_capacity", "MySQL 10000, MariaDB 200 by default"),
  pin("innodb_io_capacity_max", "both derive it differently"),
  pin("innodb_flush_neighbors", "MySQL 0, MariaDB 1 by default"),
  pin("innodb_max_dirty_pages_pct_lwm", "MySQL 10, MariaDB 0 by default"),
  pin("innodb_buffer_pool_dump_at_shutdown", "no warm buffer pool from a previous start"),
  pin("innodb_buffer_pool_load_at_startup", "no warm buffer pool from a previous start"),
  pin("skip_name_resolve", "no DNS lookups per connection"),
  pin("host_cache_size", "host cache"),
  { name: "max_connections", about: "max threads + 10, at least 151", rules: rule("both", maxConnections) },
  pin("max_prepared_stmt_count", "sysbench prepares ~10 statements per table per connection; 16382 is too few"),
  pin("transaction_isolation", "REPEATABLE-READ on both"),
  {
    name: "tx_isolation",
    about: "old name of transaction_isolation",
    rules: rule(
      "both",
      rename("transaction_isolation", "tx_isolation was removed in MySQL 8.0.3 and renamed in MariaDB 11.1"),
    ),
  },
  pin("innodb_read_io_threads", "MySQL sizes it from CPUs"),
  pin("innodb_write_io_threads", "MySQL sizes it from CPUs"),
  pin("innodb_purge_threads", "MySQL sizes it from CPUs"),
  pin("innodb_autoinc_lock_mode", "MySQL 2, MariaDB 1 by default"),
  pin("innodb_numa_interleave", "MySQL ON, MariaDB OFF by default"),
  pin("thread_handling", "one thread per connection on both (never pool-of-threads on one side)"),
  {
    name: "innodb_snapshot_isolation",
    about: "MariaDB: raise 1020 on write conflicts",
    rules: [
      ...rule("mariadb", snapshotIsolationMariadb),
      ...rule(
        "mysql",
        drop(
          "not applicable: MySQL has no innodb_snapshot_isolation; its REPEATABLE READ never raises 1020, which is what OFF means",
        ),
      ),
    ],
  },
  mysqlOnly(
    "innodb_change_buffering",
    "MySQL: none (8.4 default); MariaDB has no change buffer",
    "MySQL still has the change buffer (9.7.4 defaults to all)",
    "MariaDB ignores it since 10.9 and removed it in 11.0: no change buffer, which equals none",
    "10.9.0",
  ),
  mysqlOnly(
    "innodb_buffer_pool_instances",
    "MySQL: 1 pool, like MariaDB",
    "MySQL sizes it from the pool and CPUs",
    "removed in MariaDB 10.6.0: always one buffer pool",
    "10.6.0",
  ),
  mysqlOnly(
    "innodb_page_cleaners",
    "MySQL: 1 cleaner, like MariaDB",
    "MySQL sizes it from the pool instances",
    "removed in MariaDB 10.6.0: always one page cleaner",
    "10.6.0",
  ),
  {
    name: "container_aware",
    about: "MySQL ≥9.3: size variables from the container's CPU/memory limits",
    rules: [
      ...rule(
        "mysql",
        keep(
          "pinned OFF (9.7.4's default): --cpus/--memory must not change MySQL's sizing when they cannot change MariaDB's",
        ),
        { from: "9.3.0" },
      ),
      ...rule("mysql", drop("added in MySQL 9.3: older servers never size from the container"), { until: "9.3.0" }),
      ...rule("mariadb", drop("not applicable: MariaDB never sizes from container limits")),
    ],
  },
  mysqlOnly(
    "mysqlx",
    "MySQL: X Plugin off (no extra listener and threads)",
    "MySQL ≥8.0 loads the X Plugin by default",
    "not applicable: MariaDB has no X Plugin",
  ),
];

const BY_NAME = new Map(DIALECT_TABLE.map((o) => [o.name, o]));

export function dialectOption(name: string): DialectOption | undefined {
  return BY_NAME.get(name);
}

/** The rule for `name` on `family` at `version`, or undefined when the option or the version range is unknown. */
export function findRule(name: string, family: Family, version: Version): DialectRule | undefined {
  return BY_NAME.get(name)?.rules.find((r) => r.family === family && inRange(version, r.from, r.until));
}

/** Groups of options that set the same thing: a later assignment of one member replaces the others. */
export const EXCLUSIVE_GROUPS: readonly (readonly string[])[] = [
  ["skip_log_bin", "log_bin", "disable_log_bin"],
  ["innodb_redo_log_capacity", "innodb_log_file_size"],
  ["thread_cache", "thread_cache_size"],
  ["transaction_isolation", "tx_isolation"],
];
