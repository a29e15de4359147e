/**
 * The must-match comparison: a curated set of effective settings that must be equal on every server of a
 * comparison, computed from each server's `SHOW GLOBAL VARIABLES`. Values are normalised so that different
 * spellings of the same behaviour compare equal (MariaDB's innodb_log_file_size vs MySQL's innodb_redo_log_capacity,
 * OFF vs 0, MariaDB's *_buffering switches vs MySQL's innodb_flush_method), and an absent variable counts as the
 * behaviour it stands for where that is known (MariaDB has no change buffer = "none"). Pure.
 */
import type { MustMatchRow } from "../model/results.ts";
import { normalizeOptionName } from "./cnf.ts";
import { formatSize, onOff } from "./dialect-rules.ts";
import { type Family } from "./dialect-types.ts";

/** One server's input to {@link mustMatch}: its family, SHOW GLOBAL VARIABLES and deliberate overrides. */
export interface MustMatchServer {
  id: string;
  family: Family;
  /** SHOW GLOBAL VARIABLES, names in any case. */
  variables: Record<string, string>;
  /** Keys of this server's servers[].config.set: neutral names or server variable names. */
  deliberate: string[];
  /** Ssl_cipher of the benchmark connection ("" = plaintext); omit when not measured. */
  sslCipher?: string | null;
}

type Getter = (name: string) => string | null;

interface RowDef {
  variable: string;
  /** Neutral options and server variables that drive this row (a per-server set of any makes it deliberate). */
  affects: string[];
  value: (get: Getter, family: Family, s: MustMatchServer) => string | null;
  /** Returns a note and whether to skip the comparison (e.g. sync_binlog without a binlog). */
  skip?: (servers: Array<{ get: Getter }>) => string | undefined;
  /** Compare a derived key instead of the shown value (TLS: on/off, not the cipher). */
  key?: (value: string | null) => string | null;
}

function bytes(v: string | null): string | null {
  if (v === null || !/^\d+$/.test(v.trim())) return v;
  return formatSize(Number(v.trim()));
}

function num(v: string | null): string | null {
  if (v === null) return null;
  const n = Number(v);
  return Number.isFinite(n) && v.trim() !== "" ? String(n) : v;
}

function bool(v: string | null): string | null {
  return v === null ? null : onOff(v);
}

const plain =
  (name: string, norm: (v: string | null) => string | null = (v) => v) =>
  (get: Getter): string | null =>
    norm(get(name));

/** Absent on `family` means `meaning` (the behaviour the variable would pin). */
const absentMeans =
  (name: string, family: Family, meaning: string, norm: (v: string | null) => string | null = (v) => v) =>
  (get: Getter, f: Family): string | null => {
    const v = get(name);
    return v === null && f === family ? meaning : norm(v);
  };

/** MySQL's flush method → how data files and the redo log are written. */
function mysqlIo(get: Getter): string | null {
  const fm = get("innodb_flush_method");
  if (fm === null) return null;
  const m = fm.toUpperCase();
  const data = m === "O_DIRECT" || m === "O_DIRECT_NO_FSYNC" ? "direct" : "buffered";
  const dataSync = m === "O_DIRECT_NO_FSYNC" ? "+no-fsync" : "";
  const log = m === "O_DSYNC" ? "buffered+write-through" : "buffered";
  return `data=${data}${dataSync} redo=${log}`;
}

