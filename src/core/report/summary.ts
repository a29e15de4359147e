/**
 * The execution summary (seed 002's "Test execution summary"), per test × threads, side by side: one column for
 * A, one for B, and B/A × 100. A is the denominator of the report it sits in (the second server of a run, the BASE
 * run of `compare`, the second host of a host comparison, the first output of `parse`), B the numerator, so the
 * last column reads like every other ratio of that report. Each figure is the median over the measured repeats.
 *
 * Derived lines, per side (Little's law: in a closed loop, mean concurrency = throughput × mean latency):
 * - effective concurrency = total time taken by event execution / total time;
 * - tps × avg latency, the same figure from the other two columns (a cross-check);
 * - both against the configured threads; below half of them the side gets a starvation note: the summary's
 *   latencies then describe the few threads that ran, not a faster server (seed 002's 2.4 kernel: 5.7 of 300);
 * - threads fairness as events stddev / avg, with a note when it is uneven (above UNEVEN_FAIRNESS).
 */
import type { CellRecord, RunManifest } from "../model/results.ts";
import type { SysbenchResult } from "../model/sysbench/result.ts";
import { median } from "../base/distributions.ts";
import { axes, pickServers } from "../stats/ratio.ts";
import { measureRecords } from "../stats/records.ts";

/** Events stddev / avg above this reads as uneven thread fairness. */
export const UNEVEN_FAIRNESS = 0.1;
/** Effective concurrency below this share of the configured threads gets the starvation note. */
export const STARVED_SHARE = 0.5;

export interface SummaryRow {
  label: string;
  /** Indent level in the text view (a "per sec." line sits under its count). */
  indent: number;
  /** One value per side (same order as `sides`), null when not recorded. */
  values: Array<number | null>;
  /** Text shown instead of the number (early 0.4 fairness pairs such as "34.72/74.56"). */
  display?: Array<string | null>;
  decimals: number;
  /** B / A × 100 with two sides, null when either is missing or A is 0. */
  ratio: number | null;
  /** A derived line (computed here), not a figure sysbench printed. */
  derived?: boolean;
}

export interface SummaryBlock {
  /** Heading, e.g. "oltp_read_only @ 300 threads" or "mysql: oltp_read_only @ 300 threads". */
  title: string;
  test: string;
  /** Configured threads per side (null when unknown). */
  threads: Array<number | null>;
  /** Repeats that went into each side's medians. */
  repeats: number[];
  /** Per side: "ok", or "failed"/"missing" when there is nothing to show. */
  status: string[];
  rows: SummaryRow[];
  /** Readings of the derived lines, each naming its side. */
  notes: string[];
}

export interface ExecutionSummary {
  /** Column labels: [A, B] (or one, or several for `parse` of several outputs). */
  sides: string[];
  /** What each label stands for, when the label alone does not say (e.g. "A = results/x (run …)"). */
  legend: string[];
  percentile: number;
  blocks: SummaryBlock[];
}

interface Field {
  label: string;
  indent?: number;
  decimals: number;
  /** The figure of one result; `threads` is the side's configured thread count. */
  get: (m: SysbenchResult, threads: number | null) => number | null;
  /** A figure of the side itself, not of its results. */
  ofSide?: (s: SideCell) => number | null;
  text?: (m: SysbenchResult) => string | null;
  derived?: boolean;
}

const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);
const perSec = (n: number | null, m: SysbenchResult) => (n === null || !m.totalTime ? null : n / m.totalTime);
const add = (a: number | null, b: number | null) => (a === null || b === null ? null : a + b);
const legacyPair = (m: SysbenchResult, k: "Distribution" | "Execution"): string | null => {
  const a = num(m.legacy?.[`fairness${k}A`]);
  const b = num(m.legacy?.[`fairness${k}B`]);
  return a === null || b === null ? null : `${a.toFixed(2)}/${b.toFixed(2)}`;
};

/** Effective concurrency: total time taken by event execution / total time. */
export function effectiveConcurrency(m: SysbenchResult): number | null {
  const sum = m.latencyMs?.sum;
  return sum == null || !m.totalTime ? null : sum / 1000 / m.totalTime;
}

/** Little's law from the other side: tps (events per second when tps is missing) × avg latency in seconds. */
export function throughputTimesLatency(m: SysbenchResult): number | null {
  const rate = m.tps ?? perSec(m.events, m);
  const avg = m.latencyMs?.avg;
  return rate == null || avg == null ? null : (rate * avg) / 1000;
}

