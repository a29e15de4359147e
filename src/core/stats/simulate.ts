/**
 * What an adaptive run will take (pure): a Monte Carlo of the run's own stopping rule at the host's noise, so that
 * `plan --precision` predicts the rounds the run really needs, not the ones a formula with equal cells would.
 *
 * Why a simulation: an adaptive run stops a cell when the half-width of the report's estimator (estimateRun, pooled
 * over the run's cells, instances as the replication unit) reaches the target. How fast that happens depends on how
 * unequal the cells' variances are: the estimator moderates each cell's variance toward the run's prior with the
 * prior's df d0, and when cells differ a lot (d0 small) a cell borrows little, so its t quantile stays large for
 * several rounds. A closed formula that assumes equal cells (predictHalfWidthPct) predicted 2 rounds for
 * scenarios/quick.yaml at ±10% here, where two runs took 3 to 8 (2026-12-01, docs/bench.md).
 *
 * The model per simulated run: each cell's pair sd is drawn as s · sqrt(d0 / χ²(d0)) (the estimator's own prior
 * model; capped at 5 s), each server instance adds a N(0, instance sd) shift per cell, each pair adds N(0, cell sd).
 * Rounds run over the open cells exactly as src/core/plan/adaptive.ts schedules them: a new instance every
 * `roundsPerInstance` rounds, stop on precision after `min` rounds, at `max`, or before a round that would not fit
 * the budget. Time is the plan's cost model: fixed set-up, each measured cell, each new instance's restart and
 * warm-ups of the tests that still have open cells.
 */
import { estimateRun, halfWidthPct, type PairObs } from "./estimate.ts";
import { applyStopRule, type AdaptiveCell } from "./stop.ts";
import { median } from "../base/distributions.ts";
import { gammaFrom, normalFrom, seededRandom } from "../base/random.ts";
import { directionOfKind } from "../model/verdict.ts";

/**
 * The prior df of the cells' pair variances (how unequal the cells are) when nothing better is known: fitted to the
 * 12 cells of two adaptive runs of scenarios/quick.yaml on this project's 2-vCPU VM (2026-12-01, AMD EPYC; each run
 * 2.1, both 2.4; point select ~1.5% per pair, the other cells 5–13%).
 */
export const ASSUMED_CELL_PRIOR_DF = 2.2;

/**
 * How much a whole run's pace varies (percent, sd of a log factor on its costs), for the forecast's range: the
 * seconds per pair this host's runs measured were 14.5 s (2026-12-03 15:05) and 15.3 s (2026-12-04 07:50), 5% apart;
 * the seed-matrix run of 2026-12-03 took 2.4% less than its time model. Without it every simulated run that the
 * budget stops ended at the same second, and the "80% range" was a single point.
 */
export const PACE_SD_PCT = 5;

/** A cell's drawn pair sd is at most this many times the typical one (the inverse χ² has a long tail). */
const MAX_SD_FACTOR = 5;

/** The time model of an adaptive run, seconds. */
export interface AdaptiveCosts {
  /** Before the first round (images, start, prepare, prewarm, snapshots). */
  setupSeconds: number;
  /** After the last round. */
  teardownSeconds: number;
  /** One measured cell, gross (sysbench start-up included). */
  cellSeconds: number;
  /** One new server instance: every server restored from the snapshot and restarted. */
  restartSeconds: number;
  /** One warm-up, gross (0 without warm-up); a new instance warms each test with an open cell once per server. */
  warmupSeconds: number;
}

