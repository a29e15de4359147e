/**
 * sysbench 0.4/0.5 → 1.0.20: test names and options. One table each; the validator, `import-cmd` and `plan` read
 * them. An entry with `exact: false` is a translation whose 1.0.20 behaviour differs: every use of it is a warning
 * that names it. Sources: /work/shared/notes/server-and-sysbench-facts.md §4.
 */
import { isKnownScript, isWriteTest } from "../sysbench/options.ts";
import { sidecarScriptPath, type CustomScript } from "./custom.ts";

export interface LegacyTest {
  /** The 1.0.20 script that runs it ("select" is the script twinbench's sysbench image ships). */
  script: string;
  exact: boolean;
  /** What differs from the 2010 trunk / 0.5 script, or why the mapping holds. */
  note: string;
}

export const LEGACY_TESTS: Readonly<Record<string, LegacyTest>> = {
  delete: { script: "oltp_delete", exact: true, note: "same prepared DELETE FROM sbtestN WHERE id=?" },
  insert: {
    script: "oltp_insert",
    exact: false,
    note: "1.0.20 oltp_insert sends a text INSERT (no prepared statement), as 0.5 did; the seeds' 2010 scripts prepared their statements",
  },
  oltp_complex_ro: {
    script: "oltp_read_only",
    exact: true,
    note: "same mix: BEGIN, 10 point selects, 1 simple/sum/order/distinct range each, COMMIT",
  },
  oltp_complex_rw: {
    script: "oltp_read_write",
    exact: true,
    note: "same mix as oltp_complex_ro plus index update, non-index update, DELETE+INSERT",
  },
  oltp_simple: {
    script: "oltp_point_select",
    exact: false,
    note:
      "1.0.20 oltp_point_select runs a prepared SELECT c FROM sbtestN WHERE id=? (as the 2010 trunk script did); " +
      "0.5's oltp_simple sent it as a text query: set workload.sysbench.db-ps-mode: disable to mimic 0.5",
  },
  select: {
    script: "select",
    exact: false,
    note:
      "no stock 1.0.20 script issues SELECT pad FROM sbtestN WHERE id=?; it runs /usr/share/sysbench/select.lua, " +
      "which twinbench's sysbench image ships",
  },
  update_index: { script: "oltp_update_index", exact: true, note: "same UPDATE sbtestN SET k=k+1 WHERE id=?" },
  update_non_index: { script: "oltp_update_non_index", exact: true, note: "same UPDATE sbtestN SET c=? WHERE id=?" },
};

/** What every legacy test shares: the table layout changed between the seeds' scripts and 1.0.20. */
export const LEGACY_TABLE_NOTE =
  "the 2010 scripts used one table sbtest (INTEGER UNSIGNED ids, MAX_ROWS=1000000); 1.0.20 uses sbtest1..N with signed INTEGER ids";

/** A scenario's custom scripts by test name (workload.scripts). */
export type CustomScripts = Readonly<Record<string, CustomScript>> | undefined;

/**
 * The script a scenario test name runs, or undefined when it is neither a 1.0.20 script, a legacy name nor one of
 * the scenario's custom scripts (`scripts`: then the script is its main file's path in the load sidecar).
 */
export function resolveTest(
  name: string,
  scripts?: CustomScripts,
): { script: string; legacy?: LegacyTest; custom?: CustomScript } | undefined {
  const custom = scripts && Object.hasOwn(scripts, name) ? scripts[name] : undefined;
  if (custom) return { script: sidecarScriptPath(name, custom), custom };
  const legacy = Object.hasOwn(LEGACY_TESTS, name) ? LEGACY_TESTS[name] : undefined;
  if (legacy) return { script: legacy.script, legacy };
  return isKnownScript(name) ? { script: name } : undefined;
}

export type LegacyOption =
  /** Same option under a new name. */
  | { kind: "rename"; to: string; exact: boolean; note?: string }
  /** An option twinbench sets from a scenario field. */
  | {
      kind: "field";
      to: string;
      field: "tableSize" | "tables" | "duration" | "events" | "threads" | "engine";
      note?: string;
    }
  /** Chose the test in 0.4; in 1.0.20 the script does. */
  | { kind: "script"; note: string }
  /** Dropped: 1.0.20 has no such knob. A warning. */
  | { kind: "drop"; note: string }
  /** No equivalent and it changes the workload: an error. */
  | { kind: "none"; note: string };

const dropOltp = (name: string, exact = true): [string, LegacyOption] => [
  `oltp-${name}`,
  { kind: "rename", to: name, exact },
];