/** Events stddev / avg (null when sysbench printed no avg/stddev, e.g. early 0.4's "distribution"). */
export function fairnessSpread(m: SysbenchResult): number | null {
  const { eventsAvg, eventsStddev } = m.fairness ?? {};
  return eventsAvg == null || eventsStddev == null || eventsAvg === 0 ? null : eventsStddev / eventsAvg;
}

function fields(percentile: number): Field[] {
  return [
    { label: "transactions", decimals: 0, get: (m) => m.transactions },
    { label: "per sec.", indent: 1, decimals: 2, get: (m) => m.tps },
    {
      label: "read/write requests",
      decimals: 0,
      get: (m) => num(m.legacy?.readWriteRequests) ?? add(m.reads, m.writes),
    },
    {
      label: "per sec.",
      indent: 1,
      decimals: 2,
      get: (m) => num(m.legacy?.readWriteRequestsPerSec) ?? perSec(add(m.reads, m.writes), m),
    },
    { label: "other operations", decimals: 0, get: (m) => num(m.legacy?.otherOperations) ?? m.other },
    {
      label: "per sec.",
      indent: 1,
      decimals: 2,
      get: (m) => num(m.legacy?.otherOperationsPerSec) ?? perSec(m.other, m),
    },
    { label: "queries per sec.", decimals: 2, get: (m) => m.qps },
    { label: "deadlocks", decimals: 0, get: (m) => num(m.legacy?.deadlocks) },
    { label: "ignored errors", decimals: 0, get: (m) => m.ignoredErrors },
    { label: "reconnects", decimals: 0, get: (m) => m.reconnects },
    { label: "total time (s)", decimals: 4, get: (m) => m.totalTime },
    { label: "total number of events", decimals: 0, get: (m) => m.events },
    {
      label: "total time taken by event execution (s)",
      decimals: 4,
      get: (m) => (m.latencyMs?.sum == null ? null : m.latencyMs.sum / 1000),
    },
    { label: "per-request statistics (ms): min", decimals: 2, get: (m) => m.latencyMs?.min ?? null },
    { label: "avg", indent: 1, decimals: 2, get: (m) => m.latencyMs?.avg ?? null },
    { label: "max", indent: 1, decimals: 2, get: (m) => m.latencyMs?.max ?? null },
    {
      label: `approx. ${percentile} percentile`,
      indent: 1,
      decimals: 2,
      get: (m) => m.latencyMs?.percentileValue ?? null,
    },
    { label: "threads fairness: events avg", decimals: 4, get: (m) => m.fairness?.eventsAvg ?? null },
    { label: "events stddev", indent: 1, decimals: 2, get: (m) => m.fairness?.eventsStddev ?? null },
    { label: "execution time avg (s)", indent: 1, decimals: 4, get: (m) => m.fairness?.execAvg ?? null },
    { label: "execution time stddev (s)", indent: 1, decimals: 2, get: (m) => m.fairness?.execStddev ?? null },
    {
      label: "threads fairness: distribution",
      decimals: 2,
      get: () => null,
      text: (m) => legacyPair(m, "Distribution"),
    },
    { label: "execution", indent: 1, decimals: 2, get: () => null, text: (m) => legacyPair(m, "Execution") },
    {
      label: "effective concurrency (event execution time / total time)",
      decimals: 1,
      get: effectiveConcurrency,
      derived: true,
    },
    { label: "tps × avg latency (Little's law cross-check)", decimals: 1, get: throughputTimesLatency, derived: true },
    { label: "configured threads", decimals: 0, get: () => null, ofSide: (s) => s.threads, derived: true },
    {
      label: "busy share of the threads (%)",
      decimals: 1,
      get: (m, t) => {
        const c = effectiveConcurrency(m);
        return c === null || !t ? null : (c / t) * 100;
      },
      derived: true,
    },
    {
      label: "fairness: events stddev / avg (%)",
      decimals: 1,
      get: (m) => {
        const f = fairnessSpread(m);
        return f === null ? null : f * 100;
      },
      derived: true,
    },
  ];
}

/** What one side of a block holds: the measured results (repeats) of one test × threads, or why there are none. */
export interface SideCell {
  results: SysbenchResult[];
  status: string;
  threads: number | null;
}