export interface AdaptiveSimInput {
  /** The test of each cell (an index): warm-ups are per test. */
  cellTests: readonly number[];
  servers: number;
  min: number;
  max: number;
  precisionPct: number;
  /** A new instance every this many rounds (Infinity: one instance). */
  roundsPerInstance: number;
  /** Typical pair sd and instance sd (percent), and how unequal the cells are (prior df; Infinity: equal). */
  pairSdPct: number;
  instanceSdPct: number;
  cellPriorDf: number;
  /**
   * The df behind pairSdPct (absent or Infinity: taken as known). With it, each simulated run draws its typical pair
   * sd from that estimate's sampling distribution, s·sqrt(df / χ²(df)): a forecast from a few rounds' pairs is that
   * uncertain about the noise, and its range says so.
   */
  pairSdDf?: number;
  budgetSeconds?: number;
  costs: AdaptiveCosts;
  /** Simulated runs (default 200) and the seed (default 1). */
  runs?: number;
  seed?: number;
  /** Continue a run under way instead of simulating it from the start (see {@link SimStart}). */
  start?: SimStart;
  /**
   * The estimator's mode: the split of an adaptive run (default true), or false for a fixed count (min = max), whose
   * report uses the full-sample interval.
   */
  sequential?: boolean;
  /** A half-width (%) to count the cells within (result `withinShare`). */
  marginPct?: number;
  /**
   * How much a whole run's pace varies (sd of a log factor on every cost, percent; default 0: the costs as given).
   * Each simulated run draws its own factor, so a forecast's range holds the time model's own error, not only the
   * stopping rule's: without it, runs that the budget stops all end at one second.
   */
  paceSdPct?: number;
  /**
   * Each cell's pair sd (fractions, cell order; null: the prior draw), drawn once per simulated run with the
   * simulation's own random numbers in place of the prior draw around pairSdPct (cellNoiseModel's `draw` in
   * src/core/plan/calibration/cell-model.ts: cells whose noise was recorded in earlier runs on this data). That sd is of a cell's
   * pairs over fresh instances (both levels); the instance sd is taken out of it, as it is drawn per instance. Used
   * only for cells without observed pairs.
   */
  cellSd?: (z: () => number, chi2: (df: number) => number) => ReadonlyArray<number | null>;
}

/**
 * A run under way, after `round` rounds: its pairs so far, which cells stopped, the time spent. Each open cell's
 * pair sd is drawn from the posterior of the prior (pair sd, cellPriorDf) and the cell's own within-instance
 * spread (`cellSs`, `cellDf`); further pairs on the current instance keep that instance's observed mean.
 */
export interface SimStart {
  round: number;
  elapsedSeconds: number;
  /** Log pair ratios per cell (in cell order), with their instance numbers. */
  pairs: ReadonlyArray<readonly PairObs[]>;
  done: ReadonlyArray<"precision" | "max" | "budget" | null>;
  /** The instance the last round ran on (its index in the run's layout: floor((round − 1) / roundsPerInstance)). */
  instance: number;
}

export interface AdaptiveSimResult {
  runs: number;
  /** Wall seconds: median, and the 10th and 90th percentiles over the simulated runs. */
  seconds: { median: number; low: number; high: number };
  /** Rounds the run took (its longest cell): median and 90th percentile. */
  rounds: { median: number; high: number };
  /** Measured cells of the whole run (every server's, earlier rounds included): median. */
  measuredCells: number;
  /** Cells that stopped on precision per run: median (0..cells). */
  reachedCells: number;
  /** Share of cells that stopped on precision, over all runs (0–1). */
  reachedShare: number;
  /** Share of runs the budget stopped (0–1). */
  budgetShare: number;
  /**
   * The printed half-width (%, as halfWidthPct reads the report's interval) of every cell at the end of its run:
   * median and the 10th and 90th percentiles over cells and runs; null when no cell had an interval.
   */
  halfWidthPct: { median: number; low: number; high: number } | null;
  /** The same per cell (cell order): its median and 10th–90th percentiles over the simulated runs (null: never an interval). */
  cellHalfWidthPct: Array<{ median: number; low: number; high: number } | null>;
  /** Share of cells (over all runs) whose printed interval holds the simulated truth (A/A: 100); cells without one do not. */
  coverage: number;
  /** Share of cells (over all runs) whose printed half-width is within `marginPct` (0 without one). */
  withinShare: number;
  /**
   * The printed 95% intervals at the end of the simulated runs, which are A/A (every cell's truth is 100): the share
   * that hold 100 (coverage) and the share with a false faster/slower verdict, over the `cells` that have an
   * interval (null without one).
   */
  intervals: { cells: number; coverage: number | null; falseVerdicts: number | null };
}

