/**
 * The parsed form of one sysbench output. Field names are fixed: `twinbench parse --json` prints exactly this,
 * and `cells.jsonl` stores it as `metrics`. A figure the log does not contain is `null`, never 0.
 */
export interface IntervalSample {
  t: number;
  threads: number;
  tps: number;
  qps: number;
  readsPerSec: number;
  writesPerSec: number;
  otherPerSec: number;
  /** The percentile the interval latency refers to (e.g. 95), or null when not printed. */
  latencyPercentile: number | null;
  latencyMs: number | null;
  errorsPerSec: number;
  reconnectsPerSec: number;
  /** With `--rate`: the `[ Ns ] queue length: N, concurrency: N` line of the same second. */
  queueLength?: number;
  concurrency?: number;
}

/**
 * An interval line of sysbench 0.5 (`[  10s] threads: 4, tps: …, reads/s: …, writes/s: … response time: 2.47ms (99%)`,
 * some builds add `, errors: …, reconnects: …`). 0.5 prints no qps and no other/s, so this is not an IntervalSample.
 */
export interface LegacyIntervalSample {
  t: number;
  threads: number;
  tps: number;
  readsPerSec: number;
  writesPerSec: number;
  latencyPercentile: number;
  latencyMs: number;
  errorsPerSec: number | null;
  reconnectsPerSec: number | null;
}

/** sysbench's latency figures in milliseconds. */
export interface LatencyMs {
  min: number | null;
  avg: number | null;
  max: number | null;
  sum: number | null;
  /** Which percentile was printed (95, 99, 100), or null when `percentile stats: disabled`. */
  percentile: number | null;
  percentileValue: number | null;
}

export interface Fairness {
  eventsAvg: number | null;
  eventsStddev: number | null;
  execAvg: number | null;
  execStddev: number | null;
}

/** One parsed sysbench output (1.0.x, 0.5 or 0.4): counts, rates, latency, fairness and per-second intervals. */
export interface SysbenchResult {
  status: "ok" | "failed";
  /** FATAL messages without the `FATAL: ` prefix. */
  fatal: string[];
  alerts: string[];
  warnings: string[];
  version: string | null;
  threads: number | null;
  reads: number | null;
  writes: number | null;
  other: number | null;
  totalQueries: number | null;
  transactions: number | null;
  tps: number | null;
  queries: number | null;
  qps: number | null;
  ignoredErrors: number | null;
  reconnects: number | null;
  /** The `(X per sec.)` of `ignored errors:` / `reconnects:`. */
  ignoredErrorsPerSec?: number | null;
  reconnectsPerSec?: number | null;
  /** `Report intermediate results every N second(s)`, or null when not printed. */
  reportInterval?: number | null;
  totalTime: number | null;
  events: number | null;
  latencyMs: LatencyMs;
  fairness: Fairness;
  intervals: IntervalSample[];
  histogram: Array<[number, number]> | null;
  unfinishedTransactions: number | null;
  /** Only for sysbench 0.4/0.5 logs: figures with no 1.0 equivalent. */
  legacy?: Record<string, number | string | null>;
  /** Only for sysbench 0.5 logs with `--report-interval`. */
  legacyIntervals?: LegacyIntervalSample[];
}

/** Figures computed from the intervals: kept apart from what sysbench printed. */
export interface DerivedFigures {
  tpsCv: number | null;
  stalls: number;
  errorsTotal: number;
  reconnectsTotal: number;
}
