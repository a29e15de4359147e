/**
 * The ratio table's data model: its cells, rows, method summary, the two sides it compares, and its options.
 */
import type { Direction, Equivalence, FdrReading, Verdict } from "../model/verdict.ts";
import type { CellRecord } from "../model/results.ts";
import type { CellInput } from "./estimate.ts";
import type { OrderEffect } from "./diagnostics.ts";
import type { Metric } from "./metric.ts";

export type Pairing = "paired" | "unpaired";

/** A ratio cell's state: measured, failed, skipped or missing. */
export type CellStatus = "ok" | "failed" | "skipped" | "missing";

/** One cell of the ratio table: the ratio with its confidence interval, verdict, repeats and CVs. */
export interface RatioCell {
  threads: number;
  /** median(numerator) / median(denominator) * 100: the seed tables' figure. Null unless status is "ok". */
  ratio: number | null;
  /** exp(mean log pair ratio) * 100, the centre of the interval; null unless status is "ok". */
  estimate: number | null;
  /** The interval of `estimate`, in %. */
  low: number | null;
  high: number | null;
  /** The verdict kind (verdict.ts): direction and equivalence in one, e.g. `faster-within`. */
  verdict: Verdict;
  /** faster / slower / none (the interval includes 100) / unknown (no interval). */
  direction: Direction;
  /** within / beyond / undetermined against 100 ± marginPct; unknown without an interval. */
  equivalence: Equivalence;
  /** Whether a faster/slower direction holds under Benjamini–Hochberg at FDR (q ≤ 0.05); null for the others. */
  fdr: FdrReading;
  /** Complete pairs (paired), min(n_a, n_b) (unpaired), or runs per side (compare with several runs). */
  n: number;
  status: CellStatus;
  /** Why there is no interval or no verdict (too-few-pairs, zero-width, no-data, failed, skipped, missing). */
  reason?: string;
  /** Server instances the pairs ran on (1 when the records carry none). */
  instances: number;
  /** Degrees of freedom of the interval's t quantile; null without an interval. */
  df: number | null;
  /** Two-sided p-value of "no difference", and its Benjamini–Hochberg q-value over the table's cells. */
  p: number | null;
  q: number | null;
  /** Why the cell is unstable (a stalled per-second series, an outlier pair, a repeat disturbed by outside work); empty when it is not. */
  unstable: string[];
  cvNumerator: number | null;
  cvDenominator: number | null;
  numeratorMedian: number | null;
  denominatorMedian: number | null;
  /** The metric of each repeat (index = repeat - 1), null where missing or failed. */
  numeratorValues: Array<number | null>;
  denominatorValues: Array<number | null>;
  /** Repeats that failed on either side. */
  failedRepeats: number;
  /** The half-width (%) an adaptive run's stop rule reads (CellEstimate.stopHalfWidthPct); null without one. */
  stopHalfWidthPct?: number | null;
  /** The interval's variance is a sequential run's stage variance, the one its stop rule read (estimateRun). */
  split?: boolean;
  /** Most of the cell's measured repeats (both sides) were load-bound (src/core/measure/cellstate.ts): no verdict. */
  loadBound: boolean;
}

/** One test's row of the ratio table. */
export interface RatioRow {
  test: string;
  cells: RatioCell[];
}

/** The ratio table: numerator / denominator × 100 per test and thread count. */
export interface RatioTable {
  metric: Metric;
  /** Server ids. */
  numerator: string;
  denominator: string;
  threads: number[];
  rows: RatioRow[];
  /** Extra fields (not in the fixed shape). */
  inverted: boolean;
  pairing: Pairing;
  confidence: number;
  /** Equivalence margin: `equivalent` when the interval lies inside 100 ± marginPct. */
  marginPct: number;
  /** How the cells' variance was pooled and what it includes. */
  method: TableMethod;
  /** Human labels for legends, e.g. "MariaDB" / "MySQL", or "NEW mariadb" / "BASE mariadb". */
  numeratorLabel: string;
  denominatorLabel: string;
  /** Latency percentile rank behind "p95" (the scenario's workload.percentile). */
  percentile: number;
}

export interface TableMethod {
  /** Prior of the cells' variances: df d0 (Infinity: one variance for all cells) and its sd in log units. */
  priorDf: number | null;
  priorSd: number | null;
  /** sd between server instances (log units), when some cell ran on 2 or more instances. */
  instanceSd: number | null;
  /** Cells whose interval includes the level between instances (or, in compare, between runs). */
  instanceCells: number;
  /** "repeats": the replication unit is the pair or repeat; "runs": each run's cell value (compare, ≥ 2 runs a side). */
  unit: "repeats" | "runs";
  /** Cells with an interval, and the false faster/slower verdicts chance alone gives over them. */
  intervals: number;
  expectedFalse: number;
  /** faster/slower verdicts, and how many hold at a 5% false-discovery rate (Benjamini–Hochberg). */
  verdicts: number;
  verdictsAtFdr: number;
  /** Paired tables: numerator-first against denominator-first, pooled over cells. */
  order: OrderEffect | null;
  /** df of the variance within server instances (0: every instance held one pair, the levels are not separable). */
  withinDf?: number;
  /** Cells whose interval uses a sequential run's stage variance, the one its stop rule read (estimateRun). */
  splitCells?: number;
  /** Cells of a sequential run stopped by max or the budget (or still open), whose interval uses all their units. */
  allUnitsCells?: number;
  /** The smallest and largest df of the cells' t quantiles. */
  dfRange?: [number, number] | null;
}

/** One side of a comparison: the records of one server (in one run, or in several runs). */
export interface Side {
  id: string;
  label: string;
  records: CellRecord[];
  /** Several runs of this side (compare): each run's records. With 2 or more on both sides, runs are the unit. */
  runs?: CellRecord[][];
}

export interface RatioTableOptions {
  metric?: Metric;
  /** Equivalence margin in percent (default 5). */
  marginPct?: number;
  pairing?: Pairing;
  percentile?: number;
  /** The run stopped its cells on their estimated width (adaptive repeats): estimateRun's sequential stages. */
  sequential?: boolean;
  /** How each cell of an adaptive run stopped, by `test|threads` (adaptiveStops): estimateRun's `stop`. */
  stops?: ReadonlyMap<string, NonNullable<CellInput["stop"]>>;
  /**
   * Count a pair whose last attempt outside work disturbed (flagged, not left out). No run sets it: a disturbed pair
   * is always left out (`workload.rerunDisturbed: false` only stops the re-run). The shipped simulation sets it to
   * show the bias that counting such pairs brings (test/unit/stats/coverage.test.ts).
   */
  keepDisturbed?: boolean;
}
