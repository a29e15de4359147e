/**
 * sysbench 1.0.20's command-line options and stock scripts, as `sysbench --help` and `sysbench oltp_read_write help`
 * print them in the Debian package (bookworm 1.0.20+ds-5). Names are kept in their dashed form; sysbench treats `-`
 * and `_` alike (src/sb_options.c).
 */

export type OptionKind =
  | { type: "int"; min?: number }
  | { type: "number" }
  | { type: "bool" }
  | { type: "string" }
  | { type: "size" }
  | { type: "list" }
  | { type: "enum"; values: readonly string[] };

export interface OptionSpec {
  kind: OptionKind;
  group: "general" | "rand" | "log" | "db" | "mysql" | "oltp" | "script";
  description: string;
}

const int = (min = 0): OptionKind => ({ type: "int", min });
const bool: OptionKind = { type: "bool" };
const str: OptionKind = { type: "string" };
const list: OptionKind = { type: "list" };

/** Every option sysbench 1.0.20 accepts with the mysql driver and the stock OLTP scripts. */
export const SYSBENCH_OPTIONS: Readonly<Record<string, OptionSpec>> = {
  // General options
  threads: { kind: int(1), group: "general", description: "number of threads to use [1]" },
  events: { kind: int(), group: "general", description: "limit for total number of events [0]" },
  time: { kind: int(), group: "general", description: "limit for total execution time in seconds [10]" },
  "forced-shutdown": {
    kind: str,
    group: "general",
    description: "seconds to wait after --time before forcing shutdown, or 'off' [off]",
  },
  "thread-stack-size": { kind: { type: "size" }, group: "general", description: "size of stack per thread [64K]" },
  rate: { kind: int(), group: "general", description: "average transactions rate, 0 for unlimited [0]" },
  "report-interval": { kind: int(), group: "general", description: "intermediate report interval in seconds [0]" },
  "report-checkpoints": {
    kind: list,
    group: "general",
    description: "dump full statistics and reset counters at these seconds []",
  },
  debug: { kind: bool, group: "general", description: "print more debugging info [off]" },
  validate: { kind: bool, group: "general", description: "perform validation checks where possible [off]" },
  help: { kind: bool, group: "general", description: "print help and exit [off]" },
  version: { kind: bool, group: "general", description: "print version and exit [off]" },
  "config-file": { kind: str, group: "general", description: "file containing command line options" },
  "tx-rate": { kind: int(), group: "general", description: "deprecated alias for --rate [0]" },
  "max-requests": { kind: int(), group: "general", description: "deprecated alias for --events [0]" },
  "max-time": { kind: int(), group: "general", description: "deprecated alias for --time [0]" },
  "num-threads": { kind: int(1), group: "general", description: "deprecated alias for --threads [1]" },
  // Pseudo-random numbers generator options
  "rand-type": {
    kind: { type: "enum", values: ["uniform", "gaussian", "special", "pareto"] },
    group: "rand",
    description: "random numbers distribution [special]",
  },
  "rand-spec-iter": { kind: int(), group: "rand", description: "iterations used for numbers generation [12]" },
  "rand-spec-pct": { kind: int(), group: "rand", description: "percentage of values treated as 'special' [1]" },
  "rand-spec-res": { kind: int(), group: "rand", description: "percentage of 'special' values to use [75]" },
  "rand-seed": { kind: int(), group: "rand", description: "RNG seed, 0 = current time [0]" },
  "rand-pareto-h": {
    kind: { type: "number" },
    group: "rand",
    description: "parameter h for pareto distribution [0.2]",
  },
  // Log options
  verbosity: { kind: int(), group: "log", description: "verbosity level {5 - debug, 0 - only critical messages} [3]" },
  percentile: { kind: int(), group: "log", description: "latency percentile (1-100), 0 disables [95]" },
  histogram: { kind: bool, group: "log", description: "print latency histogram in report [off]" },
  // General database options
  "db-driver": { kind: str, group: "db", description: "database driver [mysql]" },
  "db-ps-mode": {
    kind: { type: "enum", values: ["auto", "disable"] },
    group: "db",
    description: "prepared statements usage mode [auto]",
  },
  "db-debug": { kind: bool, group: "db", description: "print database-specific debug information [off]" },
  // mysql driver options
  "mysql-host": { kind: list, group: "mysql", description: "MySQL server host [localhost]" },
  "mysql-port": { kind: list, group: "mysql", description: "MySQL server port [3306]" },
  "mysql-socket": { kind: list, group: "mysql", description: "MySQL socket" },
  "mysql-user": { kind: str, group: "mysql", description: "MySQL user [sbtest]" },
  "mysql-password": { kind: str, group: "mysql", description: "MySQL password []" },
  "mysql-db": { kind: str, group: "mysql", description: "MySQL database name [sbtest]" },
  "mysql-ssl": {
    kind: bool,
    group: "mysql",
    description: "use SSL connections, if available in the client library [off]",
  },
  "mysql-ssl-cipher": { kind: str, group: "mysql", description: "use specific cipher for SSL connections []" },
  "mysql-compression": {
    kind: bool,
    group: "mysql",
    description: "use compression, if available in the client library [off]",
  },
  "mysql-debug": { kind: bool, group: "mysql", description: "trace all client library calls [off]" },
  "mysql-ignore-errors": {
    kind: list,
    group: "mysql",
    description: 'list of errors to ignore, or "all" [1213,1020,1205]',
  },
  "mysql-dry-run": { kind: bool, group: "mysql", description: "pretend that all MySQL client API calls succeed [off]" },
  // oltp_common.lua options (every stock OLTP script)
  "auto-inc": { kind: bool, group: "oltp", description: "use AUTO_INCREMENT column as Primary Key [on]" },
  "create-secondary": {
    kind: bool,
    group: "oltp",
    description: "create a secondary index in addition to the PRIMARY KEY [on]",
  },
  "delete-inserts": { kind: int(), group: "oltp", description: "DELETE/INSERT combinations per transaction [1]" },
  "distinct-ranges": { kind: int(), group: "oltp", description: "SELECT DISTINCT queries per transaction [1]" },
  "index-updates": { kind: int(), group: "oltp", description: "UPDATE index queries per transaction [1]" },
  "mysql-storage-engine": { kind: str, group: "oltp", description: "storage engine, if MySQL is used [innodb]" },
  "non-index-updates": { kind: int(), group: "oltp", description: "UPDATE non-index queries per transaction [1]" },
  "order-ranges": { kind: int(), group: "oltp", description: "SELECT ORDER BY queries per transaction [1]" },
  "pgsql-variant": { kind: str, group: "oltp", description: "PostgreSQL variant (redshift)" },
  "point-selects": { kind: int(), group: "oltp", description: "point SELECT queries per transaction [10]" },
  "range-selects": { kind: bool, group: "oltp", description: "enable/disable all range SELECT queries [on]" },
  "range-size": { kind: int(), group: "oltp", description: "range size for range SELECT queries [100]" },
  secondary: { kind: bool, group: "oltp", description: "use a secondary index in place of the PRIMARY KEY [off]" },
  "simple-ranges": { kind: int(), group: "oltp", description: "simple range SELECT queries per transaction [1]" },
  "skip-trx": {
    kind: bool,
    group: "oltp",
    description: "don't start explicit transactions, run in AUTOCOMMIT mode [off]",
  },
  "sum-ranges": { kind: int(), group: "oltp", description: "SELECT SUM() queries per transaction [1]" },
  "table-size": { kind: int(1), group: "oltp", description: "number of rows per table [10000]" },
  tables: { kind: int(1), group: "oltp", description: "number of tables [1]" },
  // Script-specific options
  "random-points": {
    kind: int(1),
    group: "script",
    description: "select_random_points: random points in the IN() clause [10]",
  },
  "number-of-ranges": {
    kind: int(1),
    group: "script",
    description: "select_random_ranges: number of random BETWEEN ranges [10]",
  },
  delta: { kind: int(1), group: "script", description: "select_random_ranges: size of BETWEEN ranges [5]" },
};

