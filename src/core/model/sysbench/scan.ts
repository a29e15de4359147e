/**
 * The scanner shared by every sysbench output generation: walks the lines, reads the header, log messages,
 * interval lines, the report's blocks and the latency histogram, and gathers them into one `Draft` per output.
 * Which generation a draft is, and how its figures map onto SysbenchResult, is decided by parse-1.0.ts and
 * parse-legacy.ts; parse.ts picks one.
 */
import { TwinbenchError } from "../../base/errors.ts";
import type { IntervalSample, LegacyIntervalSample } from "./result.ts";
import { SysbenchParseError } from "./error.ts";
import { NUM, num, splitLines, type Line } from "./lines.ts";
import { BLOCKS, parseBlock, type Slot, type Value } from "./blocks.ts";

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
