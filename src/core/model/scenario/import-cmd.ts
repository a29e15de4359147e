/**
 * `twinbench import-cmd 'sysbench …'`: a legacy (0.4/0.5) or 1.0 sysbench command line → a scenario file.
 * Pure. Translations with no exact 1.0.20 equivalent come back as warnings; every translation is also written as a
 * comment at the top of the YAML.
 */
import { stringify } from "yaml";
import { InputError } from "../../base/errors.ts";
import { LEGACY_OPTIONS, LEGACY_TESTS, scriptForOltpMode } from "./legacy.ts";
import { ShellOperatorError, ShellWordsError, shellWords } from "./shell-words.ts";
import { MANAGED_OPTIONS, SYSBENCH_OPTIONS, isKnownScript, normalizeOptionName, own } from "../sysbench/options.ts";

export interface ImportOptions {
  name?: string;
  description?: string;
  /** Servers of the generated scenario (default: mariadb-11.8 vs mysql-9.7). */
  servers?: Array<{ id: string; image: string }>;
}

export interface ImportResult {
  yaml: string;
  warnings: string[];
  /** Every translation made, exact or not (written as comments in `yaml`). */
  notes: string[];
  /** The scenario document `yaml` holds. */
  doc: Record<string, unknown>;
}

const DEFAULT_SERVERS = [
  { id: "mariadb", image: "mariadb-11.8" },
  { id: "mysql", image: "mysql-9.7" },
];
const COMMANDS = new Set(["prepare", "prewarm", "run", "cleanup", "help"]);
const BUILTIN_NON_DB = new Set(["fileio", "cpu", "memory", "threads", "mutex"]);
/** Options that only steer the 0.4 built-in oltp test mode; consumed when choosing the script. */
const MODE_OPTIONS = new Set(["test", "oltp-test-mode", "oltp-read-only", "oltp-nontrx-mode"]);

function bad(message: string, hint: string): InputError {
  return new InputError(message, { code: "IMPORT_CMD_INVALID", hint });
}

const scalar = (v: string): string | number | boolean => (/^-?\d+(\.\d+)?$/.test(v) ? Number(v) : v);
const onOff = (v: string | undefined) => v !== undefined && /^(on|yes|true|1)$/i.test(v);

/** What the steps of an import share: the options left to translate, and where notes and warnings go. */
interface Importing {
  options: Map<string, { given: string; value: string }>;
  positional: string[];
  /** Some option has a 0.4/0.5 name: the old defaults apply where the command line is silent. */
  legacyUsed: boolean;
  /** The value of the first of these options given. */
  get(...names: string[]): string | undefined;
  /** A translation that is not exact: a warning, and a note. */
  warn(m: string): void;
  /** An exact translation, for the YAML's header. */
  note(m: string): void;
}

export function importCmd(cmdline: string, opts: ImportOptions = {}): ImportResult {
  const words = sysbenchWords(cmdline);
  const options = new Map<string, { given: string; value: string }>();
  const positional: string[] = [];
  for (const w of words) {
    if (w.startsWith("--")) {
      const eq = w.indexOf("=");
      const given = eq < 0 ? w.slice(2) : w.slice(2, eq);
      options.set(normalizeOptionName(given), { given, value: eq < 0 ? "on" : w.slice(eq + 1) });
    } else positional.push(w);
  }

  const warnings: string[] = [];
  const notes: string[] = [];
  const warn = (m: string) => {
    warnings.push(m);
    notes.push(`${m} (not exact)`);
  };
  const note = (m: string) => notes.push(m);
  const legacyUsed = [...options.keys()].some((k) => Object.hasOwn(LEGACY_OPTIONS, k));
  const get = (...names: string[]) => {
    for (const n of names) if (options.has(n)) return options.get(n)!.value;
    return undefined;
  };

  const im: Importing = { options, positional, legacyUsed, get, warn, note };

  const test = chooseTest(im);
  const workload = workloadFields(im, test);
  const sysbench = sysbenchOptions(im, typeof test !== "string");
  if (Object.keys(sysbench).length) workload.sysbench = sysbench;

  const oneLine = words.join(" ");
  const doc: Record<string, unknown> = {
    name: opts.name ?? "imported",
    description: opts.description ?? `Imported from: sysbench ${oneLine}`,
    servers: opts.servers ?? DEFAULT_SERVERS,
    workload,
  };
  const header = [
    "# Imported by `twinbench import-cmd` from:",
    `#   sysbench ${oneLine}`,
    ...(notes.length ? ["# Translations to sysbench 1.0.20:", ...notes.map((n) => `#   - ${n}`)] : []),
    "",
  ].join("\n");
  return { yaml: `${header}\n${stringify(doc, { lineWidth: 0 })}`, warnings, notes, doc };
}