/**
 * Options twinbench sets itself, as the phrase says ("set by twinbench from workload.threads"). Writing them under
 * `workload.sysbench` is an error that points at the right field.
 */
export const MANAGED_OPTIONS: Readonly<Record<string, string>> = {
  threads: "from workload.threads",
  "num-threads": "from workload.threads",
  events: "from workload.events",
  "max-requests": "from workload.events",
  time: "from workload.duration",
  "max-time": "from workload.duration",
  tables: "from workload.tables",
  "table-size": "from workload.tableSize",
  "mysql-storage-engine": "from workload.engine",
  percentile: "from workload.percentile",
  histogram: "itself (the run engine asks for --histogram when a report needs it)",
  "report-interval": "itself (always --report-interval=1)",
  "db-driver": "itself (always --db-driver=mysql)",
  "mysql-host": "from load.transport (it connects the load container itself)",
  "mysql-port": "from load.transport (it connects the load container itself)",
  "mysql-socket": "from load.transport (it connects the load container itself)",
  "mysql-user": "itself (it creates a benchmark user with a random password)",
  "mysql-password": "itself (it creates a benchmark user with a random password)",
  "mysql-db": "itself (it creates the sbtest database)",
  "config-file": "from workload.sysbench (write the options there)",
  help: "never: it would print help instead of running",
  version: "never: it would print the version instead of running",
};