/** MariaDB: the *_buffering/*_write_through switches (11.0+), or flush_method for data files (10.x). */
function mariadbIo(get: Getter): string | null {
  const dataBuf = get("innodb_data_file_buffering");
  const logBuf = get("innodb_log_file_buffering");
  let data: string | null;
  if (dataBuf !== null) {
    data =
      (onOff(dataBuf) === "OFF" ? "direct" : "buffered") +
      (onOff(get("innodb_data_file_write_through") ?? "OFF") === "ON" ? "+write-through" : "");
  } else {
    const fm = (get("innodb_flush_method") ?? "").toUpperCase();
    if (fm === "") return null;
    data =
      fm === "O_DIRECT" || fm === "O_DIRECT_NO_FSYNC"
        ? "direct"
        : fm === "O_DSYNC"
          ? "direct+write-through"
          : "buffered";
  }
  let log: string;
  if (logBuf !== null) {
    log =
      (onOff(logBuf) === "OFF" ? "direct" : "buffered") +
      (onOff(get("innodb_log_file_write_through") ?? "OFF") === "ON" ? "+write-through" : "");
  } else {
    log = (get("innodb_flush_method") ?? "").toUpperCase() === "O_DSYNC" ? "buffered+write-through" : "buffered";
  }
  return `data=${data} redo=${log}`;
}

/** Redo capacity in bytes: MySQL ≥8.0.30 innodb_redo_log_capacity, else file size × files. */
function redoCapacity(get: Getter, family: Family): string | null {
  const cap = get("innodb_redo_log_capacity");
  if (family === "mysql" && cap !== null) return bytes(cap);
  const size = get("innodb_log_file_size");
  if (size === null || !/^\d+$/.test(size)) return bytes(size);
  const files = Number(get("innodb_log_files_in_group") ?? "1");
  return bytes(String(Number(size) * (Number.isFinite(files) && files > 0 ? files : 1)));
}

/** collation_server, plus MariaDB ≥11.2's character_set_collations override for the server charset. */
function collation(get: Getter, family: Family): string | null {
  const coll = get("collation_server");
  if (family !== "mariadb" || coll === null) return coll;
  const cs = get("character_set_server");
  const map = get("character_set_collations");
  if (!cs || !map) return coll;
  for (const pair of map.split(",")) {
    const [k, v] = pair.split("=").map((x) => x.trim());
    if (k === cs && v) {
      const full = v.startsWith(`${cs}_`) ? v : `${cs}_${v}`;
      return full === coll ? coll : `${coll} (CHARACTER SET ${cs} → ${full} via character_set_collations)`;
    }
  }
  return coll;
}

function queryCache(get: Getter, family: Family): string | null {
  const type = get("query_cache_type");
  const size = get("query_cache_size");
  if (type === null && size === null) return family === "mysql" ? "OFF" : null;
  return onOff(type ?? "OFF") === "OFF" || size === "0" ? "OFF" : "ON";
}

const binlogOff = (servers: Array<{ get: Getter }>): string | undefined =>
  servers.every((s) => bool(s.get("log_bin")) === "OFF") ? "binary log off on every server: not compared" : undefined;

/** A per-server binary log switch makes the other binlog rows deliberate too. */
const BINLOG = ["log_bin", "skip_log_bin", "disable_log_bin"];

