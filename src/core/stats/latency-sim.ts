/**
 * The seeded simulation of the latency readings as shipped (pure): simulated runs of two servers whose repeats
 * record a sysbench latency histogram, read by the report's own path (ratioTableFromSides with the percentile metrics,
 * then latencySection's joint Benjamini–Hochberg), so that we can count how often a reading's 95% interval holds the
 * truth and how often an A/A reading (two servers alike) says faster or slower.
 *
 * The noise model, per cell (each cell drawn once per simulated run):
 * - each event's latency is log-normal around the cell's median (0.05 to 20 ms, log-uniform) with a log sd of 0.2 to
 *   0.9 (from a tight point select to a long-tailed write mix), so p99 rests on the few events of the tail;
 * - each repeat of each server moves the whole distribution by a log shift N(0, s), s drawn per cell from 0.3% to 6%
 *   (log-uniform: from a quiet cell, whose pairs differ by less than one bucket, to a noisy one);
 * - the two repeats of a pair share a drift N(0, 3%), which the pair's ratio cancels;
 * - every event is counted in sysbench's bucket (histogram.ts bucketIndex) and each bucket printed with three
 *   decimals, as the log gives it: the quantisation is the histogram's own.
 * The truth of a reading is `trueRatio` (the numerator's latency over the denominator's at every percentile).
 */
import { normalFrom, seededRandom } from "../base/random.ts";
import type { CellRecord } from "../model/results.ts";
import type { SysbenchResult } from "../model/sysbench/result.ts";
import { directionOfKind } from "../model/verdict.ts";
import { bucketIndex, bucketValue, histogramPercentile } from "./histogram.ts";
import { atHistogramResolution, latencySection } from "./latency.ts";
import { LATENCY_PERCENTILES, type LatencyPercentile } from "./metric.ts";
import { ratioTableFromSides } from "./ratio.ts";

export interface LatencySimOptions {
  /** Simulated runs (default 100), cells per run (default 6: the A/A scenario's) and repeats per cell (default 5). */
  runs?: number;
  cells?: number;
  repeats?: number;
  /** Events per repeat (default 2000: p99 then rests on about 20 of them). */
  events?: number;
  seed?: number;
  /** The numerator's latency over the denominator's, at every percentile (default 1: A/A). */
  trueRatio?: number;
  /** The per-cell range of the repeat-to-repeat log sd (default 0.003–0.06), and the pair's shared drift (0.03). */
  repeatSd?: readonly [number, number];
  /** The per-cell range of the events' log sd (default 0.2–0.9: from a tight point select to a long-tailed mix). */
  spread?: readonly [number, number];
  driftSd?: number;
}

/** What the simulated readings gave, per percentile and over all. */
export interface LatencySimResult {
  runs: number;
  /** Per percentile: readings with an interval, the share holding the truth, and the share with a faster/slower
   *  direction (before the multiple-testing control) and that hold after it (q ≤ 5% over the run's readings). */
  percentiles: Record<LatencyPercentile, { readings: number; coverage: number; directed: number; afterFdr: number }>;
  /** Over all readings: the same shares, and the share whose interval is narrower than one histogram bucket. */
  readings: number;
  coverage: number;
  directed: number;
  afterFdr: number;
  atResolution: number;
  /** Per run: how many of its readings held a faster/slower verdict after the control (index = count, value = runs). */
  heldPerRun: number[];
}

/** A sysbench result with only what the latency path reads (a histogram and sysbench's own printed p95). */
function result(rows: Array<[number, number]>): SysbenchResult {
  return {
    status: "ok",
    fatal: [],
    alerts: [],
    warnings: [],
    version: "1.0.20",
    threads: 1,
    reads: null,
    writes: null,
    other: null,
    totalQueries: null,
    transactions: null,
    tps: null,
    queries: null,
    qps: null,
    ignoredErrors: null,
    reconnects: null,
    totalTime: null,
    events: rows.reduce((a, [, n]) => a + n, 0),
    latencyMs: {
      min: null,
      avg: null,
      max: null,
      sum: null,
      percentile: 95,
      percentileValue: histogramPercentile(rows, 95),
    },
    fairness: { eventsAvg: null, eventsStddev: null, execAvg: null, execStddev: null },
    intervals: [],
    histogram: rows,
    unfinishedTransactions: null,
  };
}

/** One repeat's histogram as the log prints it: the non-empty buckets, each value with three decimals. */
function histogram(events: number, mu: number, sigma: number, z: () => number): Array<[number, number]> {
  const counts = new Map<number, number>();
  for (let e = 0; e < events; e++) {
    const i = bucketIndex(Math.exp(mu + sigma * z()));
    counts.set(i, (counts.get(i) ?? 0) + 1);
  }
  return [...counts.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([i, n]): [number, number] => [Number(bucketValue(i).toFixed(3)), n]);
}

