/**
 * The run screen's view state: a pure reducer from the run's event stream (and a few UI actions) to what the
 * screen shows. No Ink, no I/O, no clock: time comes from the events' `at` (and from `tick` actions).
 */
import { fixedOrDash } from "../core/base/units.ts";
import type { RunEvent } from "../core/model/events.ts";
import { roundLine } from "../core/plan/adaptive.ts";
import { calibrationUpdatedLine, forecastLine } from "../core/report/forecast.ts";
import type { Cell, CellRecord } from "../core/model/results.ts";
import {
  LOG_LIMIT,
  SPARK_WINDOW_SECONDS,
  type LogLine,
  type ServerView,
  type UiAction,
  type ViewState,
} from "./view-state.ts";
import { adaptiveView, derive } from "./derive.ts";

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

const fmtNum = fixedOrDash;

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

const SETUP_EVENTS = [
  "image-progress",
  "progress",
  "image-ready",
  "server-starting",
  "server-ready",
  "server-failed",
  "server-restarted",
  "config-identity",
  "phase",
] as const;

/** The events of a run's set-up: images, servers, their config, the current step. */
type SetupEvent = Extract<RunEvent, { type: (typeof SETUP_EVENTS)[number] }>;

const isSetupEvent = (e: RunEvent): e is SetupEvent => (SETUP_EVENTS as readonly string[]).includes(e.type);

/** One event into the view state: set-up events in {@link applySetup}, the rest (plan, cells, rounds, end) here. */
function apply(s: ViewState, e: RunEvent): ViewState {
  if (isSetupEvent(e)) return applySetup(s, e);
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
    case "second-run":
      return { ...s, secondRun: e.lines };
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

/** A set-up event: the images being built, the servers starting, their config identity, the current step. */
function applySetup(s: ViewState, e: SetupEvent): ViewState {
  switch (e.type) {
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
        servers: e.servers.reduce((list, sv) => upsertServer(list, sv.id, { family: sv.family }), s.servers),
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
