/**
 * The dialect's rules: the building blocks of the table (keep, rename, drop, a rule per family and version range,
 * the kinds of row) and the translations that are a function of the value (flush method, redo log size,
 * doublewrite, max_connections, thread cache, snapshot isolation), with the value spellings they share.
 */
import { parseSize } from "../model/scenario/schema.ts";
import { inRange } from "./version.ts";
import type {
  DialectContext,
  DialectOption,
  DialectRule,
  Family,
  RenderedOption,
  StorageKind,
} from "./dialect-types.ts";

// ---------------------------------------------------------------------------------------------------------------
// Building blocks

export type Apply = DialectRule["apply"];

export const keep =
  (reason: string): Apply =>
  (name, value) => ({ fate: "keep", lines: [{ name, value }], reason });

export const rename =
  (to: string, reason: string): Apply =>
  (_name, value) => ({ fate: "rename", lines: [{ name: to, value }], reason });

export const drop =
  (reason: string): Apply =>
  () => ({ fate: "drop", lines: [], reason });

export function rule(
  family: Family | "both",
  apply: Apply,
  range: { from?: string; until?: string } = {},
): DialectRule[] {
  const families: Family[] = family === "both" ? ["mariadb", "mysql"] : [family];
  return families.map((f) => ({ family: f, ...range, apply }));
}

/** "0", "off", "false" → OFF; "1", "on", "true", bare flag → ON; anything else unchanged (upper-cased). */
export function onOff(value: string | null): string {
  if (value === null) return "ON";
  const v = value.trim().toLowerCase();
  if (v === "0" || v === "off" || v === "false") return "OFF";
  if (v === "1" || v === "on" || v === "true") return "ON";
  return value.trim().toUpperCase();
}

/** Bytes → the shortest exact "NNNG"/"NNNM"/"NNNK"/bytes spelling. */
export function formatSize(bytes: number): string {
  for (const [unit, mult] of [
    ["G", 2 ** 30],
    ["M", 2 ** 20],
    ["K", 2 ** 10],
  ] as const) {
    if (bytes >= mult && bytes % mult === 0) return `${bytes / mult}${unit}`;
  }
  return String(bytes);
}

export function sizeOf(name: string, value: string | null): number {
  const n = value === null ? undefined : parseSize(value);
  if (n === undefined) throw new Error(`${name}: expected a size, got ${JSON.stringify(value)}`);
  return n;
}

/** Translate with the value transformed, reporting "keep" when nothing changed. */
export const mapValue =
  (fn: (v: string | null) => string | null, reason: string): Apply =>
  (name, value) => {
    const out = fn(value);
    return { fate: out === value ? "keep" : "translate", lines: [{ name, value: out }], reason };
  };

export const REMOVED_QC =
  "removed in MySQL 8.0.3: MySQL has no query cache, which is what the seed's query_cache_size=0/type=0 ask for";
export const LAB = "lab plumbing, the same on every server";
export const PIN = "fairness pin: same value on every server (see lab/my.cnf)";

// ---------------------------------------------------------------------------------------------------------------
// Flush method: neutral meaning is MySQL's (and the seed's 5.1 meaning)

/**
 * How InnoDB treats its data files and its redo log, in MySQL's terms (refman "innodb_flush_method"; verified on
 * MySQL 9.7.4 via /proc/PID/fdinfo: with O_DIRECT only the data files carry O_DIRECT, `#ib_redoN` never does).
 */
export const FLUSH_METHODS: Record<string, { dataDirect: boolean; logWriteThrough: boolean; noFsync: boolean }> = {
  FSYNC: { dataDirect: false, logWriteThrough: false, noFsync: false },
  O_DSYNC: { dataDirect: false, logWriteThrough: true, noFsync: false },
  O_DIRECT: { dataDirect: true, logWriteThrough: false, noFsync: false },
  O_DIRECT_NO_FSYNC: { dataDirect: true, logWriteThrough: false, noFsync: true },
};
/** Numeric spellings accepted by old servers. */
export const FLUSH_NUMERIC: Record<string, string> = {
  "0": "FSYNC",
  "1": "O_DSYNC",
  "4": "O_DIRECT",
  "5": "O_DIRECT_NO_FSYNC",
};

