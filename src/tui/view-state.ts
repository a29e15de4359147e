/**
 * What the run screen shows, as data: the servers, the current step and cell, the live samples, failures, the log,
 * the live ratio tables, an adaptive run's rounds, progress and the UI's own state. The reducer (state.ts) builds it.
 */
import type { Phase, RoundCell } from "../core/model/events.ts";
import type { Forecast } from "../core/model/results.ts";
import type { Cell, CellRecord } from "../core/model/results.ts";
import type { IntervalSample } from "../core/model/sysbench/result.ts";
import type { LadderPair } from "../core/stats/ladder.ts";
import type { Forest } from "../core/report/forest.ts";
import type { SideNames } from "../core/report/answer.ts";

/** How much history the sparklines keep, in seconds of sysbench time. */
export const SPARK_WINDOW_SECONDS = 60;
/** Lines kept in the scrolling log (finished cells, failures, warnings). */
export const LOG_LIMIT = 5000;

export interface ServerView {
  id: string;
  image: string;
  status: "pending" | "starting" | "ready" | "failed";
  version?: string;
  /** `mariadb`, `mysql` (the config-identity event's servers): the final screen names the server by it. */
  family?: string;
  readySeconds?: number;
}

export interface StepView {
  phase: Phase;
  server?: string;
  test?: string;
  threads?: number;
  detail?: string;
  /** During image builds: the image, its current step and its latest output line. */
  image?: string;
  imageStep?: string;
  imageLine?: string;
  /** Seconds the step has run, from its latest `progress` event. */
  seconds?: number;
  /** Images ready so far / images seen. */
  imagesReady?: number;
  imagesSeen?: number;
  at: string;
}

export interface CurrentCell {
  cell: Cell;
  phase: "warmup" | "measure";
  seconds: number | null;
  startedAt: string;
}

export interface LiveView {
  cellKey: string;
  phase: "warmup" | "measure";
  /** Interval samples of the last SPARK_WINDOW_SECONDS, oldest first. */
  samples: IntervalSample[];
}

export interface FailureView {
  kind: "cell" | "skipped" | "server";
  key: string;
  title: string;
  /** sysbench's own message (its FATAL line) when there is one, else the error. */
  message: string;
  lines?: string[];
}

export interface LogLine {
  id: number;
  kind: "ok" | "failed" | "skipped" | "server" | "warning" | "info";
  text: string;
}

export interface TableCellView {
  threads: number;
  /** e.g. "103.72" with its verdict word beside it, or null when the cell has no value yet. */
  ratio: number | null;
  /** The verdict word in its narrow form (src/core/model/vocabulary.ts: faster, slower, same, unclear, load-bound);
   *  empty unless status is "ok". */
  word: string;
  status: "ok" | "failed" | "skipped" | "missing" | "running";
}

export interface TableView {
  numerator: string;
  denominator: string;
  /** The two sides as the report's title names them (`MariaDB 11.8`, `MySQL 9.7`; the ids until the servers said
   *  their family and version). The legend and the final screen use them; absent: the ids. */
  names?: SideNames;
  threads: number[];
  rows: Array<{ test: string; cells: TableCellView[] }>;
  /** The equivalence margin the words were decided with (the legend names it). */
  marginPct: number;
  /** The forest plot of the same cells (src/core/report/forest.ts), drawn under the table when there is room. */
  forest?: Forest;
  /** The answer in the report's words (src/core/report/first-screen.ts answerBlock): the final screen shows it. */
  answer?: string[];
}

export interface FinishedView {
  status: "ok" | "partial" | "failed" | "cancelled";
  dir: string;
  reportHtml: string;
  exitCode: 0 | 1 | 2 | 130;
  cellsOk: number;
  cellsFailed: number;
  message?: string;
}

export interface UiState {
  /** Times the user asked to cancel (q / Ctrl-C). */
  cancelRequests: number;
  /** Index into `finishedKeys`, or null: none selected (the latest is shown when details open). */
  selected: number | null;
  details: boolean;
}

export interface ViewState {
  runId?: string;
  dir?: string;
  scenario?: string;
  startedAt?: string;
  /** The latest time known (the latest event's `at`, or a tick). */
  now?: string;
  estimateSeconds: number;
  cells: Cell[];
  servers: ServerView[];
  storage?: string;
  transport?: string;
  /** The run's equivalence margin in percent (plan-ready; absent: the default 5%). */
  marginPct?: number;
  identity?: { differences: number; variables: number; names: string[] };
  step?: StepView;
  current?: CurrentCell;
  live?: LiveView;
  /** Latest record per measured cell key. */
  records: Record<string, CellRecord>;
  /** Keys of finished cells in the order they finished (each key once, at its latest position). */
  finishedKeys: string[];
  firstCellAt?: string;
  failures: FailureView[];
  log: LogLine[];
  table: TableView | null;
  /** The run's pairs (plan-ready): the live table shows the first (absent: the first two servers); with more than one,
   *  `ladder` holds one table per pair. */
  pairs?: LadderPair[];
  /** A ladder run: one table per pair against the base, words from q over every pair × cell (core: liveLadder). Empty otherwise. */
  ladder: TableView[];
  cancelling?: { at: string; reason: string };
  finished?: FinishedView;
  ui: UiState;
  /** Adaptive runs: the latest round and each cell's interval narrowing. */
  adaptive?: AdaptiveView;
  /** Where a second run on this host lands, and which runs the verdicts speak for (the report's sentences). */
  secondRun?: string[];
  /** Adaptive runs: the latest forecast (the one model of src/core/plan/forecast.ts), or why there is none yet. */
  forecast?: { forecast: Forecast | null; note?: string; at: string };
  /** Derived on every update. */
  progress: Progress;
}

/** One cell of an adaptive run on the screen: its latest interval and its half-width after each round. */
export interface AdaptiveCellView extends RoundCell {
  /** Half-width (%) after each round it took part in, oldest first (null: no interval yet). */
  widths: Array<number | null>;
  /** The verdict word of its latest interval (vocabulary.ts, at the run's margin, as the plain round lines). */
  word: string;
  /** Why it stopped (stopReasonWords: "stopped wider than the target" when its printed interval is wider than the
   *  target), or "open". */
  reason: string;
}

/** An adaptive run's state after its latest round. */
export interface AdaptiveView {
  round: number;
  instance: number;
  etaSeconds: number | null;
  /** No forecast yet (no pairs): etaSeconds is the minimum rounds' time, a lower bound. */
  etaMinimum: boolean;
  budgetLeftSeconds: number | null;
  /** When the round finished: the ETA counts from here. */
  at: string;
  cells: AdaptiveCellView[];
}

export interface Progress {
  done: number;
  total: number;
  failed: number;
  skipped: number;
  elapsedSeconds: number;
  /** Null until there is an estimate to base it on. */
  etaSeconds: number | null;
  /** etaSeconds is a lower bound (an adaptive run's minimum rounds, before any forecast), shown as "ETA ≥ …". */
  etaMinimum: boolean;
  /** False when `total` is a forecast (adaptive runs: the cells the run will likely measure), shown as "~N"; 0: not known yet. */
  totalKnown: boolean;
  /** The forecast says the budget stops the run first: `etaSeconds` is then the time until it does. */
  budgetStops: boolean;
  /** Adaptive runs: "cells likely to reach ±10%: 4 of 6", once there is a forecast. */
  likely: string | null;
}

export type UiAction =
  | { type: "tick"; at: string }
  | { type: "cancel-requested" }
  | { type: "select"; delta: number }
  | { type: "toggle-details" };