/** The command line's words after the environment assignments and the `sysbench` itself. */
function sysbenchWords(cmdline: string): string[] {
  let words: string[];
  try {
    words = shellWords(cmdline);
  } catch (e) {
    if (e instanceof ShellOperatorError) {
      const rest = e.rest.length > 40 ? `${e.rest.slice(0, 40)}…` : e.rest;
      throw new InputError(
        `the command line has the shell operator ${JSON.stringify(e.operator)} (${e.meaning}) at character ${e.position}: ${JSON.stringify(rest)}`,
        {
          code: "IMPORT_CMD_SHELL_OPERATOR",
          hint: `import takes one sysbench command: drop ${JSON.stringify(rest)} (or quote the operator if it is part of a value)`,
        },
      );
    }
    if (e instanceof ShellWordsError) throw bad(`cannot split the command line: ${e.message}`, "check the quotes");
    throw e;
  }
  while (words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0])) words.shift(); // VAR=value prefixes
  if (words.length && /(^|\/)sysbench$/.test(words[0])) words.shift();
  if (!words.length)
    throw bad(
      `no sysbench arguments in ${JSON.stringify(cmdline)}`,
      "paste a command such as: sysbench --test=oltp --num-threads=4 run",
    );

  return words;
}

/** The test the command line runs, as a 1.0.20 script or legacy name (the 0.4 oltp modes chosen from their options). */
/** A user's own script, as the scenario's test entry (custom.ts). */
type CustomEntry = { script: string; writes: boolean };

function chooseTest(im: Importing): string | CustomEntry {
  const { options, positional, get, warn, note } = im;
  const command = positional.find((p) => COMMANDS.has(p));
  const scripts = positional.filter((p) => !COMMANDS.has(p));
  if (command && command !== "run")
    warn(`command ${command}: twinbench prepares, runs and cleans up itself; imported as the run`);
  const testArg = get("test") ?? scripts[0];
  if (scripts.length > 1 || (options.has("test") && scripts.length))
    throw bad(
      `more than one test in the command line: ${[get("test"), ...scripts].filter(Boolean).join(", ")}`,
      "keep one --test or script",
    );
  if (testArg === undefined)
    throw bad(
      "no test in the command line (--test=X or a script name)",
      "add --test=oltp or a script such as oltp_read_only",
    );
  if (options.has("test")) note(`--test=${testArg}: sysbench 1.0.20 takes the script as a positional argument`);
  if (/[$`]/.test(testArg))
    throw bad(
      `the test ${JSON.stringify(testArg)} is a shell variable`,
      "substitute the test name (e.g. oltp_simple) and import again",
    );
  const base = testArg.replace(/^.*\//, "").replace(/\.lua$/, "");
  let test: string;
  if (base === "oltp" || base === "oltp_legacy") {
    const mode = get("oltp-test-mode") ?? "complex";
    const readOnly = onOff(get("oltp-read-only"));
    const nontrx = get("oltp-nontrx-mode") ?? "select";
    // 0.5's oltp.lua has no test modes: it is the complex transaction.
    const m = scriptForOltpMode(base === "oltp" && testArg.endsWith(".lua") ? "complex" : mode, readOnly, nontrx);
    if (!m)
      throw bad(
        `unknown --oltp-test-mode=${mode} / --oltp-nontrx-mode=${nontrx}`,
        "use complex, simple or nontrx (select, update_key, update_nokey, insert, delete)",
      );
    test = m.script;
    if (m.exact) note(m.note);
    else warn(m.note);
  } else if (BUILTIN_NON_DB.has(base)) {
    throw bad(`--test=${base} is not a database test; twinbench runs OLTP tests only`, "import an oltp command line");
  } else if (Object.hasOwn(LEGACY_TESTS, base)) {
    test = base;
    const l = LEGACY_TESTS[base];
    if (l.exact) note(`test ${base} runs as ${l.script}: ${l.note}`);
    else warn(`test ${base} runs as ${l.script}: ${l.note}`);
  } else if (isKnownScript(base)) {
    test = base;
  } else if (/\.lua$/i.test(testArg)) {
    // A script of the user's own: kept by its path, which the scenario reads relative to its own folder.
    const rel = testArg.replace(/^(\.\/)+/, "");
    const script = rel.startsWith("/") ? rel.replace(/^.*\//, "") : rel;
    if (script !== rel)
      warn(`${testArg} is absolute: the scenario names it ${script}; put the script next to the scenario`);
    warn(
      `${script} is your own script: twinbench cannot tell whether it writes, so the entry says writes: true (edit it)`,
    );
    for (const k of MODE_OPTIONS) options.delete(k);
    return { script, writes: true };
  } else {
    throw bad(
      `unknown test ${JSON.stringify(testArg)}: not a sysbench 1.0.20 script nor a legacy name`,
      `use one of ${Object.keys(LEGACY_TESTS).join(", ")} or a stock 1.0.20 script`,
    );
  }
  for (const k of MODE_OPTIONS) options.delete(k);

  return test;
}

/** The workload fields twinbench sets itself (engine, tables, threads, length, percentile), taken from the options. */
function workloadFields(im: Importing, test: string | CustomEntry): Record<string, unknown> {
  const { options, legacyUsed, get, warn, note } = im;
  const workload: Record<string, unknown> = {};
  const take = (names: string[]) => {
    const v = get(...names);
    for (const n of names) {
      const o = options.get(n);
      if (o && Object.hasOwn(LEGACY_OPTIONS, n)) {
        const l = LEGACY_OPTIONS[n];
        if (l.kind === "field") note(`--${o.given} is --${l.to} in sysbench 1.0.20${l.note ? ` (${l.note})` : ""}`);
      }
      options.delete(n);
    }
    return v;
  };
  const int = (label: string, v: string | undefined, min: number): number | undefined => {
    if (v === undefined) return undefined;
    if (/[$`]/.test(v)) throw bad(`${label}=${v} is a shell variable`, `substitute a number for ${v} and import again`);
    const n = Number(v);
    if (!Number.isInteger(n) || n < min) throw bad(`${label}=${v}: expected an integer ≥ ${min}`, `fix ${label}`);
    return n;
  };

  const engine = take(["mysql-storage-engine", "mysql-table-engine", "mysql-table-type"]);
  const eng = (engine ?? "innodb").toLowerCase();
  if (eng !== "innodb" && eng !== "myisam")
    throw bad(`storage engine ${engine}: twinbench runs innodb or myisam`, "use --mysql-table-engine=innodb or myisam");
  workload.engine = eng;
  workload.tables = int("--tables", take(["tables", "oltp-tables-count"]), 1) ?? 1;
  workload.tableSize = int("--table-size", take(["table-size", "oltp-table-size"]), 1) ?? 10000;
  workload.tests = [test];
  const threads = int("--threads", take(["threads", "num-threads"]), 1);
  if (threads === undefined) note("no --num-threads: sysbench's default of 1 thread");
  workload.threads = [threads ?? 1];
  const events = int("--events", take(["events", "max-requests"]), 0);
  const time = int("--time", take(["time", "max-time"]), 0);
  if (events && time) {
    workload.duration = `${time}s`;
    warn(`--max-requests/--events=${events} dropped: a scenario gives duration or events; kept duration ${time}s`);
  } else if (events) {
    workload.events = events;
  } else if (time) {
    workload.duration = `${time}s`;
    if (legacyUsed && events === undefined)
      warn(
        `--max-time=${time} without --max-requests: sysbench 0.4/0.5 also stopped after 10000 requests by default; the scenario runs the full ${time}s`,
      );
  } else if (legacyUsed && events === undefined) {
    workload.events = 10000;
    warn(
      "neither --max-requests nor --max-time: sysbench 0.4/0.5 defaulted to --max-requests=10000; imported as events: 10000",
    );
  } else {
    workload.duration = "10s";
    note("neither --events nor --time: sysbench 1.0's default of 10 s");
  }
  const pct = int("--percentile", take(["percentile"]), 1);
  if (pct !== undefined) workload.percentile = pct;

  if (
    eng === "myisam" &&
    legacyUsed &&
    typeof test === "string" &&
    ["oltp_read_only", "oltp_read_write"].includes(test)
  )
    warn(
      "MyISAM: sysbench 0.4 treated it as non-transactional (--mysql-engine-trx=auto) and wrapped each transaction in " +
        "LOCK TABLES/UNLOCK TABLES; 1.0.20 sends BEGIN/COMMIT, which MyISAM ignores, so the table locking is not reproduced",
    );

  return workload;
}