/** Simulate `runs` runs and read them through the shipped latency path; deterministic for a seed. */
export function simulateLatency(o: LatencySimOptions = {}): LatencySimResult {
  const runs = o.runs ?? 100;
  const cells = o.cells ?? 6;
  const repeats = o.repeats ?? 5;
  const events = o.events ?? 2000;
  const truth = o.trueRatio ?? 1;
  const [sdLo, sdHi] = o.repeatSd ?? [0.003, 0.06];
  const drift = o.driftSd ?? 0.03;
  const [spreadLo, spreadHi] = o.spread ?? [0.2, 0.9];
  const rand = seededRandom(o.seed ?? 1);
  const z = normalFrom(rand);
  const logUniform = (a: number, b: number) => Math.exp(Math.log(a) + (Math.log(b) - Math.log(a)) * rand());
  const tests = Array.from({ length: cells }, (_, i) => `cell${i + 1}`);
  const empty = () => ({ readings: 0, coverage: 0, directed: 0, afterFdr: 0 });
  const per = Object.fromEntries(LATENCY_PERCENTILES.map((p) => [p, empty()])) as LatencySimResult["percentiles"];
  const heldPerRun: number[] = [];
  let narrow = 0;
  // The engine's figure is inverted (denominator / numerator × 100): the truth reads 100 / trueRatio there.
  const target = 100 / truth;
  for (let k = 0; k < runs; k++) {
    const records: CellRecord[] = [];
    let clock = 0;
    for (const test of tests) {
      const mu = Math.log(logUniform(0.05, 20));
      const sigma = spreadLo + (spreadHi - spreadLo) * rand();
      const sd = logUniform(sdLo, sdHi);
      for (let r = 1; r <= repeats; r++) {
        const shared = drift * z();
        // ABBA within the cell: who goes first alternates from repeat to repeat.
        const order = r % 2 === 1 ? ["a", "b"] : ["b", "a"];
        for (const server of order) {
          const m = mu + shared + sd * z() + (server === "a" ? Math.log(truth) : 0);
          const at = new Date(Date.UTC(2024, 0, 1) + clock++ * 1000).toISOString();
          records.push({
            key: `${server}/${test}/1/${r}`,
            server,
            test,
            threads: 1,
            repeat: r,
            phase: "measure",
            status: "ok",
            metrics: result(histogram(events, m, sigma, z)),
            raw: "",
            startedAt: at,
            endedAt: at,
          });
        }
      }
    }
    const build = (metric: LatencyPercentile) => [
      ratioTableFromSides(
        { id: "a", label: "A", records: records.filter((r) => r.server === "a") },
        { id: "b", label: "B", records: records.filter((r) => r.server === "b") },
        tests,
        [1],
        { metric, pairing: "paired" },
      ),
    ];
    const section = latencySection(build, records)!;
    let held = 0;
    for (const { percentile, table } of section.tables) {
      for (const c of table.rows.flatMap((r) => r.cells)) {
        if (c.low === null || c.high === null) continue;
        if (atHistogramResolution(c)) narrow++;
        const x = per[percentile];
        x.readings++;
        if (c.low <= target && c.high >= target) x.coverage++;
        const d = directionOfKind(c.verdict);
        if (d === "faster" || d === "slower") x.directed++;
        if (c.fdr === "holds") {
          x.afterFdr++;
          held++;
        }
      }
    }
    heldPerRun[held] = (heldPerRun[held] ?? 0) + 1;
  }
  const all = LATENCY_PERCENTILES.map((p) => per[p]);
  const sum = (f: (x: (typeof all)[number]) => number) => all.reduce((a, x) => a + f(x), 0);
  const readings = sum((x) => x.readings);
  const share = (n: number, of: number) => (of ? n / of : 0);
  for (const x of all) {
    const n = x.readings;
    Object.assign(x, {
      coverage: share(x.coverage, n),
      directed: share(x.directed, n),
      afterFdr: share(x.afterFdr, n),
    });
  }
  return {
    runs,
    percentiles: per,
    readings,
    coverage: share(
      sum((x) => x.coverage * x.readings),
      readings,
    ),
    directed: share(
      sum((x) => x.directed * x.readings),
      readings,
    ),
    afterFdr: share(
      sum((x) => x.afterFdr * x.readings),
      readings,
    ),
    atResolution: share(narrow, readings),
    heldPerRun: Array.from({ length: heldPerRun.length }, (_, i) => heldPerRun[i] ?? 0),
  };
}