/** One draw of χ²(df), from a gamma sampler (kept above 0 for the divisions it goes into). */
const chiSquare = (gamma: (shape: number) => number, df: number) => Math.max(2 * gamma(df / 2), 1e-12);

const meanOr = (xs: readonly number[], fallback: number) =>
  xs.length ? xs.reduce((a, x) => a + x, 0) / xs.length : fallback;

/**
 * A cell's pair sd for one simulated run: s · sqrt(d0 / χ²(d0)) from the prior alone (capped at MAX_SD_FACTOR), or,
 * with pairs observed, the conjugate posterior sqrt((d0 s² + SS) / χ²(d0 + ν)), SS and ν the cell's sum of squares
 * about its instances' means and their df. When every instance so far held one pair (a fresh instance each round,
 * the adaptive default) there is no within-instance df, but the cell's spread about its own mean holds both levels:
 * its posterior is then the sum's, sqrt((d0 (s² + τ²) + SS_total) / χ²(d0 + n − 1)), less τ² (floored at
 * s / MAX_SD_FACTOR), so the run's own pairs move each cell away from the prior.
 */
export function drawCellSd(
  gamma: (shape: number) => number,
  s: number,
  d0: number,
  seen: readonly PairObs[],
  tau = 0,
): number {
  const groups = new Map<number, number[]>();
  for (const p of seen) groups.set(p.instance ?? 0, [...(groups.get(p.instance ?? 0) ?? []), p.d]);
  let ss = 0;
  let nu = 0;
  for (const g of groups.values()) {
    const m = meanOr(g, 0);
    for (const x of g) ss += (x - m) ** 2;
    nu += g.length - 1;
  }
  if (!Number.isFinite(d0)) return s; // equal cells: the prior is the cell's sd
  if (nu === 0 && seen.length >= 2) {
    const m = meanOr(
      seen.map((p) => p.d),
      0,
    );
    const ssTotal = seen.reduce((a, p) => a + (p.d - m) ** 2, 0);
    const df = d0 + seen.length - 1;
    const v = (d0 * (s * s + tau * tau) + ssTotal) / chiSquare(gamma, df);
    return Math.sqrt(Math.max(v - tau * tau, (s / MAX_SD_FACTOR) ** 2));
  }
  const df = d0 + nu;
  const sd = Math.sqrt((d0 * s * s + ss) / chiSquare(gamma, df));
  return nu > 0 ? sd : Math.min(MAX_SD_FACTOR * s, sd);
}

const quantile = (sorted: readonly number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.round(p * (sorted.length - 1))))];

function quantiles(xs: readonly number[]): { median: number; low: number; high: number } {
  const sorted = [...xs].sort((a, b) => a - b);
  return { median: median(xs), low: quantile(sorted, 0.1), high: quantile(sorted, 0.9) };
}

