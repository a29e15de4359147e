/**
 * The grammar shared by every sysbench output generation: lines, values, the blocks of a cumulative report,
 * interval lines and the latency histogram, scanned into one `Draft` per output. Which generation a draft is, and
 * how its figures map onto SysbenchResult, is decided by parse-1.0.ts and parse-legacy.ts; parse.ts picks one.
 */
import { TwinbenchError } from "../../base/errors.ts";
import type { Fairness, IntervalSample, LatencyMs, LegacyIntervalSample } from "./result.ts";

/** Text that is not sysbench output, or not exactly one: the message names the line. */
export class SysbenchParseError extends TwinbenchError {
  /** 1-based line number in the text given to the parser, or null when the problem is the whole text. */
  readonly line: number | null;
  constructor(line: number | null, message: string, lineText?: string) {
    super(line === null ? message : `line ${line}: ${message}`, {
      code: "SYSBENCH_PARSE",
      hint: "pass the complete, unmodified output of `sysbench … run` (stdout and stderr merged)",
      details: lineText === undefined ? [] : [`> ${lineText.length > 200 ? lineText.slice(0, 200) + "…" : lineText}`],
    });
    this.line = line;
  }
}

// ------------------------------------------------------------------------------------------------------------
// Lines

export interface Line {
  /** 1-based line number in the input. */
  no: number;
  /** The line as printed (no line terminator). */
  raw: string;
}

/**
 * sysbench formats a log message into a 4096-byte buffer, newline included; a longer message (e.g. a FATAL
 * quoting a long bulk INSERT) is cut at 4095 characters and loses its newline, so the next message runs on in
 * the same line. Split such lines back apart.
 */
const MESSAGE_MAX = 4095;
const PREFIXES = ["FATAL: ", "ALERT: ", "WARNING: ", "DEBUG: "] as const;

export function splitLines(text: string): Line[] {
  const out: Line[] = [];
  const physical = text.split(/\r?\n/);
  if (physical.length > 0 && physical[physical.length - 1] === "") physical.pop();
  physical.forEach((raw, i) => {
    let rest = raw;
    for (;;) {
      const prefix = PREFIXES.find((p) => rest.startsWith(p));
      if (prefix === undefined || rest.length <= prefix.length + MESSAGE_MAX) break;
      out.push({ no: i + 1, raw: rest.slice(0, prefix.length + MESSAGE_MAX) });
      rest = rest.slice(prefix.length + MESSAGE_MAX);
    }
    out.push({ no: i + 1, raw: rest });
  });
  return out;
}

// ------------------------------------------------------------------------------------------------------------
// Numbers

/** A number as sysbench prints it with %llu / %.Nf / %4.2f; `nan`/`inf` come out of %f on a zero division. */
const NUM = String.raw`-?(?:\d+(?:\.\d+)?|nan|inf)`;

function num(s: string, line: Line): number | null {
  if (/^-?(nan|inf)$/.test(s)) return null;
  const v = Number(s);
  if (!Number.isFinite(v)) throw new SysbenchParseError(line.no, `unreadable number '${s}'`, line.raw);
  return v;
}

/** Seconds as printed ("13.5697") → milliseconds, by moving the decimal point (13.5697 s → 13569.7, exactly). */
export function secondsToMs(s: string): number {
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(s);
  if (!m) throw new TypeError(`not a decimal number: ${s}`);
  const frac = (m[3] ?? "").padEnd(3, "0");
  const intPart = (m[2] + frac.slice(0, 3)).replace(/^0+(?=\d)/, "");
  const rest = frac.slice(3);
  return Number(`${m[1]}${intPart}${rest ? "." + rest : ""}`);
}

// ------------------------------------------------------------------------------------------------------------
// Blocks: a header line, then lines in a fixed order; optional lines may be missing. A line that does not fit
// ends the block if every required line was seen, and is an error otherwise.

export type Value =
  | { kind: "none" }
  | { kind: "int"; n: number }
  | { kind: "countRate"; n: number; perSec: number | null }
  | { kind: "number"; n: number | null }
  /** A duration with its unit as printed: `s`, `ms`, or none. `ms` holds the value in milliseconds. */
  | { kind: "duration"; text: string; unit: "s" | "ms" | ""; ms: number | null }
  | { kind: "pair"; a: number | null; b: number | null }
  | { kind: "percentile"; p: number | null; n: number | null };