/** Legacy option names (dashed form) → what they are in 1.0.20. */
export const LEGACY_OPTIONS: Readonly<Record<string, LegacyOption>> = {
  "oltp-table-size": { kind: "field", to: "table-size", field: "tableSize" },
  "oltp-tables-count": { kind: "field", to: "tables", field: "tables" },
  "max-time": { kind: "field", to: "time", field: "duration" },
  "max-requests": { kind: "field", to: "events", field: "events", note: "0 meant no limit" },
  "num-threads": { kind: "field", to: "threads", field: "threads" },
  "mysql-table-engine": { kind: "field", to: "mysql-storage-engine", field: "engine" },
  "mysql-table-type": {
    kind: "field",
    to: "mysql-storage-engine",
    field: "engine",
    note: "the 0.4 name of --mysql-table-engine",
  },
  "tx-rate": { kind: "rename", to: "rate", exact: true },
  ...Object.fromEntries([
    dropOltp("point-selects"),
    dropOltp("simple-ranges"),
    dropOltp("sum-ranges"),
    dropOltp("order-ranges"),
    dropOltp("distinct-ranges"),
    dropOltp("range-size"),
    dropOltp("index-updates"),
    dropOltp("non-index-updates"),
    dropOltp("delete-inserts"),
    dropOltp("skip-trx"),
    dropOltp("auto-inc"),
    dropOltp("secondary"),
    dropOltp("range-selects"),
  ]),
  "oltp-dist-type": {
    kind: "rename",
    to: "rand-type",
    exact: true,
    note: "the default is special in 0.4, 0.5 and 1.0.20",
  },
  "oltp-dist-iter": { kind: "rename", to: "rand-spec-iter", exact: true },
  "oltp-dist-pct": { kind: "rename", to: "rand-spec-pct", exact: true },
  "oltp-dist-res": { kind: "rename", to: "rand-spec-res", exact: true },
  test: { kind: "script", note: "1.0.20 takes the script as a positional argument: list it in workload.tests" },
  "oltp-read-only": {
    kind: "script",
    note: "pick the script instead: oltp_read_only (complex, read-only) or oltp_read_write",
  },
  "oltp-test-mode": {
    kind: "script",
    note: "pick the script instead: complex → oltp_read_write / oltp_read_only, simple → oltp_point_select, nontrx → the script of --oltp-nontrx-mode",
  },
  "oltp-nontrx-mode": {
    kind: "script",
    note: "pick the script instead: select → oltp_point_select, update_key → oltp_update_index, update_nokey → oltp_update_non_index, insert → oltp_insert, delete → oltp_delete",
  },
  "mysql-engine-trx": {
    kind: "drop",
    note:
      "no 1.0.20 equivalent: each 1.0 script decides whether it sends BEGIN/COMMIT (the OLTP ones do unless " +
      "--skip-trx=on); 0.4/0.5 used it to choose between BEGIN/COMMIT and LOCK TABLES",
  },
  "init-rng": {
    kind: "drop",
    note: "1.0.20 always seeds its generator, from the clock unless --rand-seed is given",
  },
  "oltp-table-name": { kind: "none", note: "1.0.20 always names its tables sbtest1..N" },
  "oltp-connect-delay": { kind: "none", note: "1.0.20 has no connect delay" },
  "oltp-user-delay-min": { kind: "none", note: "1.0.20 has no per-query user delay" },
  "oltp-user-delay-max": { kind: "none", note: "1.0.20 has no per-query user delay" },
  "oltp-reconnect-mode": { kind: "none", note: "1.0.20 has no reconnect mode" },
  "oltp-sp-name": { kind: "none", note: "1.0.20 has no stored-procedure mode" },
};

/** 0.4 `--oltp-test-mode` / `--oltp-read-only` / `--oltp-nontrx-mode` → a 1.0.20 script, and whether it is exact. */
export function scriptForOltpMode(
  mode: string,
  readOnly: boolean,
  nontrxMode: string,
): { script: string; exact: boolean; note: string } | undefined {
  if (mode === "complex")
    return readOnly
      ? {
          script: "oltp_read_only",
          exact: true,
          note: "--oltp-test-mode=complex --oltp-read-only=on is oltp_read_only",
        }
      : { script: "oltp_read_write", exact: true, note: "--oltp-test-mode=complex is oltp_read_write" };
  if (mode === "simple")
    return {
      script: "oltp_point_select",
      exact: false,
      note: "--oltp-test-mode=simple sent one SELECT c FROM sbtest WHERE id=N per event; oltp_point_select does the same but as a prepared statement unless db-ps-mode is disable",
    };
  if (mode === "nontrx") {
    const m: Record<string, string> = {
      select: "oltp_point_select",
      update_key: "oltp_update_index",
      update_nokey: "oltp_update_non_index",
      insert: "oltp_insert",
      delete: "oltp_delete",
    };
    const script = m[nontrxMode];
    if (!script) return undefined;
    return {
      script,
      exact: false,
      note: `--oltp-test-mode=nontrx --oltp-nontrx-mode=${nontrxMode} ran single autocommitted statements; ${script} is the closest 1.0.20 script`,
    };
  }
  return undefined;
}

/** Does this scenario test (a script, a legacy name or one of the scenario's custom `scripts`) change the data? */
export function testWrites(test: string, scripts?: CustomScripts): boolean {
  const r = resolveTest(test, scripts);
  return r?.custom ? r.custom.writes : isWriteTest(r?.script ?? test);
}
