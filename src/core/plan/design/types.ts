/**
 * What the budget design starts from and what it gives (types): its input, a candidate layout and the design.
 */
import type { Scenario } from "../../model/scenario/schema.ts";
import type { Calibration } from "../calibration/schema.ts";
import type { SetupCosts } from "../../model/setup-costs.ts";
import type { PairSdAtLength } from "./noise.ts";
import type { CellPriorDf } from "../calibration/cell-model.ts";
import type { EstimateItem } from "../estimate.ts";
import type { AdaptiveSimResult } from "../../stats/simulate-model.ts";

/** What the design starts from. */
export interface DesignInput {
  scenario: Scenario;
  budgetSeconds: number;
  calibration: Calibration | null;
  setupCosts?: Partial<SetupCosts>;
  /** `--precision`: an adaptive design (one host) that stops cells at the target and spends the rest on the others. */
  precisionPct?: number;
  /** Hosts to shard over (default: the scenario's hosts, else 1). */
  hosts?: number;
  /** Simulated runs for the ranges (default 200) and the cell lengths considered (default CELL_LENGTHS). */
  runs?: number;
  lengths?: readonly number[];
}

/** One candidate layout. */
export interface DesignCandidate {
  cellSeconds: number;
  warmupSeconds: number;
  /** Rounds (pairs per cell), instances, and rounds per instance. */
  rounds: number;
  instances: number;
  roundsPerInstance: number;
  pairSdPct: number;
  /** Expected half-width (%, the closed formula) and the plan's wall seconds. */
  halfWidthPct: number;
  seconds: number;
}

/** The design. */
export interface Design {
  budgetSeconds: number;
  hosts: number;
  mode: "fixed" | "adaptive";
  precisionPct: number | null;
  source: "calibration" | "assumed";
  noise: {
    source: PairSdAtLength["source"];
    note: string;
    instanceSdPct: number;
    instanceNote: string | null;
    cellPriorDf: number;
    cellPrior: CellPriorDf;
  };
  chosen: DesignCandidate;
  /** The best candidate of every cell length (what the choice was between). */
  byLength: DesignCandidate[];
  /** The test order, and the restores it saves against the read tests first. */
  tests: string[];
  restores: number;
  restoresSaved: number;
  /** The designed scenario (what `run --design` runs) and its overrides as --set values. */
  scenario: Scenario;
  overrides: string[];
  /** The plan's time per phase of the designed scenario (the longest host's with several). */
  phases: EstimateItem[];
  plannedSeconds: number;
  /** The shipped estimator and stop rule simulated at this design (one host): time, widths, coverage. */
  simulated: AdaptiveSimResult;
  /**
   * Each cell's forecast when the calibration recorded earlier runs of these cells on this data (cellNoiseModel):
   * its simulated half-width (median, 80% range) and its pair sds in those runs; null: one shared range.
   */
  cellForecast: Array<{
    cell: string;
    halfWidthPct: { median: number; low: number; high: number } | null;
    runs: number;
    pastSdPct: number[];
  }> | null;
  /** The cell model's runs and its two levels (sd of ln pair sd between cells, and between runs of a cell), when used. */
  cellModel: { runs: number; cellSeconds: number; betweenCellsLogSd: number; betweenRunsLogSd: number } | null;
  cells: number;
  /** Cells expected within ±DEFAULT_MARGIN_PCT (simulated share × cells), and why the others cannot be. */
  cellsWithinMargin: number;
  cannot: string[];
  /** Time of this design on 1, 2 and 4 hosts (sharded), and what the budget buys there. */
  hostsForecast: Array<{ hosts: number; seconds: number; rounds: number; halfWidthPct: number }>;
}