const finite = (vs: Array<number | null>): number[] =>
  vs.filter((v): v is number => typeof v === "number" && Number.isFinite(v));
const med = (vs: readonly number[]): number | null => (vs.length ? median(vs) : null);

/** One block from the results of each side; figures are medians over each side's results. */
export function summaryBlock(
  title: string,
  test: string,
  sides: readonly SideCell[],
  labels: readonly string[],
  percentile: number,
): SummaryBlock {
  const threads = sides.map((s) => s.threads);
  const rows: SummaryRow[] = [];
  for (const f of fields(percentile)) {
    const values = sides.map((s) => (f.ofSide ? f.ofSide(s) : med(finite(s.results.map((m) => f.get(m, s.threads))))));
    const display = f.text ? sides.map((s) => (s.results.length ? f.text!(s.results[0]!) : null)) : undefined;
    if (values.every((v) => v === null) && (!display || display.every((d) => d === null))) continue;
    const [a, b] = values;
    const ratio = sides.length === 2 && a != null && b != null && a !== 0 ? (b / a) * 100 : null;
    rows.push({
      label: f.label,
      indent: f.indent ?? 0,
      values,
      ...(display ? { display } : {}),
      decimals: f.decimals,
      ratio,
      ...(f.derived ? { derived: true } : {}),
    });
  }
  return {
    title,
    test,
    threads,
    repeats: sides.map((s) => s.results.length),
    status: sides.map((s) => s.status),
    rows,
    notes: readings(sides, labels),
  };
}

function readings(sides: readonly SideCell[], labels: readonly string[]): string[] {
  const notes: string[] = [];
  sides.forEach((s, i) => {
    if (!s.results.length) return;
    const conc = med(finite(s.results.map(effectiveConcurrency)));
    const t = s.threads;
    if (conc !== null && t && conc < STARVED_SHARE * t) {
      notes.push(
        `${labels[i]}: effective concurrency ${conc.toFixed(1)} of ${t} threads (${((conc / t) * 100).toFixed(1)}%, below half): ` +
          `client-side or scheduler starvation. Most threads were not executing a request at any time, so this side's ` +
          `per-request latencies describe the few threads that ran, not a faster server; compare the throughput.`,
      );
    }
    const spread = med(finite(s.results.map(fairnessSpread)));
    if (spread !== null && spread > UNEVEN_FAIRNESS) {
      notes.push(
        `${labels[i]}: uneven threads fairness: events stddev / avg = ${(spread * 100).toFixed(1)}% (above ${UNEVEN_FAIRNESS * 100}%): some threads ran far more requests than others.`,
      );
    }
    if (spread === null && s.results.some((m) => num(m.legacy?.fairnessDistributionA) !== null))
      notes.push(
        `${labels[i]}: threads fairness is early 0.4's "distribution" / "execution" pairs, shown as printed; they are not avg/stddev, so they give no fairness reading.`,
      );
    const cross = med(finite(s.results.map(throughputTimesLatency)));
    if (conc !== null && cross !== null && Math.abs(cross - conc) > Math.max(1, 0.1 * conc)) {
      notes.push(
        `${labels[i]}: tps × avg latency (${cross.toFixed(1)}) and effective concurrency (${conc.toFixed(1)}) disagree by more than 10%: the events are not the transactions, or the run was cut short.`,
      );
    }
  });
  return notes;
}

/** The usable measured results of one side's records for one test × threads. */
function sideCell(records: readonly CellRecord[], test: string, threads: number): SideCell {
  const rs = records.filter((c) => c.test === test && c.threads === threads);
  const ok = rs.filter((c) => c.status === "ok" && c.metrics && c.metrics.status === "ok").map((c) => c.metrics!);
  const status = ok.length
    ? "ok"
    : rs.some((c) => c.status === "failed")
      ? "failed"
      : rs.length
        ? rs[0]!.status
        : "missing";
  return { results: ok, status, threads };
}

/** One side of a summary over results folders: a label and that side's measure records. */
export interface RecordSide {
  label: string;
  records: readonly CellRecord[];
}

