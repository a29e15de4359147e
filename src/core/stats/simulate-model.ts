/**
 * The inputs and the result of the adaptive-run simulation (simulate.ts): the time model, the noise, the run under
 * way, and what the simulated runs took.
 */
import type { PairObs } from "./estimate.ts";

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
   * The estimator's mode: the stages of an adaptive run (default true), or false for a fixed count (min = max), whose
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