const ROWS: RowDef[] = [
  { variable: "innodb_buffer_pool_size", affects: [], value: plain("innodb_buffer_pool_size", bytes) },
  {
    variable: "redo log capacity",
    affects: ["innodb_redo_log_capacity", "innodb_log_file_size", "innodb_log_files_in_group"],
    value: redoCapacity,
  },
  { variable: "innodb_log_buffer_size", affects: [], value: plain("innodb_log_buffer_size", bytes) },
  { variable: "innodb_flush_log_at_trx_commit", affects: [], value: plain("innodb_flush_log_at_trx_commit") },
  { variable: "innodb_doublewrite", affects: [], value: plain("innodb_doublewrite", bool) },
  {
    variable: "data/redo file I/O",
    affects: [
      "innodb_flush_method",
      "innodb_data_file_buffering",
      "innodb_log_file_buffering",
      "innodb_data_file_write_through",
      "innodb_log_file_write_through",
    ],
    value: (get, f) => (f === "mysql" ? mysqlIo(get) : mariadbIo(get)),
  },
  { variable: "log_bin", affects: ["skip_log_bin", "disable_log_bin"], value: plain("log_bin", bool) },
  { variable: "sync_binlog", affects: BINLOG, value: plain("sync_binlog"), skip: binlogOff },
  {
    variable: "binlog_format",
    affects: BINLOG,
    value: plain("binlog_format", (v) => v?.toUpperCase() ?? null),
    skip: binlogOff,
  },
  { variable: "performance_schema", affects: [], value: plain("performance_schema", bool) },
  { variable: "character_set_server", affects: [], value: plain("character_set_server") },
  { variable: "collation_server", affects: ["character_set_collations"], value: collation },
  {
    variable: "transaction_isolation",
    affects: ["tx_isolation"],
    value: (get) => get("transaction_isolation") ?? get("tx_isolation"),
  },
  { variable: "max_connections", affects: [], value: plain("max_connections") },
  { variable: "innodb_adaptive_hash_index", affects: [], value: plain("innodb_adaptive_hash_index", bool) },
  { variable: "innodb_io_capacity", affects: [], value: plain("innodb_io_capacity") },
  { variable: "innodb_io_capacity_max", affects: [], value: plain("innodb_io_capacity_max") },
  { variable: "innodb_flush_neighbors", affects: [], value: plain("innodb_flush_neighbors") },
  { variable: "innodb_max_dirty_pages_pct", affects: [], value: plain("innodb_max_dirty_pages_pct", num) },
  { variable: "innodb_max_dirty_pages_pct_lwm", affects: [], value: plain("innodb_max_dirty_pages_pct_lwm", num) },
  { variable: "table_open_cache", affects: [], value: plain("table_open_cache") },
  { variable: "thread_cache_size", affects: ["thread_cache", "max_connections"], value: plain("thread_cache_size") },
  { variable: "innodb_lock_wait_timeout", affects: [], value: plain("innodb_lock_wait_timeout") },
  { variable: "query cache", affects: ["query_cache_type", "query_cache_size"], value: queryCache },
  {
    variable: "innodb_thread_concurrency",
    affects: [],
    value: absentMeans("innodb_thread_concurrency", "mariadb", "0"),
  },
  {
    variable: "innodb_change_buffering",
    affects: [],
    value: absentMeans("innodb_change_buffering", "mariadb", "none"),
  },
  {
    variable: "innodb_snapshot_isolation",
    affects: [],
    value: absentMeans("innodb_snapshot_isolation", "mysql", "OFF", bool),
  },
  {
    variable: "innodb_buffer_pool_instances",
    affects: [],
    value: absentMeans("innodb_buffer_pool_instances", "mariadb", "1"),
  },
  { variable: "innodb_page_cleaners", affects: [], value: absentMeans("innodb_page_cleaners", "mariadb", "1") },
  { variable: "innodb_autoinc_lock_mode", affects: [], value: plain("innodb_autoinc_lock_mode") },
  { variable: "innodb_read_io_threads", affects: [], value: plain("innodb_read_io_threads") },
  { variable: "innodb_write_io_threads", affects: [], value: plain("innodb_write_io_threads") },
  { variable: "innodb_purge_threads", affects: [], value: plain("innodb_purge_threads") },
  {
    variable: "innodb_buffer_pool_dump_at_shutdown",
    affects: [],
    value: plain("innodb_buffer_pool_dump_at_shutdown", bool),
  },
  {
    variable: "innodb_buffer_pool_load_at_startup",
    affects: [],
    value: plain("innodb_buffer_pool_load_at_startup", bool),
  },
  { variable: "max_prepared_stmt_count", affects: [], value: plain("max_prepared_stmt_count") },
  { variable: "skip_name_resolve", affects: [], value: plain("skip_name_resolve", bool) },
  { variable: "thread_handling", affects: [], value: plain("thread_handling") },
  {
    variable: "connection TLS",
    affects: [],
    value: (_g, _f, s) =>
      s.sslCipher === undefined
        ? null
        : s.sslCipher === null || s.sslCipher === ""
          ? "plaintext"
          : `TLS (${s.sslCipher})`,
    key: (v) => (v === null ? null : v === "plaintext" ? "plaintext" : "TLS"),
  },
];