type Kind = "none" | "int" | "countRate" | "number" | "seconds" | "duration" | "pair" | "percentile" | "approx";

interface Spec {
  key: string;
  /** Matches the trimmed line's label; the rest of the line (trimmed) is the value. */
  label: RegExp;
  kind: Kind;
  optional?: boolean;
}

interface BlockDef {
  slot: Slot;
  name: string;
  header: RegExp;
  specs: Spec[];
  legacyMarker?: boolean;
}

type Slot = "stats" | "general" | "latency" | "fairness";

const L = (s: string): RegExp => new RegExp("^" + s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&") + "\\s*");

const STATS_SPECS: Spec[] = [
  { key: "read", label: L("read:"), kind: "int" },
  { key: "write", label: L("write:"), kind: "int" },
  { key: "other", label: L("other:"), kind: "int" },
  { key: "total", label: L("total:"), kind: "int" },
  { key: "transactions", label: L("transactions:"), kind: "countRate" },
  // 1.0
  { key: "queries", label: L("queries:"), kind: "countRate", optional: true },
  // 0.4
  { key: "deadlocks", label: L("deadlocks:"), kind: "countRate", optional: true },
  // 0.4 / 0.5
  { key: "readWriteRequests", label: L("read/write requests:"), kind: "countRate", optional: true },
  { key: "otherOperations", label: L("other operations:"), kind: "countRate", optional: true },
  // 1.0 / 0.5
  { key: "ignoredErrors", label: L("ignored errors:"), kind: "countRate", optional: true },
  { key: "reconnects", label: L("reconnects:"), kind: "countRate", optional: true },
];

const BLOCKS: BlockDef[] = [
  {
    slot: "stats",
    name: "SQL statistics",
    header: /^(SQL statistics|OLTP test statistics):$/,
    specs: [{ key: "queriesPerformed", label: L("queries performed:"), kind: "none" }, ...STATS_SPECS],
  },
  // seed 002's first summary starts at "queries performed:" without the "OLTP test statistics:" header.
  { slot: "stats", name: "queries performed", header: /^queries performed:$/, specs: STATS_SPECS },
  {
    slot: "general",
    name: "General statistics",
    header: /^(General statistics|Test execution summary):$/,
    specs: [
      { key: "totalTime", label: L("total time:"), kind: "seconds" },
      { key: "events", label: L("total number of events:"), kind: "int" },
      // 0.4 / 0.5
      { key: "eventExecution", label: L("total time taken by event execution:"), kind: "duration", optional: true },
      { key: "perRequest", label: /^(per-request statistics|response time):\s*/, kind: "none", optional: true },
      { key: "min", label: L("min:"), kind: "duration", optional: true },
      { key: "avg", label: L("avg:"), kind: "duration", optional: true },
      { key: "max", label: L("max:"), kind: "duration", optional: true },
      { key: "approx", label: /^approx\.\s+(\d+) percentile:\s*/, kind: "approx", optional: true },
    ],
  },
  {
    slot: "latency",
    name: "Latency (ms)",
    header: /^Latency \(ms\):$/,
    specs: [
      { key: "min", label: L("min:"), kind: "number" },
      { key: "avg", label: L("avg:"), kind: "number" },
      { key: "max", label: L("max:"), kind: "number" },
      { key: "percentile", label: /^(?:(\d+)th percentile|percentile stats):\s*/, kind: "percentile" },
      { key: "sum", label: L("sum:"), kind: "number" },
    ],
  },
  {
    slot: "fairness",
    name: "Threads fairness",
    header: /^Threads fairness:$/,
    specs: [
      { key: "events", label: L("events (avg/stddev):"), kind: "pair", optional: true },
      { key: "execTime", label: L("execution time (avg/stddev):"), kind: "pair", optional: true },
      // early 0.4
      { key: "distribution", label: L("distribution:"), kind: "pair", optional: true },
      { key: "execution", label: L("execution:"), kind: "pair", optional: true },
    ],
  },
];

function parseValue(spec: Spec, rest: string, labelMatch: RegExpExecArray, line: Line): Value {
  const bad = (what: string): never => {
    throw new SysbenchParseError(line.no, `expected ${what} after '${labelMatch[0].trim()}', got '${rest}'`, line.raw);
  };
  let m: RegExpExecArray | null;
  switch (spec.kind) {
    case "none":
      if (rest !== "") bad("nothing");
      return { kind: "none" };
    case "int":
      if (!/^\d+$/.test(rest)) bad("an integer");
      return { kind: "int", n: Number(rest) };
    case "countRate":
      m = new RegExp(String.raw`^(\d+)\s+\((${NUM}) per sec\.\)$`).exec(rest);
      if (!m) bad("'N (X per sec.)'");
      return { kind: "countRate", n: Number(m![1]), perSec: num(m![2], line) };
    case "number":
      if (!new RegExp(`^${NUM}$`).test(rest)) bad("a number");
      return { kind: "number", n: num(rest, line) };
    case "seconds":
      m = /^(\d+(?:\.\d+)?)s$/.exec(rest);
      if (!m) bad("seconds like '3.0046s'");
      return { kind: "number", n: Number(m![1]) };
    case "duration": {
      m = /^(\d+(?:\.\d+)?)(s|ms)?$/.exec(rest);
      if (!m) bad("a duration like '0.0153s' or '1.69ms'");
      const unit = (m![2] ?? "") as "s" | "ms" | "";
      return { kind: "duration", text: m![1], unit, ms: unit === "ms" ? Number(m![1]) : secondsToMs(m![1]) };
    }
    case "approx": {
      m = /^(\d+(?:\.\d+)?)(s|ms)$/.exec(rest);
      if (!m) bad("a duration like '13.5697s' or '1.69ms'");
      return { kind: "percentile", p: Number(labelMatch[1]), n: m![2] === "ms" ? Number(m![1]) : secondsToMs(m![1]) };
    }
    case "pair":
      m = new RegExp(`^(${NUM})/(${NUM})$`).exec(rest);
      if (!m) bad("'avg/stddev'");
      return { kind: "pair", a: num(m![1], line), b: num(m![2], line) };
    case "percentile":
      if (labelMatch[1] === undefined) {
        if (rest !== "disabled") bad("'disabled'");
        return { kind: "percentile", p: null, n: null };
      }
      if (!new RegExp(`^${NUM}$`).test(rest)) bad("a number");
      return { kind: "percentile", p: Number(labelMatch[1]), n: num(rest, line) };
  }
}

/** Parse the block whose header is lines[start]; returns the values and the index of the first line after it. */
function parseBlock(def: BlockDef, lines: Line[], start: number): { values: Map<string, Value>; next: number } {
  const values = new Map<string, Value>();
  let p = 0;
  let i = start + 1;
  for (; i < lines.length; i++) {
    const line = lines[i];
    const t = line.raw.trim();
    let matched = false;
    for (let k = p; k < def.specs.length; k++) {
      const spec = def.specs[k];
      const lm = spec.label.exec(t);
      if (lm && t !== "") {
        values.set(spec.key, parseValue(spec, t.slice(lm[0].length).trim(), lm, line));
        p = k + 1;
        matched = true;
        break;
      }
      if (!spec.optional) break;
    }
    if (!matched) break;
  }
  const missing = def.specs.slice(p).find((s) => !s.optional);
  if (missing) {
    const where = i < lines.length ? lines[i] : undefined;
    const want = missing.label.source
      .replace(/^\^/, "")
      .replace(/\\s\*$/, "")
      .replace(/\\/g, "");
    if (where) {
      throw new SysbenchParseError(
        where.no,
        `unreadable line in the ${def.name} block (expected '${want}'): '${where.raw.trim()}'`,
        where.raw,
      );
    }
    throw new SysbenchParseError(
      lines[lines.length - 1].no,
      `the log ends inside the ${def.name} block (no '${want}' line): truncated?`,
    );
  }
  return { values, next: i };
}

// ------------------------------------------------------------------------------------------------------------
// One output being read

export interface Draft {
  startLine: number;
  header: { version: string; form: "1.0" | "legacy"; line: number } | null;
  threads: number | null;
  reportInterval: number | null;
  fatal: string[];
  alerts: string[];
  warnings: string[];
  intervals: IntervalSample[];
  legacyIntervals: LegacyIntervalSample[];
  blocks: Partial<Record<Slot, { values: Map<string, Value>; line: number; header: string }>>;
  histogram: Array<[number, number]> | null;
  histogramLine: number | null;
  unfinished: number | null;
  /** A line only 0.4/0.5 print was seen. */
  legacyMarker: boolean;
  /** Header, block or interval seen (FATAL/WARNING lines alone are not enough to start a new output). */
  content: boolean;
  /** Threads fairness, the last block sysbench prints, was read. */
  complete: boolean;
  lastLine: number;
}

function newDraft(startLine: number): Draft {
  return {
    startLine,
    header: null,
    threads: null,
    reportInterval: null,
    fatal: [],
    alerts: [],
    warnings: [],
    intervals: [],
    legacyIntervals: [],
    blocks: {},
    histogram: null,
    histogramLine: null,
    unfinished: null,
    legacyMarker: false,
    content: false,
    complete: false,
    lastLine: startLine,
  };
}

const isEmptyDraft = (d: Draft): boolean =>
  !d.content && d.fatal.length === 0 && d.alerts.length === 0 && d.warnings.length === 0;

const RE = {
  header10: /^sysbench (\d+\.\d+(?:\.\d+)?\S*) \(using (.+)\)$/,
  headerLegacy: /^sysbench (\d+\.\d+(?:\.\d+)?\S*):\s+multi-threaded system evaluation benchmark$/,
  threads: /^Number of threads:/,
  threadsValue: /^Number of threads: (\d+)$/,
  reportEvery: /^Report intermediate results every/,
  reportEveryValue: /^Report intermediate results every (\d+) second\(s\)$/,
  unfinished: /^Number of unfinished transactions on forced shutdown:/,
  unfinishedValue: /^Number of unfinished transactions on forced shutdown: (\d+)$/,
  message: /^(FATAL|ALERT|WARNING|DEBUG): ?(.*)$/,
  /** Errors sysbench prints to stderr without a `FATAL: ` prefix (src/sysbench.c, sb_options.c). */
  unprefixedFatal: /^(invalid option: |Unrecognized command line argument: |Cannot find benchmark |Invalid value for )/,
  intervalLike: /^\[\s*\d+s\s?\]/,
  interval10: new RegExp(
    String.raw`^\[ (\d+)s \] thds: (\d+) tps: (${NUM}) qps: (${NUM}) \(r/w/o: (${NUM})/(${NUM})/(${NUM})\) ` +
      String.raw`lat \(ms,(\d+)%\): (${NUM}) err/s: (${NUM}) reconn/s: (${NUM})$`,
  ),
  queue10: /^\[ (\d+)s \] queue length: (\d+), concurrency: (\d+)$/,
  checkpoint10: /^\[ (\d+)s \] Checkpoint report:$/,
  interval05: new RegExp(
    String.raw`^\[\s*(\d+)s\] threads: (\d+), tps: (${NUM}), reads(?:/s)?: (${NUM}), writes(?:/s)?: (${NUM}),? ` +
      String.raw`response time: (${NUM})ms \((\d+)%\)(?:, errors: (${NUM}), reconnects:\s*(${NUM}))?$`,
  ),
  histogramHeader: /^Latency histogram \(values are in milliseconds\)$/,
  histogramColumns: /^value\s+-+ distribution -+ count$/,
  histogramRow: /^\s*(\d+\.\d+) \|\**\s* (\d+)$/,
} as const;

/** Number a required, finite value from an interval line. */
function req(s: string, line: Line): number {
  const v = num(s, line);
  if (v === null) throw new SysbenchParseError(line.no, `interval figure '${s}' is not a number`, line.raw);
  return v;
}

/** Split `text` into drafts, one per sysbench output. */
export function scan(text: string): Draft[] {
  const lines = splitLines(text);
  const drafts: Draft[] = [];
  let d = newDraft(1);
  const startNew = (line: Line): void => {
    if (!isEmptyDraft(d)) drafts.push(d);
    d = newDraft(line.no);
  };
  /** A line that belongs to a new output when the current one is complete. */
  const beginsOutputPart = (line: Line): void => {
    if (d.complete) startNew(line);
  };

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const raw = line.raw;
    const t = raw.trim();
    if (t === "") continue;

    let m: RegExpExecArray | null;
    if ((m = RE.header10.exec(t)) || (m = RE.headerLegacy.exec(t))) {
      if (d.content || d.complete) startNew(line);
      d.header = { version: m[1], form: RE.header10.test(t) ? "1.0" : "legacy", line: line.no };
      d.content = true;
    } else if ((m = RE.message.exec(raw))) {
      beginsOutputPart(line);
      const [, kind, msg] = m;
      if (kind === "FATAL") d.fatal.push(msg);
      else if (kind === "ALERT") d.alerts.push(msg);
      else if (kind === "WARNING") d.warnings.push(msg);
    } else if (RE.unprefixedFatal.test(raw)) {
      beginsOutputPart(line);
      d.fatal.push(raw);
    } else if (RE.threads.test(t)) {
      beginsOutputPart(line);
      m = RE.threadsValue.exec(t);
      if (!m) throw new SysbenchParseError(line.no, `unreadable thread count: '${t}'`, raw);
      d.threads = Number(m[1]);
    } else if (RE.reportEvery.test(t)) {
      m = RE.reportEveryValue.exec(t);
      if (!m) throw new SysbenchParseError(line.no, `unreadable report interval: '${t}'`, raw);
      d.reportInterval = Number(m[1]);
    } else if (RE.unfinished.test(t)) {
      m = RE.unfinishedValue.exec(t);
      if (!m) throw new SysbenchParseError(line.no, `unreadable count of unfinished transactions: '${t}'`, raw);
      d.unfinished = Number(m[1]);
    } else if (RE.intervalLike.test(t)) {
      beginsOutputPart(line);
      d.content = true;
      readIntervalLine(d, line);
    } else if (RE.histogramHeader.test(t)) {
      beginsOutputPart(line);
      if (d.histogram !== null) startNew(line);
      i = parseHistogram(d, lines, i);
      d.content = true;
    } else {
      const def = BLOCKS.find((b) => b.header.test(t));
      if (def === undefined) continue; // not a line twinbench reads: option echo, prose, a script's own output
      if (d.complete || d.blocks[def.slot] !== undefined) startNew(line);
      if (/^(OLTP test statistics|Test execution summary|queries performed):$/.test(t)) d.legacyMarker = true;
      const { values, next } = parseBlock(def, lines, i);
      d.blocks[def.slot] = { values, line: line.no, header: t };
      d.content = true;
      if (def.slot === "fairness") d.complete = true;
      i = next - 1;
    }
    d.lastLine = lines[Math.min(i, lines.length - 1)].no;
  }
  if (!isEmptyDraft(d)) drafts.push(d);
  return drafts;
}

