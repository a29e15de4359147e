/**
 * A host's noise calibration as its file holds it (`twinbench calibrate`, updated by every run's pooled residuals):
 * what the statistics and the planner assume about this machine, and the checks of its optional fields. Kept per
 * host (see the calibration store in src/adapters/calibration-store.ts).
 */
import type { SeriesStats } from "../../stats/series.ts";
import type { VarianceObs } from "../../stats/prior.ts";

/** One host's calibration. Percentages are of the q/s (log units × 100 for the pair and instance sds). */
export interface Calibration {
  /** Schema version of this file. */
  version: 1;
  /** The host key (see {@link hostKey}) and the facts it was made from. */
  hostKey: string;
  hostFacts: Record<string, string>;
  /** When calibrate measured it, and when a run last updated it (ISO). */
  measuredAt: string;
  updatedAt: string;
  /** The scenario calibrate ran (file name or name), and the cell length its pairs used. */
  scenario: string;
  cellSeconds: number;
  /** One server, one long run with a per-second report. */
  perSecond: SeriesStats | null;
  /** A/A pairs on fresh server instances: sd of log pair ratios within instances, and its degrees of freedom. */
  pairSdPct: number;
  pairDf: number;
  /** sd between server instances (log units × 100), and its df; null when only one instance ran. */
  instanceSdPct: number | null;
  instanceDf: number;
  /** Measured wall seconds per pair (both cells, overheads included) at cellSeconds, for planning. */
  secondsPerPair: number | null;
  /** Runs whose pooled residuals updated this calibration since calibrate measured it. */
  updates: number;
  /**
   * True when `pairSdPct` holds the instance level too (absent: it does not): every run folded in had a fresh
   * server instance each round, so a cell's spread was both levels together, and no instance sd is known.
   */
  pairHoldsInstances?: boolean;
  /**
   * What the last run here measured of its fixed costs (absent in files from older versions of calibrate): seconds
   * from its start to its first measured cell without image builds, and its teardown.
   */
  setupSeconds?: number;
  teardownSeconds?: number;
  /** What the last run here measured for one change of server instance, per server (restore, start, prewarm). */
  restartSecondsPerServer?: number;
  /**
   * The data those costs were measured with (absent in older files): rows per server and the
   * storage kind. Set-up and restarts grow with the data ({@link sameCostShape}), so a plan reuses them only for a
   * scenario of the same shape.
   */
  costShape?: CostShape;
  /**
   * Pair sd against cell length (absent in older files): A/A pairs within one instance at each length
   * `calibrate --lengths` ran, sorted by length. The budget design (src/core/plan/design/) reads it when present.
   */
  cellLengthCurve?: CellLengthPoint[];
  /**
   * How unequal the cells of the last runs here were (absent in older files): per run (the newest
   * {@link CELL_SPREAD_RUNS}), each cell's variance of its undisturbed log pair ratios and its df. The forecast's prior
   * df of the cells' pair sds is fitted from them ({@link cellPriorDf}).
   */
  cellSpread?: CellSpreadRun[];
}

/** Rows per server (tables × tableSize) and storage kind of the run whose costs a calibration keeps. */
export interface CostShape {
  rows: number;
  storage: string;
}

/** One run's cells in {@link Calibration.cellSpread}. */
export interface CellSpreadRun {
  at: string;
  cells: CellVarianceObs[];
  /** The run's data (absent in older files): cells on other data are unequal in other ways. */
  shape?: CostShape;
  /** The run's cell length, seconds (absent in older files and for runs of events): {@link cellNoiseModel} needs it. */
  cellSeconds?: number;
}

/** Runs kept in {@link Calibration.cellSpread}: the host's recent state, not its history. */
export const CELL_SPREAD_RUNS = 10;

/** One point of the pair-sd-against-cell-length curve: A/A pairs at one cell length. */
export interface CellLengthPoint {
  cellSeconds: number;
  pairSdPct: number;
  pairDf: number;
}

/**
 * One cell's variance in {@link Calibration.cellSpread}, with the cell's name ("test@threads"; absent in
 * older files). Not a forecast from each cell's own earlier variance alone: tried here, it failed because most
 * cells' noise did not carry over from one run to the next. {@link cellNoiseModel} uses the names with shrinkage:
 * what carries over (a cell that stalls in every run) is kept, the rest is spread between runs.
 */
export type CellVarianceObs = VarianceObs & { cell?: string };

/** Is `v` a usable cellSpread (what the calibration store accepts for the optional field)? */
export function isCellSpread(v: unknown): v is CellSpreadRun[] {
  return (
    Array.isArray(v) &&
    v.every(
      (r) =>
        r &&
        typeof r === "object" &&
        typeof r.at === "string" &&
        Array.isArray(r.cells) &&
        r.cells.every(
          (c: unknown) =>
            c &&
            typeof c === "object" &&
            [(c as VarianceObs).s2, (c as VarianceObs).df].every(
              (x) => typeof x === "number" && Number.isFinite(x) && x >= 0,
            ),
        ),
    )
  );
}

/** Is `v` a usable curve (what the calibration store accepts for the optional field)? */
export function isCellLengthCurve(v: unknown): v is CellLengthPoint[] {
  return (
    Array.isArray(v) &&
    v.every(
      (p) =>
        p &&
        typeof p === "object" &&
        [p.cellSeconds, p.pairSdPct, p.pairDf].every((x) => typeof x === "number" && Number.isFinite(x)) &&
        p.cellSeconds > 0 &&
        p.pairSdPct > 0,
    )
  );
}
