/**
 * The seeded simulation of the between-run analysis (replication.ts), as shipped: k earlier runs of a scenario's
 * cells on one host with a known level between runs τ, then one more run. It counts how often the pooled interval
 * holds each cell's truth and how often the replication interval holds the next run's estimate.
 *
 * The cells are unequal, as measured ones are: each cell's noise within a run (its se) is drawn log-normally around
 * 2% (sd of its log 0.5: most cells between 0.8% and 5%), and each run reports an se estimated on `seDf` df, as a
 * run's interval is. τ is the same for every cell of a row (the rows span 0 to 15%).
 *
 * Runs of unequal precision: with `busyShare` > 0 each run (the earlier ones and the next) is, with that probability, a
 * run on a busy machine whose cells all have their se multiplied by one factor drawn log-uniformly from `busyFactor`
 * (5–50× by default), as the history's run whose interval read [0.8–10012.9]. A cell left with fewer than 2 runs once
 * its busy runs are left out has no interval: the coverages are over the cells with one, and `noInterval` is the
 * share without.
 */
import { median } from "../base/distributions.ts";
import { gammaFrom, normalFrom, seededRandom } from "../base/random.ts";
import { replicationAnalysis, type CellRuns } from "./replication.ts";
import { hostLevelInterval } from "./host-level.ts";

export interface ReplicationSimOptions {
  /** Earlier runs per cell. */
  k: number;
  /** The sd between runs, in log units (0.05 ≈ 5%). */
  tau: number;
  /** Cells per scenario (6: the default scenario). */
  cells?: number;
  /** Simulated scenarios. */
  reps?: number;
  seed?: number;
  /** Typical within-run se (log units) and the spread of the cells' se around it (sd of its log). */
  typicalSe?: number;
  seSpread?: number;
  /** df of each run's own se estimate. */
  seDf?: number;
  /** Share of runs (earlier and next) on a busy machine: every cell's se of such a run is `busyFactor` times its own. */
  busyShare?: number;
  /** The range of a busy run's factor, drawn log-uniformly; [5, 50] by default. */
  busyFactor?: readonly [number, number];
}

export interface ReplicationSimResult {
  k: number;
  tau: number;
  /** Cell-level trials (reps × cells). */
  trials: number;
  /** Share of trials with an interval whose pooled interval held the cell's truth. */
  pooledCoverage: number;
  /** Share of trials with an interval whose replication interval held the next run's estimate. */
  replicationCoverage: number;
  /** Share of trials with no interval: fewer than 2 runs entered (busy runs left out). */
  noInterval: number;
  /**
   * Share of trials whose host-level interval of the next run (host-level.ts: its estimate with the level between
   * runs measured over the k earlier runs and itself) held the cell's truth; trials without a level are not counted.
   */
  hostCoverage: number;
  /** Medians over trials of the intervals' half-widths (log units: 0.05 ≈ ±5%). */
  pooledHalfWidth: number;
  replicationHalfWidth: number;
  hostHalfWidth: number;
}

/** Runs the simulation: `reps` scenarios of `cells` cells, each with k earlier runs and one next run. */
export function simulateReplication(o: ReplicationSimOptions): ReplicationSimResult {
  const cells = o.cells ?? 6;
  const reps = o.reps ?? 2000;
  const seDf = o.seDf ?? 10;
  const rand = seededRandom(o.seed ?? 1);
  const normal = normalFrom(rand);
  const gamma = gammaFrom(rand);
  const chiSq = (df: number) => 2 * gamma(df / 2);
  let pooledHits = 0;
  let repHits = 0;
  let hostHits = 0;
  let hostTrials = 0;
  let withInterval = 0;
  const widths = { pooled: [] as number[], replication: [] as number[], host: [] as number[] };
  const busyShare = o.busyShare ?? 0;
  const [fLow, fHigh] = o.busyFactor ?? [5, 50];
  // The stream of draws is the one of the equal-precision rows when no run is busy (busyShare 0 draws nothing).
  const factor = () => (busyShare > 0 && rand() < busyShare ? fLow * (fHigh / fLow) ** rand() : 1);
  for (let r = 0; r < reps; r++) {
    const sigmas = Array.from(
      { length: cells },
      () => (o.typicalSe ?? 0.02) * Math.exp((o.seSpread ?? 0.5) * normal()),
    );
    const truth = Array.from({ length: cells }, () => 0.3 * normal());
    const draw = (j: number, run: string, f: number) => ({
      run,
      y: truth[j] + o.tau * normal() + f * sigmas[j] * normal(),
      se: f * sigmas[j] * Math.sqrt(chiSq(seDf) / seDf),
      df: seDf,
    });
    const runFactors = Array.from({ length: o.k }, factor);
    const history: CellRuns[] = sigmas.map((_, j) => ({
      cell: `c${j}`,
      runs: runFactors.map((f, i) => draw(j, `r${i}`, f)),
    }));
    const nextFactor = factor();
    const next = sigmas.map((_, j) => draw(j, "next", nextFactor));
    const out = replicationAnalysis(history, { next: new Map(next.map((n, j) => [`c${j}`, { se: n.se, df: seDf }])) });
    out.forEach((c, j) => {
      if (c.replicationLow === null || c.replicationHigh === null) return;
      withInterval++;
      if (c.pooledLow <= truth[j] && truth[j] <= c.pooledHigh) pooledHits++;
      widths.pooled.push((c.pooledHigh - c.pooledLow) / 2);
      if (c.replicationLow <= next[j].y && next[j].y <= c.replicationHigh) repHits++;
      widths.replication.push((c.replicationHigh - c.replicationLow) / 2);
    });
    // The report's path: the level from the earlier runs, this run's interval widened by it.
    replicationAnalysis(history).forEach((c, j) => {
      if (c.tau === null || c.df === null || c.within === null) return;
      const h = hostLevelInterval(next[j].y, next[j].se, seDf, { tau: c.tau, df: c.df, within: c.within }, 0.95);
      hostTrials++;
      if (h.low <= truth[j] && truth[j] <= h.high) hostHits++;
      widths.host.push((h.high - h.low) / 2);
    });
  }
  const trials = reps * cells;
  return {
    k: o.k,
    tau: o.tau,
    trials,
    pooledCoverage: pooledHits / withInterval,
    replicationCoverage: repHits / withInterval,
    noInterval: 1 - withInterval / trials,
    hostCoverage: hostTrials > 0 ? hostHits / hostTrials : Number.NaN,
    pooledHalfWidth: median(widths.pooled),
    replicationHalfWidth: median(widths.replication),
    hostHalfWidth: median(widths.host),
  };
}