function readIntervalLine(d: Draft, line: Line): void {
  const t = line.raw.trim();
  let m: RegExpExecArray | null;
  if ((m = RE.interval10.exec(t))) {
    const pct = Number(m[8]);
    d.intervals.push({
      t: Number(m[1]),
      threads: Number(m[2]),
      tps: req(m[3], line),
      qps: req(m[4], line),
      readsPerSec: req(m[5], line),
      writesPerSec: req(m[6], line),
      otherPerSec: req(m[7], line),
      // --percentile=0 prints "lat (ms,0%): 0.00": no percentile was computed, the 0.00 is a placeholder.
      latencyPercentile: pct === 0 ? null : pct,
      latencyMs: pct === 0 ? null : num(m[9], line),
      errorsPerSec: req(m[10], line),
      reconnectsPerSec: req(m[11], line),
    });
  } else if ((m = RE.queue10.exec(t))) {
    const last = d.intervals[d.intervals.length - 1];
    if (last === undefined || last.t !== Number(m[1])) {
      throw new SysbenchParseError(
        line.no,
        `queue length line without an interval line for ${m[1]}s before it`,
        line.raw,
      );
    }
    last.queueLength = Number(m[2]);
    last.concurrency = Number(m[3]);
  } else if (RE.checkpoint10.test(t)) {
    throw new TwinbenchError(`line ${line.no}: --report-checkpoints output is not supported by twinbench parse`, {
      code: "SYSBENCH_UNSUPPORTED",
      hint: "run sysbench without --report-checkpoints",
      details: [`> ${line.raw}`],
    });
  } else if ((m = RE.interval05.exec(t))) {
    d.legacyMarker = true;
    d.legacyIntervals.push({
      t: Number(m[1]),
      threads: Number(m[2]),
      tps: req(m[3], line),
      readsPerSec: req(m[4], line),
      writesPerSec: req(m[5], line),
      latencyMs: req(m[6], line),
      latencyPercentile: Number(m[7]),
      errorsPerSec: m[8] === undefined ? null : req(m[8], line),
      reconnectsPerSec: m[9] === undefined ? null : req(m[9], line),
    });
  } else {
    throw new SysbenchParseError(line.no, `unreadable interval line: '${t}'`, line.raw);
  }
}