export function flushMethodOf(value: string | null): string {
  const v = (value ?? "").trim().toUpperCase();
  return FLUSH_NUMERIC[v] ?? (v === "FDATASYNC" ? "FSYNC" : v);
}

export const LOG_BUFFERED_WHY =
  "MySQL never opens its redo log with O_DIRECT (its O_DIRECT is for data files only; verified on 9.7.4), and MariaDB " +
  "buffers ib_logfile0 on tmpfs whatever it is told (11.8.9 and 10.11.19 report innodb_log_file_buffering=ON and log " +
  '"Buffered log writes"), so the redo log is buffered on every server and storage kind';

export function storageNote(kind: StorageKind): string {
  return kind === "tmpfs"
    ? "; on tmpfs O_DIRECT needs Linux ≥6.6 (older kernels refuse it: MySQL continues buffered while still reporting O_DIRECT)"
    : "";
}

export const flushMariadbOld: Apply = (name, value, ctx) => {
  const m = flushMethodOf(value);
  const known = FLUSH_METHODS[m];
  const lines: RenderedOption[] = [{ name, value: m === "FSYNC" ? "fsync" : m }];
  let asymmetry: string | undefined;
  if (inRange(ctx.version, "10.8.4")) lines.push({ name: "innodb_log_file_buffering", value: "ON" });
  if (known?.noFsync) {
    asymmetry =
      "innodb_flush_method=O_DIRECT_NO_FSYNC: MariaDB ≥10.6 treats it like O_DIRECT (still fsyncs data files), MySQL skips the fsync";
  }
  return {
    fate: lines.length > 1 ? "translate" : "keep",
    lines,
    reason: `data files as MySQL's ${m}; redo log buffered: ${LOG_BUFFERED_WHY}${storageNote(ctx.storageKind)}`,
    asymmetry,
  };
};

export const flushMariadb11: Apply = (_name, value, ctx) => {
  const m = flushMethodOf(value);
  const known = FLUSH_METHODS[m];
  if (!known) {
    return {
      fate: "keep",
      lines: [{ name: "innodb_flush_method", value }],
      reason: `unknown flush method "${value}": passed through (deprecated in MariaDB 11.0)`,
      warning: `innodb_flush_method=${value} is not one of ${Object.keys(FLUSH_METHODS).join(", ")}`,
    };
  }
  return {
    fate: "translate",
    lines: [
      { name: "innodb_data_file_buffering", value: known.dataDirect ? "OFF" : "ON" },
      { name: "innodb_data_file_write_through", value: "OFF" },
      { name: "innodb_log_file_buffering", value: "ON" },
      { name: "innodb_log_file_write_through", value: known.logWriteThrough ? "ON" : "OFF" },
    ],
    reason:
      `innodb_flush_method is deprecated in MariaDB 11.0 (mapped onto the *_buffering/*_write_through switches); ` +
      `MySQL's ${m} means data files ${known.dataDirect ? "O_DIRECT" : "buffered"}, redo log buffered` +
      `${known.logWriteThrough ? " and opened O_DSYNC" : ""}. Redo log buffered: ${LOG_BUFFERED_WHY}${storageNote(ctx.storageKind)}`,
    asymmetry: known.noFsync
      ? "innodb_flush_method=O_DIRECT_NO_FSYNC: MariaDB 11 has no equivalent (MDEV-33545 maps it to innodb_doublewrite=fast); rendered as O_DIRECT, which still fsyncs data files"
      : undefined,
  };
};

export const flushMysql: Apply = (name, value, ctx) => {
  const m = flushMethodOf(value);
  const v = m === "FSYNC" ? "fsync" : m;
  return {
    fate: v === value ? "keep" : "translate",
    lines: [{ name, value: v }],
    reason: `MySQL's ${m}: data files ${FLUSH_METHODS[m]?.dataDirect ? "O_DIRECT" : "buffered"}, redo log buffered (MySQL has no O_DIRECT redo)${storageNote(ctx.storageKind)}`,
  };
};