/** The row labels of the must-match table, in order. */
export const MUST_MATCH_ROWS: readonly string[] = ROWS.map((r) => r.variable);

/**
 * Compare the curated set across servers. A row is `equal` when every server has the same normalised value (or the
 * row is not applicable, see `note`), and `deliberate` when a differing row is driven by some server's
 * servers[].config.set.
 */
export function mustMatch(servers: MustMatchServer[]): MustMatchRow[] {
  const withGet = servers.map((s) => {
    const vars = new Map(Object.entries(s.variables).map(([k, v]) => [k.toLowerCase(), v]));
    const get: Getter = (name) => vars.get(name) ?? null;
    return { s, get, deliberate: new Set(s.deliberate.map(normalizeOptionName)) };
  });
  const measuredTls = servers.some((s) => s.sslCipher !== undefined);
  return ROWS.filter((r) => r.variable !== "connection TLS" || measuredTls).map((r) => {
    const values: Record<string, string | null> = {};
    for (const { s, get } of withGet) values[s.id] = r.value(get, s.family, s);
    const skipNote = r.skip?.(withGet);
    const keys = withGet.map(({ s }) => (r.key ? r.key(values[s.id]) : values[s.id]));
    const equal = skipNote !== undefined || keys.every((k) => k === keys[0]);
    const drivers = new Set([normalizeOptionName(r.variable), ...r.affects]);
    const deliberate = !equal && withGet.some(({ deliberate: d }) => [...drivers].some((x) => d.has(x)));
    const row: MustMatchRow = { variable: r.variable, values, equal, deliberate };
    const missing = withGet.filter(({ s }) => values[s.id] === null).map(({ s }) => s.id);
    const note = skipNote ?? (missing.length ? `not reported by ${missing.join(", ")}` : undefined);
    if (note) row.note = note;
    return row;
  });
}

/** Rows that differ without being asked for: warnings, or errors under --strict. */
export function unexpectedDifferences(rows: MustMatchRow[]): MustMatchRow[] {
  return rows.filter((r) => !r.equal && !r.deliberate);
}

/** Variables that differ between any two servers by nature (identity, paths of the build, clocks). */
export const VOLATILE_VARIABLES: readonly string[] = [
  "hostname",
  "server_uuid",
  "server_uid",
  "pid_file",
  "timestamp",
  "version",
  "version_comment",
  "version_compile_machine",
  "version_compile_os",
  "version_source_revision",
  "gtid_executed",
  "gtid_purged",
  "gtid_binlog_pos",
  "gtid_binlog_state",
  "gtid_current_pos",
  "log_error",
  "general_log_file",
  "slow_query_log_file",
  "log_slow_query_file",
  "wsrep_node_name",
  "relay_log",
  "relay_log_basename",
  "relay_log_index",
  "log_bin_basename",
  "log_bin_index",
];

export interface VariableDiff {
  variable: string;
  a: string | null;
  b: string | null;
}

/** Every variable whose value differs between two servers (present on one side only included), sorted by name. */
export function diffVariables(
  a: Record<string, string>,
  b: Record<string, string>,
  opts: { ignore?: readonly string[] } = {},
): VariableDiff[] {
  const ignore = new Set((opts.ignore ?? []).map((x) => x.toLowerCase()));
  const la = new Map(Object.entries(a).map(([k, v]) => [k.toLowerCase(), v]));
  const lb = new Map(Object.entries(b).map(([k, v]) => [k.toLowerCase(), v]));
  const names = [...new Set([...la.keys(), ...lb.keys()])].filter((n) => !ignore.has(n)).sort();
  const out: VariableDiff[] = [];
  for (const variable of names) {
    const x = la.get(variable) ?? null;
    const y = lb.get(variable) ?? null;
    if (x !== y) out.push({ variable, a: x, b: y });
  }
  return out;
}