/**
 * One 1.0 interval line (`[ 3s ] thds: 4 tps: … reconn/s: 0.00`) as sysbench streams it, for live display:
 * the sample, or null for any other line (including an unreadable one; parseSysbench is the strict reader).
 */
export function parseIntervalLine(line: string): IntervalSample | null {
  const t = line.trim();
  if (!RE.interval10.test(t)) return null;
  const d = newDraft(1);
  try {
    readIntervalLine(d, { no: 1, raw: t });
  } catch {
    return null; // unreadable interval line: live display skips it; parseSysbench is the strict reader
  }
  return d.intervals[0] ?? null;
}

/** `Latency histogram …`, the column header, rows `%12.3f |%-40.*s %lu`, then a line with one space. */
function parseHistogram(d: Draft, lines: Line[], start: number): number {
  const rows: Array<[number, number]> = [];
  const cols = lines[start + 1];
  if (cols === undefined || !RE.histogramColumns.test(cols.raw.trim())) {
    const at = cols ?? lines[start];
    throw new SysbenchParseError(at.no, `expected the histogram's column header after 'Latency histogram'`, at.raw);
  }
  let i = start + 2;
  for (; i < lines.length; i++) {
    const line = lines[i];
    if (line.raw.trim() === "") {
      d.histogram = rows;
      d.histogramLine = lines[start].no;
      return i;
    }
    const m = RE.histogramRow.exec(line.raw);
    if (!m) throw new SysbenchParseError(line.no, `unreadable histogram row: '${line.raw.trim()}'`, line.raw);
    rows.push([Number(m[1]), Number(m[2])]);
  }
  throw new SysbenchParseError(lines[lines.length - 1].no, "the log ends inside the latency histogram: truncated?");
}