// ---------------------------------------------------------------------------------------------------------------
// Redo log capacity

/** Legacy `innodb_log_files_in_group` (default 2 in MySQL/MariaDB 5.x). */
export function filesInGroup(ctx: DialectContext): number {
  const v = ctx.neutral.get("innodb_log_files_in_group");
  const n = v === undefined || v === null ? 2 : Number(v);
  return Number.isInteger(n) && n > 0 ? n : 2;
}

export const redoCapacityToMariadb: Apply = (name, value) => ({
  fate: "rename",
  lines: [{ name: "innodb_log_file_size", value: formatSize(sizeOf(name, value)) }],
  reason: "MariaDB ≥10.5 writes one ib_logfile0, so its innodb_log_file_size is the whole redo capacity",
});

export const redoCapacityToOldMysql: Apply = (name, value) => {
  const total = sizeOf(name, value);
  return {
    fate: "translate",
    lines: [
      { name: "innodb_log_file_size", value: formatSize(total / 2) },
      { name: "innodb_log_files_in_group", value: "2" },
    ],
    reason:
      "MySQL before 8.0.30 has no innodb_redo_log_capacity: capacity = innodb_log_file_size × innodb_log_files_in_group",
  };
};

export const legacyLogFileSize =
  (target: string, why: string): Apply =>
  (name, value, ctx) => {
    const files = filesInGroup(ctx);
    const total = sizeOf(name, value) * files;
    return {
      fate: "translate",
      lines: [{ name: target, value: formatSize(total) }],
      reason: `the neutral innodb_log_file_size is the 5.x per-file size: ${value} × ${files} files (innodb_log_files_in_group) = ${formatSize(total)} of redo; ${why}`,
      warning: ctx.neutral.has("innodb_log_files_in_group")
        ? undefined
        : `innodb_log_file_size=${value} is read as the 5.x per-file size × ${files} files = ${formatSize(total)} of redo; write innodb_redo_log_capacity to give the total`,
    };
  };

// ---------------------------------------------------------------------------------------------------------------
// Doublewrite

export const doublewrite =
  (family: Family): Apply =>
  (name, value, ctx) => {
    const v = onOff(value);
    const valid =
      family === "mysql"
        ? ["ON", "OFF", "DETECT_AND_RECOVER", "DETECT_ONLY"]
        : inRange(ctx.version, "11.0.6")
          ? ["ON", "OFF", "FAST"]
          : ["ON", "OFF"];
    if (!valid.includes(v)) {
      return {
        fate: "translate",
        lines: [{ name, value: "ON" }],
        reason: `innodb_doublewrite=${value} does not exist on this server; rendered ON`,
        asymmetry: `innodb_doublewrite=${value} exists on one family only; rendered as ON on ${family}`,
      };
    }
    const out = v === "FAST" ? "fast" : v;
    return {
      fate: out === value ? "keep" : "translate",
      lines: [{ name, value: out }],
      reason: "ON/OFF spelled out: MySQL ≥8.0.30 and MariaDB ≥11.0.6 made it an enum",
    };
  };

// ---------------------------------------------------------------------------------------------------------------
// max_connections

export const MIN_CONNECTIONS = 151;

export function derivedMaxConnections(maxThreads: number): number {
  return Math.max(MIN_CONNECTIONS, maxThreads + 10);
}

export const maxConnections: Apply = (name, value, ctx) => {
  const need = derivedMaxConnections(ctx.maxThreads);
  if (value === null || value.trim().toLowerCase() === "auto") {
    return {
      fate: "translate",
      lines: [{ name, value: String(need) }],
      reason: `auto: max(${MIN_CONNECTIONS}, max threads ${ctx.maxThreads} + 10) = ${need} (fewer gives error 1040 at high thread counts)`,
    };
  }
  const n = Number(value);
  return {
    fate: "keep",
    lines: [{ name, value }],
    reason: PIN,
    warning:
      Number.isFinite(n) && n < ctx.maxThreads + 10
        ? `max_connections=${value} is below max threads ${ctx.maxThreads} + 10: expect error 1040 (Too many connections)`
        : undefined,
  };
};

