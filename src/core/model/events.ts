/**
 * The typed event stream of a run. The app layer emits these; every front end (Ink TUI, plain lines,
 * --json-events NDJSON) consumes only these.
 */
import type { Cell, CellRecord, Forecast, MustMatchRow, ServerManifest } from "./results.ts";
import type { IntervalSample } from "./sysbench/result.ts";

/** The stages of a run, as `phase` events name them. */
export type Phase =
  "images" | "storage" | "start" | "prepare" | "prewarm" | "warmup" | "measure" | "snapshot" | "restore" | "teardown";

/** How often a long step says it is still running (a `progress` event): well inside the 10 s a plain log may stay silent. */
export const PROGRESS_EVERY_SECONDS = 5;

/** The typed event stream of a run; `type` is the discriminant. Every front end (TUI, plain lines, NDJSON) consumes only these. */
export type RunEvent =
  | {
      type: "plan-ready";
      at: string;
      runId: string;
      dir: string;
      scenario: string;
      cells: Cell[];
      estimateSeconds: number;
      servers: Array<{ id: string; image: string }>;
      storage: string;
      transport: string;
      /** A ladder's compared pairs (comparisonPairs), first the primary one; absent with one pair. */ pairs?: Array<{
        numerator: string;
        denominator: string;
      }>;
      /** The run's equivalence margin in percent (the scenario's report.margin, else 5); absent in older recordings: 5. */ marginPct?: number;
    }
  | { type: "image-progress"; at: string; image: string; step: string; line?: string }
  | { type: "image-ready"; at: string; image: string; tag: string; cacheHit: boolean }
  /**
   * A long step still running (an image build, a server's start, prepare, snapshot, restore): emitted every
   * {@link PROGRESS_EVERY_SECONDS} while it runs, so plain output is never silent for long. `subject` is the image or
   * the server; `detail` the step's latest output line, if it has one.
   */
  | { type: "progress"; at: string; phase: Phase; subject: string; seconds: number; detail?: string }
  | { type: "server-starting"; at: string; server: string; image: string }
  | { type: "server-ready"; at: string; server: string; version: string; seconds: number }
  | { type: "server-failed"; at: string; server: string; message: string; logTail: string[] }
  | { type: "server-restarted"; at: string; server: string; reason: string }
  | { type: "config-identity"; at: string; rows: MustMatchRow[]; differences: number; servers: ServerManifest[] }
  | { type: "phase"; at: string; phase: Phase; server?: string; test?: string; threads?: number; detail?: string }
  | { type: "cell-started"; at: string; cell: Cell; phase: "warmup" | "measure"; seconds: number | null }
  | { type: "interval"; at: string; cell: Cell; phase: "warmup" | "measure"; sample: IntervalSample }
  | { type: "cell-finished"; at: string; cell: Cell; record: CellRecord }
  | {
      type: "cell-failed";
      at: string;
      cell: Cell;
      record: CellRecord;
      /** The next attempt, when the cell is retried (`--retries`). */ retry?: number;
    }
  | {
      type: "round-finished";
      at: string;
      round: number;
      instance: number;
      cells: RoundCell[];
      /** The forecast's seconds left (never more than the budget left). */ etaSeconds: number | null;
      /** True when no forecast exists yet (no pairs): etaSeconds is then the minimum rounds' time, a lower bound. */ etaMinimum?: boolean;
      budgetLeftSeconds: number | null;
      /** The run's equivalence margin and precision target, in percent (absent in older recordings: margin 5, no target). */ marginPct?: number;
      precisionPct?: number;
    }
  /** An adaptive run's forecast (src/core/plan/forecast.ts): before the run, and after every round; null with the reason in `note`. */
  | { type: "forecast"; at: string; forecast: Forecast | null; note?: string }
  /** The run's pairs were folded into the host's calibration (`made`: it had none). */
  | {
      type: "calibration-updated";
      at: string;
      file: string;
      made: boolean;
      pairs: number;
      pairSdPct: number;
      pairDf: number;
      instanceSdPct: number | null;
    }
  /**
   * Where a second run on this host lands, from the host's history, and which runs the verdicts speak for: the
   * report's own sentences (src/core/report/history.ts), for front ends that show them at the end.
   */
  | { type: "second-run"; at: string; lines: string[] }
  | { type: "warning"; at: string; message: string }
  | { type: "cancelling"; at: string; reason: string }
  | {
      type: "run-finished";
      at: string;
      status: "ok" | "partial" | "failed" | "cancelled";
      dir: string;
      exitCode: 0 | 1 | 2 | 130;
      cellsOk: number;
      cellsFailed: number;
      message?: string;
    };

/**
 * One cell (test × threads) of an adaptive run after a round: its pairs so far, the estimate and interval, the
 * half-width reached ({@link halfWidthPct}) and whether it needs more rounds.
 */
export interface RoundCell {
  test: string;
  threads: number;
  n: number;
  estimate: number | null;
  low: number | null;
  high: number | null;
  halfWidthPct: number | null;
  /** Why the cell gets no more rounds: precision reached, max repeats, or the budget ran out; absent: still open. */
  done?: "precision" | "max" | "budget";
  /**
   * A ladder (more than one compared pair, src/core/model/scenario/pairs.ts): every pair's reading of this cell, in pair
   * order. The cell's own fields are then its widest pair's (the one the stop rule waits for). Absent with one pair.
   */
  pairs?: PairReading[];
}

/** One compared pair's reading of an adaptive cell (a ladder's {@link RoundCell.pairs}). */
export interface PairReading {
  numerator: string;
  denominator: string;
  n: number;
  estimate: number | null;
  low: number | null;
  high: number | null;
  halfWidthPct: number | null;
  /** The half-width the stop rule reads for this pair (estimateRun's sequential stages: the width it prints), null until it has one. */
  stopHalfWidthPct: number | null;
}

/** The `type` of a {@link RunEvent}. */
export type RunEventType = RunEvent["type"];
/** A consumer of run events (`RunOptions.onEvent`). */
export type EventSink = (e: RunEvent) => void;
