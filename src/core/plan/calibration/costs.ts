/**
 * What a calibration keeps of a run's costs (pure): the data they were measured on, whether a plan may reuse them,
 * and the seconds per pair, set-up, teardown and restart a run folds in.
 */
import type { Calibration, CostShape } from "./schema.ts";
import type { Scenario } from "../../model/scenario/schema.ts";

/** A scenario's cost shape: its rows per server and its first server's storage kind. */
export function costShapeOf(s: Pick<Scenario, "workload" | "storage" | "servers">): CostShape {
  return { rows: s.workload.tables * s.workload.tableSize, storage: (s.servers[0]?.storage ?? s.storage).kind };
}

/**
 * Can a plan of `want` reuse costs measured at `had`? The same storage kind and rows within a factor of 2 (a quick
 * run's 10 k rows restart in about 3 s a server; a 2 M-row table on RAID 0 took 11–22 s on this project's VM). A calibration
 * without a shape (written before it was kept) is reused only for small data (at most 100 k rows), as those costs
 * came from the default scenario.
 */
export function sameCostShape(had: CostShape | undefined, want: CostShape): boolean {
  if (!had) return want.rows <= 100_000;
  return had.storage === want.storage && want.rows <= 2 * had.rows && had.rows <= 2 * want.rows;
}

/** What a run measured of its own costs, to keep beside its noise (see {@link Calibration} setupSeconds). */
export interface RunCosts {
  /** Gross seconds per measured cell (sysbench start-up included) at `cellSeconds`. */
  grossCellSeconds?: number | null;
  cellSeconds: number;
  servers: number;
  setupSeconds?: number;
  teardownSeconds?: number;
  /** Median seconds of one change of server instance (every server), when the run changed instances. */
  restartSeconds?: number | null;
  /** The data the run's costs were measured with. */
  shape?: CostShape;
}

/**
 * Wall seconds of one pair at `atCellSeconds` from a run's gross seconds per measured cell (grossCellSeconds in
 * src/core/plan/run-costs.ts) at its own cell length: both cells, each with the run's per-cell overhead (sysbench's
 * start-up, its re-runs). Runs and calibrate store it so; the plan reads secondsPerPair / 2 − cellSeconds back.
 */
export function pairSecondsAt(atCellSeconds: number, grossCellSeconds: number, cellSeconds: number): number {
  return 2 * (atCellSeconds + Math.max(0, grossCellSeconds - cellSeconds));
}

/** Runs whose seconds per pair the stored figure averages: the host's recent pace, not one run's re-runs. */
export const PAIR_COST_RUNS = 5;

/** The calibration fields a run's measured costs set (and, on data of another shape, clear). */
export function costsOf(
  c: RunCosts | undefined,
  calCellSeconds: number,
  prev?: Pick<Calibration, "secondsPerPair" | "updates" | "costShape">,
): Partial<Calibration> {
  if (!c) return {};
  const out: Partial<Calibration> = {};
  // A run on data of another shape: the stored set-up, teardown and restart were that other data's, so none of them
  // stays beside this run's (JSON drops the undefined keys).
  if (c.shape && prev && (prev.costShape?.rows !== c.shape.rows || prev.costShape?.storage !== c.shape.storage))
    Object.assign(out, {
      setupSeconds: undefined,
      teardownSeconds: undefined,
      restartSecondsPerServer: undefined,
      costShape: undefined,
    });
  // Seconds per pair at the calibration's cell length: the run's per-cell overhead is what carries over. The run's
  // figure holds its re-runs (attempts per kept cell), so one disturbed run would set the next run's cost alone
  // (3.6% dear after a run with re-runs, as measured here): the stored figure is a running mean over the last
  // PAIR_COST_RUNS runs.
  if (c.grossCellSeconds && c.grossCellSeconds > 0 && c.servers === 2) {
    const run = pairSecondsAt(calCellSeconds, c.grossCellSeconds, c.cellSeconds);
    const weight = 1 / Math.min(PAIR_COST_RUNS, Math.max(1, (prev?.updates ?? 0) + 1));
    out.secondsPerPair =
      prev?.secondsPerPair && prev.secondsPerPair > 0
        ? prev.secondsPerPair + weight * (run - prev.secondsPerPair)
        : run;
  }
  if (c.setupSeconds !== undefined && c.setupSeconds > 0) out.setupSeconds = c.setupSeconds;
  if (c.teardownSeconds !== undefined && c.teardownSeconds > 0) out.teardownSeconds = c.teardownSeconds;
  if (c.restartSeconds != null && c.restartSeconds > 0 && c.servers > 0)
    out.restartSecondsPerServer = c.restartSeconds / c.servers;
  if (
    c.shape &&
    (out.setupSeconds !== undefined || out.teardownSeconds !== undefined || out.restartSecondsPerServer !== undefined)
  )
    out.costShape = c.shape;
  return out;
}
