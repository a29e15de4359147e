/**
 * The run screen's view state: a pure reducer from the run's event stream (and a few UI actions) to what the
 * screen shows. No Ink, no I/O, no clock: time comes from the events' `at` (and from `tick` actions).
 */
import type { Phase, RoundCell, RunEvent } from "../core/model/events.ts";
import { roundLine, stopReasonWords } from "../core/plan/adaptive.ts";
import type { Forecast } from "../core/model/results.ts";
import { calibrationUpdatedLine, forecastLine } from "../core/report/forecast.ts";
import type { Cell, CellRecord } from "../core/model/results.ts";
import type { IntervalSample } from "../core/model/sysbench/result.ts";
import { ratioTableFromSides, type RatioTable } from "../core/stats/ratio.ts";
import { liveLadder, type LadderPair } from "../core/stats/ladder.ts";
import { forestOf, type Forest } from "../core/report/forest.ts";
import { verdictMark } from "../core/model/vocabulary.ts";
import { verdictOf } from "../core/model/verdict.ts";
import { DEFAULT_MARGIN_PCT } from "../core/model/scenario/schema.ts";

/** How much history the sparklines keep, in seconds of sysbench time. */
export const SPARK_WINDOW_SECONDS = 60;
/** Lines kept in the scrolling log (finished cells, failures, warnings). */
const LOG_LIMIT = 5000;

export interface ServerView {
  id: string;
  image: string;
  status: "pending" | "starting" | "ready" | "failed";
  version?: string;
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
  /** e.g. "103.72" with its verdict mark beside it, or null when the cell has no value yet. */
  ratio: number | null;
  /** The verdict mark (src/core/model/vocabulary.ts), with the false-discovery flag; empty unless status is "ok". */
  mark: string;
  status: "ok" | "failed" | "skipped" | "missing" | "running";
}

export interface TableView {
  numerator: string;
  denominator: string;
  threads: number[];
  rows: Array<{ test: string; cells: TableCellView[] }>;
  /** The equivalence margin the marks were decided with (the legend names it). */
  marginPct: number;
  /** The forest plot of the same cells (src/core/report/forest.ts), drawn under the table when there is room. */
  forest?: Forest;
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
  /** A ladder run: one table per pair against the base, marks from q over every pair × cell (core: liveLadder). Empty otherwise. */
  ladder: TableView[];
  cancelling?: { at: string; reason: string };
  finished?: FinishedView;
  ui: UiState;
  /** Adaptive runs: the latest round and each cell's interval narrowing. */
  adaptive?: AdaptiveView;
  /** Adaptive runs: the latest forecast (the one model of src/core/plan/forecast.ts), or why there is none yet. */
  forecast?: { forecast: Forecast | null; note?: string; at: string };
  /** Derived on every update. */
  progress: Progress;
}