/** Blocks per test × threads (given axes) over two (or more) sides of measure records. */
export function summaryOfSides(
  sides: readonly RecordSide[],
  axesOf: { tests: string[]; threads: number[] },
  opts: { percentile: number; prefix?: string },
): SummaryBlock[] {
  const blocks: SummaryBlock[] = [];
  const labels = sides.map((s) => s.label);
  const measured = sides.map((s) => measureRecords(s.records));
  for (const test of axesOf.tests) {
    for (const t of axesOf.threads) {
      const cells = measured.map((rs) => sideCell(rs, test, t));
      if (cells.every((c) => c.status === "missing")) continue;
      blocks.push(summaryBlock(`${opts.prefix ?? ""}${test} @ ${t} threads`, test, cells, labels, opts.percentile));
    }
  }
  return blocks;
}

/** The two servers of one run: A = the denominator, B = the numerator. */
export function buildSummary(
  manifest: RunManifest,
  cells: readonly CellRecord[],
  opts: { numerator?: string; denominator?: string } = {},
): ExecutionSummary {
  const pair = pickServers(manifest, opts);
  const ids = pair ? [pair[1], pair[0]] : manifest.scenario.servers.map((s) => s.id).slice(0, 1);
  const percentile = manifest.scenario.workload.percentile ?? 95;
  const sides = ids.map((id) => ({ label: id, records: cells.filter((c) => c.server === id) }));
  return { sides: ids, legend: [], percentile, blocks: summaryOfSides(sides, axes(manifest, cells), { percentile }) };
}

/** One server across two runs (compare) or two hosts: A and B are whole runs. */
export function buildRunsSummary(
  a: { label: string; manifest: RunManifest; cells: readonly CellRecord[] },
  b: { label: string; manifest: RunManifest; cells: readonly CellRecord[] },
  servers: readonly string[],
  legend: string[] = [],
): ExecutionSummary {
  const ax = axes(a.manifest, a.cells);
  const bx = axes(b.manifest, b.cells);
  const both = {
    tests: [...ax.tests, ...bx.tests.filter((t) => !ax.tests.includes(t))],
    threads: [...ax.threads, ...bx.threads.filter((t) => !ax.threads.includes(t))],
  };
  const percentile = a.manifest.scenario.workload.percentile ?? 95;
  const blocks = servers.flatMap((server) =>
    summaryOfSides(
      [
        { label: a.label, records: a.cells.filter((c) => c.server === server) },
        { label: b.label, records: b.cells.filter((c) => c.server === server) },
      ],
      both,
      { percentile, prefix: `${server}: ` },
    ),
  );
  return { sides: [a.label, b.label], legend, percentile, blocks };
}

/**
 * The outputs of sysbench logs side by side (`parse --summary`): one column per output, in file order. With two,
 * A is the first and B the second. `threads` fills in what a log does not print (0.4 prints no thread count).
 */
export function buildParsedSummary(
  outputs: ReadonlyArray<{ label: string; result: SysbenchResult; threads: number | null }>,
  legend: string[] = [],
): ExecutionSummary {
  const percentile = outputs.find((o) => o.result.latencyMs?.percentile != null)?.result.latencyMs.percentile ?? 95;
  const labels = outputs.map((o) => o.label);
  const cells: SideCell[] = outputs.map((o) => ({
    results: o.result.status === "ok" ? [o.result] : [],
    status: o.result.status,
    threads: o.result.threads ?? o.threads,
  }));
  const ts = [...new Set(cells.map((c) => c.threads))];
  const title = `sysbench output${outputs.length > 1 ? "s" : ""}${ts.length === 1 && ts[0] != null ? ` @ ${ts[0]} threads` : ""}`;
  return { sides: labels, legend, percentile, blocks: [summaryBlock(title, "", cells, labels, percentile)] };
}

/**
 * The thread count a sysbench command line in free text asks for (`--num-threads=300`, `--threads 8`), if any.
 * Prose can mention other counts ("numbers with --num-threads=2"), so the mention with the most other `--options`
 * around it (within 120 characters) wins: that is the command line.
 */
export function threadsInText(text: string): number | null {
  let best: { n: number; score: number } | null = null;
  for (const m of text.matchAll(/--(?:num-)?threads[= ](\d+)/g)) {
    const around = text.slice(Math.max(0, m.index - 120), m.index + m[0].length + 120);
    const score = (around.match(/(?:^|\s)--[a-z]/g) ?? []).length;
    if (!best || score > best.score) best = { n: Number(m[1]), score };
  }
  return best ? best.n : null;
}