/** The max_connections the renderer will write, from the merged neutral options. */
export function effectiveMaxConnections(ctx: DialectContext): number {
  const v = ctx.neutral.get("max_connections");
  const n = v === undefined || v === null || v.trim().toLowerCase() === "auto" ? NaN : Number(v);
  return Number.isFinite(n) ? n : derivedMaxConnections(ctx.maxThreads);
}

/**
 * MariaDB silently caps thread_cache_size at max_connections (11.8.9 and 10.11.19 report 151 for 512); MySQL keeps
 * 512. A cache larger than max_connections can never fill, so both get min(value, max_connections).
 */
export const threadCache =
  (written: string, why: string): Apply =>
  (name, value, ctx) => {
    const max = effectiveMaxConnections(ctx);
    const n = Number(value);
    const out = Number.isFinite(n) && n > max ? String(max) : value;
    const capped = out !== value;
    const renamed = written !== "thread_cache_size";
    return {
      fate: renamed ? "rename" : capped ? "translate" : "keep",
      lines: [{ name: "thread_cache_size", value: out }],
      reason: [
        why,
        capped
          ? `capped at max_connections=${max}: MariaDB caps it there silently, MySQL does not, and a bigger cache never fills`
          : "",
        !renamed && !capped ? PIN : "",
      ]
        .filter((x) => x !== "")
        .join("; "),
    };
  };

// ---------------------------------------------------------------------------------------------------------------
// The table

export const plumbing = (name: string, about: string): DialectOption => ({
  name,
  about,
  rules: rule("both", keep(LAB)),
});
export const pin = (name: string, about: string, reason = PIN): DialectOption => ({
  name,
  about,
  rules: rule("both", keep(reason)),
});

export const mysqlOnly = (
  name: string,
  about: string,
  mysqlReason: string,
  mariadbReason: string,
  mariadbFrom?: string,
): DialectOption => ({
  name,
  about,
  rules: [
    ...rule("mysql", keep(mysqlReason)),
    ...(mariadbFrom ? rule("mariadb", keep(`still present before ${mariadbFrom}`), { until: mariadbFrom }) : []),
    ...rule("mariadb", drop(mariadbReason), mariadbFrom ? { from: mariadbFrom } : {}),
  ],
});

export const queryCache = (name: string): DialectOption => ({
  name,
  about: "query cache (seed: off)",
  rules: [
    ...rule("mariadb", keep("MariaDB still has the query cache; the seed turns it off")),
    ...rule("mysql", keep("MySQL before 8.0.3 has the query cache"), { until: "8.0.3" }),
    ...rule("mysql", drop(REMOVED_QC), { from: "8.0.3" }),
  ],
});

/** Whether a MariaDB version has innodb_snapshot_isolation (10.6.18, 10.11.8, 11.4.2 and later in each series). */
export const SNAPSHOT_ISOLATION_RANGES: Array<{ from: string; until?: string }> = [
  { from: "10.6.18", until: "10.7.0" },
  { from: "10.11.8", until: "11.0.0" },
  { from: "11.4.2" },
];

export const snapshotIsolationMariadb: Apply = (name, value, ctx) => {
  const known = SNAPSHOT_ISOLATION_RANGES.some((r) => inRange(ctx.version, r.from, r.until));
  return known
    ? {
        fate: "keep",
        lines: [{ name, value }],
        reason:
          "pinned: default ON from MariaDB 11.6.2 (write conflicts raise error 1020); OFF behaves like MySQL's REPEATABLE READ",
      }
    : {
        fate: "rename",
        lines: [{ name: `loose_${name}`, value }],
        reason:
          "this MariaDB version may predate innodb_snapshot_isolation (10.6.18/10.11.8/11.4.2): loose_ lets it ignore the pin",
      };
};
