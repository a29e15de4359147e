/**
 * The typed event stream of a run. The app layer emits these; every front end (Ink TUI, plain lines,
 * --json-events NDJSON) consumes only these.
 */
import type { Cell, CellRecord, Forecast, MustMatchRow, ServerManifest } from "./results.ts";
import type { IntervalSample } from "./sysbench/result.ts";

/** The stages of a run, as `phase` events name them. */
export type Phase = "images" | "storage" | "start" | "prepare" | "prewarm" | "warmup" | "measure" | "snapshot" | "restore" | "teardown";

/** The typed event stream of a run; `type` is the discriminant. Every front end (TUI, plain lines, NDJSON) consumes only these. */
export type RunEvent =
  | { type: "plan-ready"; at: string; runId: string; dir: string; scenario: string; cells: Cell[]; estimateSeconds: number; servers: Array<{ id: string; image: string }>; storage: string; transport: string; /** The run's pairs (scenario/pairs.ts comparisonPairs); more than one: the TUI shows the ladder. */ pairs?: Array<{ numerator: string; denominator: string }> }
  | { type: "image-progress"; at: string; image: string; step: string; line?: string }
  | { type: "image-ready"; at: string; image: string; tag: string; cacheHit: boolean }
  | { type: "server-starting"; at: string; server: string; image: string }
  | { type: "server-ready"; at: string; server: string; version: string; seconds: number }
  | { type: "server-failed"; at: string; server: string; message: string; logTail: string[] }
  | { type: "server-restarted"; at: string; server: string; reason: string }
  | { type: "config-identity"; at: string; rows: MustMatchRow[]; differences: number; servers: ServerManifest[] }
  | { type: "phase"; at: string; phase: Phase; server?: string; test?: string; threads?: number; detail?: string }
  | { type: "cell-started"; at: string; cell: Cell; phase: "warmup" | "measure"; seconds: number | null }
  | { type: "interval"; at: string; cell: Cell; phase: "warmup" | "measure"; sample: IntervalSample }
  | { type: "cell-finished"; at: string; cell: Cell; record: CellRecord }
  | { type: "cell-failed"; at: string; cell: Cell; record: CellRecord; /** The next attempt, when the cell is retried (`--retries`). */ retry?: number }
  | { type: "round-finished"; at: string; round: number; instance: number; cells: RoundCell[]; /** The forecast's seconds left (never more than the budget left). */ etaSeconds: number | null; budgetLeftSeconds: number | null }
  /** An adaptive run's forecast (src/core/plan/forecast.ts): before the run, and after every round; null with the reason in `note`. */
  | { type: "forecast"; at: string; forecast: Forecast | null; note?: string }
  /** The run's pairs were folded into the host's calibration (`made`: it had none). */
  | { type: "calibration-updated"; at: string; file: string; made: boolean; pairs: number; pairSdPct: number; pairDf: number; instanceSdPct: number | null }
  | { type: "warning"; at: string; message: string }
  | { type: "cancelling"; at: string; reason: string }
  | { type: "run-finished"; at: string; status: "ok" | "partial" | "failed" | "cancelled"; dir: string; exitCode: 0 | 1 | 2 | 130; cellsOk: number; cellsFailed: number; message?: string };

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
}

/** The `type` of a {@link RunEvent}. */
export type RunEventType = RunEvent["type"];
/** A consumer of run events (`RunOptions.onEvent`). */
export type EventSink = (e: RunEvent) => void;