/** Every other option into workload.sysbench: legacy names renamed or dropped, twinbench's own ignored. */
function sysbenchOptions(im: Importing, custom = false): Record<string, string | number | boolean> {
  const { options, warn, note } = im;
  const sysbench: Record<string, string | number | boolean> = {};
  for (const [name, { given, value }] of options) {
    const l = own(LEGACY_OPTIONS, name);
    if (l) {
      if (l.kind === "rename") {
        sysbench[l.to] = scalar(value);
        const m = `--${given} is --${l.to} in sysbench 1.0.20${l.note ? ` (${l.note})` : ""}`;
        if (l.exact) note(m);
        else warn(m);
      } else if (l.kind === "drop" || l.kind === "none") {
        warn(`--${given}=${value} dropped: ${l.note}`);
      }
      continue;
    }
    if (Object.hasOwn(MANAGED_OPTIONS, name)) {
      note(`--${given} ignored: set by twinbench ${MANAGED_OPTIONS[name]}`);
      continue;
    }
    if (!Object.hasOwn(SYSBENCH_OPTIONS, name) && custom) {
      sysbench[name] = scalar(value); // the script's own option: passed to it as given
      continue;
    }
    if (!Object.hasOwn(SYSBENCH_OPTIONS, name)) {
      warn(`--${given}=${value} dropped: not a sysbench 1.0.20 option`);
      continue;
    }
    sysbench[name] = scalar(value);
    if (name === "db-ps-mode") note(`--db-ps-mode=${value} is unchanged in sysbench 1.0.20`);
  }

  return sysbench;
}