/** Options that exist in later sysbench versions but not in 1.0.20, with what to write instead. */
export const NOT_IN_1_0_20: Readonly<Record<string, string>> = {
  "warmup-time": "added in sysbench 1.1; use workload.warmup",
  "thread-init-timeout": "added in sysbench 1.1 (1.0.20 waits 30 s)",
  "rand-zipfian-exp": "added in sysbench 1.1",
  "mysql-ssl-key": "added in sysbench 1.1",
  "mysql-ssl-cert": "added in sysbench 1.1",
  "mysql-ssl-ca": "added in sysbench 1.1",
  "create-table-options": "added in sysbench 1.1",
  reconnect: "added in sysbench 1.1",
};

/** The stock Lua scripts of sysbench 1.0.20 (/usr/share/sysbench/*.lua, without oltp_common). */
export const STOCK_SCRIPTS = [
  "oltp_delete",
  "oltp_insert",
  "oltp_point_select",
  "oltp_read_only",
  "oltp_read_write",
  "oltp_update_index",
  "oltp_update_non_index",
  "oltp_write_only",
  "select_random_points",
  "select_random_ranges",
  "bulk_insert",
] as const;

/** Scripts twinbench's sysbench image adds: `select` issues the 0.5 `SELECT pad FROM sbtestN WHERE id=?`. */
export const EXTRA_SCRIPTS: Readonly<Record<string, string>> = {
  select: "/usr/share/sysbench/select.lua",
};

/** Scripts that change the data (a `fresh: per-test` run restores the snapshot before them). */
export const WRITE_SCRIPTS: ReadonlySet<string> = new Set([
  "oltp_delete",
  "oltp_insert",
  "oltp_read_write",
  "oltp_update_index",
  "oltp_update_non_index",
  "oltp_write_only",
  "bulk_insert",
]);

export function isKnownScript(name: string): boolean {
  return (STOCK_SCRIPTS as readonly string[]).includes(name) || Object.hasOwn(EXTRA_SCRIPTS, name);
}

/** What sysbench is given as its test argument: the stock name, or the path of a script the image ships. */
export function scriptArg(script: string): string {
  return own(EXTRA_SCRIPTS, script) ?? script;
}

/** `table[key]` for own keys only (so "constructor" or "toString" are never options). */
export function own<T>(table: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}

/** `oltp_table_size` / `--Oltp-Table-Size` → `oltp-table-size`. */
export function normalizeOptionName(name: string): string {
  return name.replace(/^--/, "").toLowerCase().replace(/_/g, "-");
}

/** Why `value` does not fit `kind`, or undefined when it does. */
export function checkOptionValue(kind: OptionKind, value: string | number | boolean): string | undefined {
  switch (kind.type) {
    case "int": {
      const n =
        typeof value === "number"
          ? value
          : typeof value === "string" && /^\s*-?\d+\s*$/.test(value)
            ? Number(value)
            : NaN;
      if (!Number.isInteger(n) || n < (kind.min ?? 0))
        return kind.min ? `expected an integer ≥ ${kind.min}` : "expected a non-negative integer";
      return undefined;
    }
    case "number":
      return typeof value === "number" ||
        (typeof value === "string" && value.trim() !== "" && Number.isFinite(Number(value)))
        ? undefined
        : "expected a number";
    case "bool":
      return typeof value === "boolean" ||
        (typeof value === "string" && /^(on|off|true|false|yes|no|1|0)$/i.test(value))
        ? undefined
        : "expected on/off (or true/false)";
    case "enum":
      return kind.values.includes(String(value)) ? undefined : `expected one of ${kind.values.join(", ")}`;
    case "size":
      return /^\d+[kmgt]?$/i.test(String(value)) ? undefined : 'expected a size like "64K"';
    case "list":
    case "string":
      return typeof value === "boolean" ? "expected a string" : undefined;
  }
}

/** A boolean-ish scenario value as sysbench writes it. */
export function formatOptionValue(value: string | number | boolean): string {
  if (typeof value === "boolean") return value ? "on" : "off";
  return String(value);
}

/** Does this sysbench script change the data? */
export function isWriteTest(script: string): boolean {
  return WRITE_SCRIPTS.has(script);
}