/** Simulate the adaptive run `runs` times; deterministic for a seed. */
export function simulateAdaptive(o: AdaptiveSimInput): AdaptiveSimResult {
  const runs = o.runs ?? 200;
  const rand = seededRandom(o.seed ?? 1);
  const z = normalFrom(rand);
  const gamma = gammaFrom(rand);
  const nCells = o.cellTests.length;
  const s = o.pairSdPct / 100;
  const tau = o.instanceSdPct / 100;
  const given = o.costs;
  const paceSd = (o.paceSdPct ?? 0) / 100;
  const seconds: number[] = [];
  const rounds: number[] = [];
  let reached = 0;
  let budgetStops = 0;
  const st = o.start;
  const measured: number[] = [];
  const reachedPer: number[] = [];
  const widths: number[] = [];
  const cellWidths: number[][] = Array.from({ length: nCells }, () => []);
  let covered = 0;
  let within = 0;
  const sequential = o.sequential ?? true;
  let withInterval = 0;
  let covering = 0;
  let falseVerdicts = 0;
  for (let k = 0; k < runs; k++) {
    const df = o.pairSdDf;
    const sRun = df !== undefined && Number.isFinite(df) && df > 0 ? s * Math.sqrt(df / chiSquare(gamma, df)) : s;
    const own = o.cellSd?.(z, (df) => chiSquare(gamma, df));
    const sd = Array.from({ length: nCells }, (_, i) => {
      const total = own?.[i];
      if (total === undefined || total === null || st?.pairs[i]?.length)
        return drawCellSd(gamma, sRun, o.cellPriorDf, st?.pairs[i] ?? [], tau);
      // The recorded spread is of all the cell's pairs, a fresh instance each round: both levels. The instance's
      // share is drawn apart (tau), so the pair level is what is left (floored, as drawCellSd's posterior).
      return Math.sqrt(Math.max(total * total - tau * tau, (total / MAX_SD_FACTOR) ** 2));
    });
    // This run's pace (drawn only when asked for, so that the seeded runs without it stay as they were).
    const pace = paceSd > 0 ? Math.exp(paceSd * z()) : 1;
    const c: AdaptiveCosts =
      pace === 1
        ? given
        : {
            setupSeconds: given.setupSeconds * pace,
            teardownSeconds: given.teardownSeconds,
            cellSeconds: given.cellSeconds * pace,
            restartSeconds: given.restartSeconds * pace,
            warmupSeconds: given.warmupSeconds * pace,
          };
    const pairs: PairObs[][] = Array.from({ length: nCells }, (_, i) => [...(st?.pairs[i] ?? [])]);
    const done: Array<"precision" | "max" | "budget" | null> = Array.from(
      { length: nCells },
      (_, i) => st?.done[i] ?? null,
    );
    let instance = st ? st.instance : -1;
    // A run under way: each cell's new pairs centre on the mean of its observed ones (its ratio so far; 0, an A/A
    // truth, from the start). Until 2026-12-03 they centred on 0, so a cell at 150 drew its next pairs around 100 and
    // looked far noisier than it was: the forecasts of MariaDB-vs-MySQL runs expected the budget to stop them.
    const centre = Array.from({ length: nCells }, (_, i) =>
      meanOr(
        (st?.pairs[i] ?? []).map((x) => x.d),
        0,
      ),
    );
    // The current instance's shift per cell: its observed mean (about the cell's centre) when the run is under way.
    let shift: number[] = st
      ? pairs.map((p, i) =>
          meanOr(
            p.filter((x) => (x.instance ?? 0) === instance).map((x) => x.d - centre[i]!),
            tau * z(),
          ),
        )
      : [];
    let elapsed = st ? st.elapsedSeconds : c.setupSeconds;
    let round = st?.round ?? 0;
    let cellsRun = st ? st.pairs.reduce((a, p) => a + p.length, 0) * o.servers : 0;
    let last: ReturnType<typeof estimateRun> | null = null;
    let lastRound = -1;
    for (let r = (st?.round ?? 0) + 1; r <= o.max; r++) {
      const open = done.flatMap((d, i) => (d === null ? [i] : []));
      if (!open.length) break;
      const inst = Number.isFinite(o.roundsPerInstance) ? Math.floor((r - 1) / Math.max(1, o.roundsPerInstance)) : 0;
      const fresh = inst !== instance;
      const tests = new Set(open.map((i) => o.cellTests[i])).size;
      const cost =
        open.length * o.servers * c.cellSeconds +
        (fresh ? (r > 1 ? c.restartSeconds : 0) + tests * o.servers * c.warmupSeconds : 0);
      if (o.budgetSeconds !== undefined && elapsed + cost + c.teardownSeconds > o.budgetSeconds) {
        for (const i of open) done[i] = "budget";
        budgetStops++;
        break;
      }
      if (fresh) {
        instance = inst;
        shift = Array.from({ length: nCells }, () => tau * z());
      }
      for (const i of open) pairs[i].push({ d: centre[i]! + shift[i] + sd[i] * z(), instance: inst });
      elapsed += cost;
      cellsRun += open.length * o.servers;
      round = r;
      // Without a precision target only `max` stops a cell: the estimate is needed at the last round only.
      if (!Number.isFinite(o.precisionPct) && r < o.max) continue;
      // The shipped estimator and stop rule (estimateRun's sequential split, applyStopRule), as the run does.
      const est = estimateRun(
        pairs.map((p) => ({ pairs: p })),
        { sequential },
      );
      last = est;
      lastRound = r;
      for (const i of open) {
        const e = est.cells[i];
        const cell: AdaptiveCell = {
          test: "",
          threads: 0,
          n: 0,
          estimate: null,
          low: null,
          high: null,
          halfWidthPct: null,
          rounds: r - 1,
        };
        applyStopRule(
          cell,
          {
            n: e.n,
            estimate: e.estimate,
            low: e.low,
            high: e.high,
            halfWidthPct: halfWidthPct(e),
            stopHalfWidthPct: e.stopHalfWidthPct ?? null,
          },
          true,
          o,
        );
        if (cell.done === "max" || cell.done === "precision") done[i] = cell.done;
      }
    }
    // The printed intervals at the end of the run (truth 0: the simulated pairs are A/A plus noise).
    // The printed intervals, as the report computes them: each cell told how it stopped (estimateRun's `stop`).
    if (pairs.some((p) => p.length))
      last = estimateRun(
        pairs.map((p, i) => ({ pairs: p, ...(sequential ? { stop: done[i] ?? "open" } : {}) })),
        { sequential },
      );
    for (const [i, e] of (last?.cells ?? []).entries()) {
      const h = halfWidthPct(e);
      if (h !== null && Number.isFinite(h)) {
        widths.push(h);
        cellWidths[i]?.push(h);
      }
      if (h !== null && o.marginPct !== undefined && h <= o.marginPct) within++;
      if (e.low !== null && e.high !== null && e.low <= 100 && e.high >= 100) covered++;
      if (e.low !== null && e.high !== null) {
        withInterval++;
        if (e.low <= 100 && e.high >= 100) covering++;
        const dir = directionOfKind(e.verdict);
        if (dir === "faster" || dir === "slower") falseVerdicts++;
      }
    }
    const reachedHere = done.filter((d) => d === "precision").length;
    reached += reachedHere;
    reachedPer.push(reachedHere);
    measured.push(cellsRun);
    seconds.push(elapsed + c.teardownSeconds);
    rounds.push(round);
  }
  const sorted = [...seconds].sort((a, b) => a - b);
  const sortedRounds = [...rounds].sort((a, b) => a - b);
  return {
    runs,
    seconds: { median: median(seconds), low: quantile(sorted, 0.1), high: quantile(sorted, 0.9) },
    rounds: { median: median(rounds), high: quantile(sortedRounds, 0.9) },
    measuredCells: median(measured),
    reachedCells: median(reachedPer),
    reachedShare: nCells && runs ? reached / (nCells * runs) : 0,
    budgetShare: runs ? budgetStops / runs : 0,
    halfWidthPct: widths.length ? quantiles(widths) : null,
    cellHalfWidthPct: cellWidths.map((w) => (w.length ? quantiles(w) : null)),
    coverage: nCells && runs ? covered / (nCells * runs) : 0,
    withinShare: nCells && runs ? within / (nCells * runs) : 0,
    intervals: {
      cells: withInterval,
      coverage: withInterval ? covering / withInterval : null,
      falseVerdicts: withInterval ? falseVerdicts / withInterval : null,
    },
  };
}