// ------------------------------------------------------------------------------------------------------------
// Drafts → results

export const intOf = (v: Value | undefined): number | null => (v?.kind === "int" ? v.n : null);
export const numOf = (v: Value | undefined): number | null => (v?.kind === "number" ? v.n : null);
export const countOf = (v: Value | undefined): number | null => (v?.kind === "countRate" ? v.n : null);
export const rateOf = (v: Value | undefined): number | null => (v?.kind === "countRate" ? v.perSec : null);

/** The `queries performed` counts and transactions, named and read the same way by 1.0 and 0.4/0.5 logs. */
export function statementCounts(st: Map<string, Value> | undefined) {
  return {
    reads: intOf(st?.get("read")),
    writes: intOf(st?.get("write")),
    other: intOf(st?.get("other")),
    totalQueries: intOf(st?.get("total")),
    transactions: countOf(st?.get("transactions")),
    tps: rateOf(st?.get("transactions")),
  };
}

export function emptyLatency(): LatencyMs {
  return { min: null, avg: null, max: null, sum: null, percentile: null, percentileValue: null };
}
export function emptyFairness(): Fairness {
  return { eventsAvg: null, eventsStddev: null, execAvg: null, execStddev: null };
}

/** Status, and the checks that a report is whole: shared by both generations. */
export function statusOf(d: Draft, reportSlots: Slot[]): "ok" | "failed" {
  const present = reportSlots.filter((s) => d.blocks[s] !== undefined);
  const names: Record<Slot, string> = {
    stats: "SQL statistics",
    general: "General statistics",
    latency: "Latency (ms)",
    fairness: "Threads fairness",
  };
  const anyReport = d.blocks.stats !== undefined || present.length > 0 || d.histogram !== null;
  // No report at all: the run failed (FATAL lines say why) or sysbench died without a word (a crash, SIGKILL):
  // also "failed", with whatever intervals came before.
  if (!anyReport) return "failed";
  const missing = reportSlots.filter((s) => d.blocks[s] === undefined);
  if (missing.length > 0) {
    const first =
      present.length > 0 ? d.blocks[present[0]]!.line : (d.blocks.stats?.line ?? d.histogramLine ?? d.lastLine);
    throw new SysbenchParseError(
      first,
      `incomplete cumulative report: no ${missing.map((s) => `'${names[s]}'`).join(", ")} block (truncated log?)`,
    );
  }
  return "ok";
}