/** One cell of an adaptive run on the screen: its latest interval and its half-width after each round. */
export interface AdaptiveCellView extends RoundCell {
  /** Half-width (%) after each round it took part in, oldest first (null: no interval yet). */
  widths: Array<number | null>;
  /** The verdict mark of its latest interval (vocabulary.ts, at the run's margin, as the plain round lines). */
  mark: string;
  /** Why it stopped (stopReasonWords: "stopped on the stop half" when its printed interval is wider than the
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

function adaptiveView(
  prev: AdaptiveView | undefined,
  e: Extract<RunEvent, { type: "round-finished" }>,
  runMargin: number | undefined,
): AdaptiveView {
  const margin = e.marginPct ?? runMargin ?? DEFAULT_MARGIN_PCT;
  const cells = e.cells.map((c): AdaptiveCellView => {
    const old = prev?.cells.find((x) => x.test === c.test && x.threads === c.threads);
    // A cell that stopped earlier keeps its history: only cells that ran this round add a width.
    const widths = old && old.n === c.n && old.done ? old.widths : [...(old?.widths ?? []), c.halfWidthPct];
    return {
      ...c,
      widths,
      mark: verdictMark({ verdict: verdictOf(c.low, c.high, margin) }),
      reason: stopReasonWords(c, e.precisionPct),
    };
  });
  return {
    round: e.round,
    instance: e.instance,
    etaSeconds: e.etaSeconds,
    etaMinimum: e.etaMinimum === true,
    budgetLeftSeconds: e.budgetLeftSeconds,
    at: e.at,
    cells,
  };
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

export function initialState(): ViewState {
  return {
    estimateSeconds: 0,
    cells: [],
    servers: [],
    records: {},
    finishedKeys: [],
    failures: [],
    log: [],
    table: null,
    ladder: [],
    ui: { cancelRequests: 0, selected: null, details: false },
    progress: {
      done: 0,
      total: 0,
      failed: 0,
      skipped: 0,
      elapsedSeconds: 0,
      etaSeconds: null,
      etaMinimum: false,
      totalKnown: true,
      budgetStops: false,
      likely: null,
    },
  };
}

const seconds = (from: string | undefined, to: string | undefined): number => {
  if (!from || !to) return 0;
  const d = (Date.parse(to) - Date.parse(from)) / 1000;
  return Number.isFinite(d) && d > 0 ? d : 0;
};

const later = (a: string | undefined, b: string): string => (a === undefined || Date.parse(b) >= Date.parse(a) ? b : a);

/** The event → view state reducer. */
export function reduce(state: ViewState, e: RunEvent): ViewState {
  return derive(apply({ ...state, now: later(state.now, e.at) }, e));
}

/** UI actions: clock ticks, cancel requests, selection and details. */
export function reduceUi(state: ViewState, a: UiAction): ViewState {
  switch (a.type) {
    case "tick":
      return state.finished ? state : derive({ ...state, now: later(state.now, a.at) });
    case "cancel-requested":
      return { ...state, ui: { ...state.ui, cancelRequests: state.ui.cancelRequests + 1 } };
    case "select": {
      const n = state.finishedKeys.length;
      if (n === 0) return state;
      const from = state.ui.selected ?? n - 1;
      const selected = Math.min(n - 1, Math.max(0, from + a.delta));
      return { ...state, ui: { ...state.ui, selected } };
    }
    case "toggle-details":
      return { ...state, ui: { ...state.ui, details: !state.ui.details } };
  }
}

/** The finished cell the details panel shows: the selected one, else the latest. */
export function selectedRecord(state: ViewState): { index: number; record: CellRecord } | null {
  const n = state.finishedKeys.length;
  if (n === 0) return null;
  const index = state.ui.selected ?? n - 1;
  const record = state.records[state.finishedKeys[index]];
  return record ? { index, record } : null;
}

function addLog(state: ViewState, kind: LogLine["kind"], text: string): LogLine[] {
  const id = (state.log.at(-1)?.id ?? 0) + 1;
  const log = [...state.log, { id, kind, text }];
  return log.length > LOG_LIMIT ? log.slice(log.length - LOG_LIMIT) : log;
}

const fmtNum = (n: number | null | undefined, d = 2) => (n === null || n === undefined ? "-" : n.toFixed(d));

/** A cell record's one-line summary: the figures it measured or why it has none. */
export function recordLine(r: CellRecord): string {
  const who = `${r.server} ${r.test} t=${r.threads} r=${r.repeat}`;
  if (r.status !== "ok") return `${r.status === "skipped" ? "skipped" : "FAILED"} ${who}: ${failureMessage(r)}`;
  const m = r.metrics;
  const p = m?.latencyMs.percentile;
  return `ok ${who}: qps ${fmtNum(m?.qps)} tps ${fmtNum(m?.tps)} ${p ? `p${p}` : "lat"} ${fmtNum(p ? m?.latencyMs.percentileValue : m?.latencyMs.avg)} ms`;
}

/** sysbench's FATAL message when it printed one, else the engine's error. */
export function failureMessage(r: CellRecord): string {
  const fatal = r.metrics?.fatal?.filter((f) => f.trim() !== "") ?? [];
  if (fatal.length > 0) return fatal.join("; ");
  return r.error ?? (r.status === "skipped" ? "skipped by the user" : "unknown error");
}

function apply(s: ViewState, e: RunEvent): ViewState {
  switch (e.type) {
    case "round-finished":
      return { ...s, adaptive: adaptiveView(s.adaptive, e, s.marginPct), log: addLog(s, "info", roundLine(e)) };
    case "forecast":
      return {
        ...s,
        forecast: { forecast: e.forecast, note: e.note, at: e.at },
        log: addLog(s, "info", e.forecast ? forecastLine(e.forecast) : `forecast: ${e.note ?? "none"}`),
      };
    case "calibration-updated":
      return { ...s, log: addLog(s, "info", calibrationUpdatedLine(e)) };
    case "plan-ready":
      return {
        ...s,
        runId: e.runId,
        dir: e.dir,
        scenario: e.scenario,
        startedAt: s.startedAt ?? e.at,
        estimateSeconds: e.estimateSeconds,
        cells: e.cells,
        servers: e.servers.map((sv) => ({ id: sv.id, image: sv.image, status: "pending" })),
        storage: e.storage,
        transport: e.transport,
        ...(e.pairs ? { pairs: e.pairs } : {}),
        ...(e.marginPct !== undefined ? { marginPct: e.marginPct } : {}),
      };
    case "image-progress": {
      const prev = s.step?.phase === "images" ? s.step : undefined;
      return {
        ...s,
        step: {
          ...prev,
          phase: "images",
          image: e.image,
          imageStep: e.step,
          imageLine: e.line ?? (prev?.image === e.image ? prev.imageLine : undefined),
          seconds: prev?.image === e.image ? prev.seconds : undefined,
          at: e.at,
        },
      };
    }
    case "progress": {
      if (!s.step || s.step.phase !== e.phase) return s;
      if ((e.phase === "images" ? s.step.image : s.step.server) !== e.subject) return s;
      return { ...s, step: { ...s.step, seconds: e.seconds } };
    }
    case "image-ready": {
      const prev = s.step?.phase === "images" ? s.step : { phase: "images" as const, at: e.at };
      return {
        ...s,
        step: {
          ...prev,
          image: e.image,
          imageStep: e.cacheHit ? "ready (cached)" : "ready",
          imageLine: undefined,
          imagesReady: (prev.imagesReady ?? 0) + 1,
          at: e.at,
        },
        log: addLog(s, "info", `image ${e.image} ready: ${e.tag}${e.cacheHit ? " (cached)" : ""}`),
      };
    }
    case "server-starting":
      return { ...s, servers: upsertServer(s.servers, e.server, { status: "starting", image: e.image }) };
    case "server-ready":
      return {
        ...s,
        servers: upsertServer(s.servers, e.server, { status: "ready", version: e.version, readySeconds: e.seconds }),
        log: addLog(s, "server", `server ${e.server} ready in ${e.seconds.toFixed(1)} s: ${e.version}`),
      };
    case "server-failed":
      return {
        ...s,
        servers: upsertServer(s.servers, e.server, { status: "failed" }),
        failures: [
          ...s.failures,
          {
            kind: "server",
            key: `server:${e.server}`,
            title: `server ${e.server}`,
            message: e.message,
            lines: e.logTail.slice(-5),
          },
        ],
        log: addLog(s, "failed", `server ${e.server} FAILED: ${e.message}`),
      };
    case "server-restarted":
      return { ...s, log: addLog(s, "warning", `server ${e.server} restarted: ${e.reason}`) };
    case "config-identity":
      return {
        ...s,
        identity: {
          differences: e.differences,
          variables: e.rows.length,
          names: e.rows.filter((r) => !r.equal && !r.deliberate).map((r) => r.variable),
        },
      };
    case "phase": {
      if (e.phase === "images" && s.step?.phase === "images") return s;
      return {
        ...s,
        step: { phase: e.phase, server: e.server, test: e.test, threads: e.threads, detail: e.detail, at: e.at },
      };
    }
    case "cell-started":
      return {
        ...s,
        current: { cell: e.cell, phase: e.phase, seconds: e.seconds, startedAt: e.at },
        live: { cellKey: e.cell.key, phase: e.phase, samples: [] },
        firstCellAt: s.firstCellAt ?? (e.phase === "measure" ? e.at : undefined),
        step: { phase: e.phase, server: e.cell.server, test: e.cell.test, threads: e.cell.threads, at: e.at },
      };
    case "interval": {
      const same = s.live && s.live.cellKey === e.cell.key && s.live.phase === e.phase;
      const samples = [...(same ? s.live!.samples : []), e.sample];
      const from = e.sample.t - SPARK_WINDOW_SECONDS;
      return { ...s, live: { cellKey: e.cell.key, phase: e.phase, samples: samples.filter((x) => x.t > from) } };
    }
    case "cell-finished":
    case "cell-failed":
      return finishCell(s, e.cell, e.record);
    case "warning":
      return { ...s, log: addLog(s, "warning", `warning: ${e.message}`) };
    case "cancelling":
      return { ...s, cancelling: { at: e.at, reason: e.reason } };
    case "run-finished":
      return {
        ...s,
        current: undefined,
        live: undefined,
        step: undefined,
        dir: e.dir,
        finished: {
          status: e.status,
          dir: e.dir,
          reportHtml: `${e.dir.replace(/\/+$/, "")}/report.html`,
          exitCode: e.exitCode,
          cellsOk: e.cellsOk,
          cellsFailed: e.cellsFailed,
          message: e.message,
        },
      };
  }
}

function upsertServer(list: ServerView[], id: string, patch: Partial<ServerView>): ServerView[] {
  const i = list.findIndex((x) => x.id === id);
  if (i < 0) return [...list, { id, image: patch.image ?? "", status: "pending", ...patch }];
  const out = [...list];
  out[i] = { ...out[i], ...patch };
  return out;
}

function finishCell(s: ViewState, cell: Cell, record: CellRecord): ViewState {
  if (record.phase === "warmup") return s;
  const key = record.key || cell.key;
  const records = { ...s.records, [key]: record };
  const finishedKeys = [...s.finishedKeys.filter((k) => k !== key), key];
  let failures = s.failures.filter((f) => f.key !== key);
  if (record.status !== "ok") {
    failures = [
      ...failures,
      {
        kind: record.status === "skipped" ? "skipped" : "cell",
        key,
        title: `${record.server} ${record.test} t=${record.threads} r=${record.repeat}`,
        message: failureMessage(record),
      },
    ];
  }
  const current = s.current && s.current.cell.key === key ? undefined : s.current;
  const live = current ? s.live : undefined;
  const next: ViewState = {
    ...s,
    records,
    finishedKeys,
    failures,
    current,
    live,
    log: addLog(s, record.status === "ok" ? "ok" : record.status, recordLine(record)),
  };
  return next;
}

/** Recompute what depends on everything else: progress, ETA, the ratio table. */
function derive(s: ViewState): ViewState {
  const total = s.cells.length;
  const recs = s.finishedKeys.map((k) => s.records[k]).filter((r): r is CellRecord => r !== undefined);
  const done = recs.length;
  const failed = recs.filter((r) => r.status === "failed").length;
  const skipped = recs.filter((r) => r.status === "skipped").length;
  const elapsedSeconds = seconds(s.startedAt, s.now);
  let etaSeconds: number | null = null;
  if (s.finished) etaSeconds = 0;
  else if (total > 0 && done >= total) etaSeconds = 0;
  else if (done > 0 && s.firstCellAt && total > 0) {
    // Observed pace of the measured cells (warm-ups and restores included), blended with the plan's estimate.
    const perCell = seconds(s.firstCellAt, s.now) / done;
    const observed = perCell * (total - done);
    const planned = Math.max(0, s.estimateSeconds - elapsedSeconds);
    const w = done / total;
    etaSeconds = w * observed + (1 - w) * planned;
  } else if (s.estimateSeconds > 0) etaSeconds = Math.max(0, s.estimateSeconds - elapsedSeconds);
  let shownTotal = Math.max(total, done);
  let totalKnown = true;
  let budgetStops = false;
  let likely: string | null = null;
  let etaMinimum = false;
  // Adaptive runs: the plan holds only the first round; the count and the ETA are the forecast's (never past the
  // budget), else the latest round's; before either there is none (not the first round's count).
  if (s.forecast || s.adaptive) {
    const f = s.forecast?.forecast;
    totalKnown = false;
    shownTotal = s.finished ? done : 0; // unknown until a forecast says how many cells the run will likely measure
    etaSeconds = s.finished ? 0 : null;
    if (f) {
      shownTotal = Math.max(done, f.measuredCells);
      budgetStops = f.budgetStops;
      likely = `cells likely to reach ±${f.precisionPct}%: ${f.cellsLikely} of ${f.cells}`;
      if (!s.finished) etaSeconds = Math.max(0, f.remainingSeconds - seconds(s.forecast!.at, s.now));
    } else if (s.adaptive && !s.finished && s.adaptive.etaSeconds !== null) {
      etaSeconds = Math.max(0, s.adaptive.etaSeconds - seconds(s.adaptive.at, s.now));
      etaMinimum = s.adaptive.etaMinimum;
    }
  }
  const progress: Progress = {
    done,
    total: shownTotal,
    failed,
    skipped,
    elapsedSeconds,
    etaSeconds,
    etaMinimum,
    totalKnown,
    budgetStops,
    likely,
  };
  return { ...s, progress, table: tableOf(s), ladder: ladderOf(s) };
}

/** The live table's axes (tests and thread counts in plan order) and the finished cells' latest records. */
function liveInputs(s: ViewState): { tests: string[]; threads: number[]; recs: CellRecord[] } {
  const tests: string[] = [];
  const threads: number[] = [];
  for (const c of s.cells) {
    if (!tests.includes(c.test)) tests.push(c.test);
    if (!threads.includes(c.threads)) threads.push(c.threads);
  }
  const recs = s.finishedKeys.map((k) => s.records[k]).filter((r): r is CellRecord => r !== undefined);
  return { tests, threads, recs };
}

function tableOf(s: ViewState): TableView | null {
  if (s.servers.length < 2 || s.cells.length === 0) return null;
  const [num, den] = s.pairs?.[0] ? [s.pairs[0].numerator, s.pairs[0].denominator] : [s.servers[0].id, s.servers[1].id];
  const { tests, threads, recs } = liveInputs(s);
  const t: RatioTable = ratioTableFromSides(
    { id: num, label: num, records: recs.filter((r) => r.server === num) },
    { id: den, label: den, records: recs.filter((r) => r.server === den) },
    tests,
    threads,
    // An adaptive run (its forecast or its rounds seen) gets the report's sequential split, so the marks agree.
    {
      metric: "qps",
      pairing: "paired",
      sequential: s.adaptive !== undefined || s.forecast !== undefined,
      marginPct: s.marginPct ?? DEFAULT_MARGIN_PCT,
    },
  );
  const running = s.current && s.current.phase === "measure" ? s.current.cell : undefined;
  return {
    numerator: num,
    denominator: den,
    threads,
    marginPct: t.marginPct,
    forest: forestOf(t),
    rows: t.rows.map((r) => ({
      test: r.test,
      cells: r.cells.map((c): TableCellView => {
        const isRunning =
          running !== undefined &&
          running.test === r.test &&
          running.threads === c.threads &&
          (running.server === num || running.server === den);
        const status: TableCellView["status"] = c.status === "missing" && isRunning ? "running" : c.status;
        return {
          threads: c.threads,
          ratio: c.ratio,
          mark: c.status === "ok" ? verdictMark({ verdict: c.verdict, fdr: c.fdr, loadBound: c.loadBound }) : "",
          status,
        };
      }),
    })),
  };
}

/** A ladder run's live tables, one per pair (rows and marks from core's liveLadder); empty with one pair. */
function ladderOf(s: ViewState): TableView[] {
  if (!s.pairs || s.pairs.length < 2 || s.cells.length === 0) return [];
  const { tests, threads, recs } = liveInputs(s);
  const running = s.current && s.current.phase === "measure" ? s.current.cell : undefined;
  return liveLadder(recs, s.pairs, tests, threads, {
    sequential: s.adaptive !== undefined || s.forecast !== undefined,
  }).map((b) => ({
    numerator: b.numerator,
    denominator: b.denominator,
    threads,
    marginPct: b.marginPct,
    rows: b.rows.map((r) => ({
      test: r.test,
      cells: r.cells.map((c): TableCellView => {
        const isRunning =
          running !== undefined &&
          running.test === r.test &&
          running.threads === c.threads &&
          (running.server === b.numerator || running.server === b.denominator);
        return { ...c, status: c.status === "missing" && isRunning ? "running" : c.status };
      }),
    })),
  }));
}
