/**
 * The report of one run: the ratio table plus what a reader needs to trust it (server versions, storage, the
 * config-identity verdict, whether the run is complete). Pure; the renderers turn it into text, markdown, csv,
 * json and html.
 */
import { hostKey } from "../plan/calibration/host-key.ts";
import { historyEntry, type HistoryEntry } from "../stats/history.ts";
import { runReplication, type RunReplication } from "../stats/history-view.ts";
import { atHostLevel, type VerdictLevel } from "../stats/host-level.ts";
import type {
  AdaptiveSummary,
  CellRecord,
  MustMatchRow,
  RunManifest,
  ServerManifest,
  StorageFacts,
} from "../model/results.ts";
import { formatBytes, formatSeconds } from "../base/units.ts";
import { hostWords, wallSeconds } from "./run-facts.ts";
import { familyName } from "../model/vocabulary.ts";
import { parseDuration } from "../model/scenario/schema.ts";
import { buildRatioTable } from "../stats/ratio.ts";
import { measureRecords } from "../stats/records.ts";
import { type RatioTable } from "../stats/ratio-model.ts";
import { type Metric } from "../stats/metric.ts";
import type { LatencySection } from "../stats/latency.ts";
import { type CostTable } from "../stats/costs.ts";
import { comparisonPairs } from "../model/scenario/pairs.ts";
import { DEFAULT_MARGIN_PCT } from "../model/scenario/schema.ts";
import { buildCostTable, runFigures } from "./figures.ts";
import { printedWiderThanTarget } from "../stats/stop.ts";
import { interferenceNotes, summariseInterference } from "../measure/interference.ts";
import { cellStateNotes } from "../measure/cellstate.ts";
import { type CellState } from "../model/cell.ts";
import { buildLadder, type Ladder, type LadderPair } from "../stats/ladder.ts";
import { figureWindow, figureWindowText, type FigureWindow } from "../measure/levers.ts";

/** One server of a report: family, version, image, package version, storage and asymmetries. */
export interface ServerLine {
  id: string;
  family: string;
  version: string | null;
  image: string;
  packageVersion: string | null;
  storage: string;
  asymmetries: string[];
}

/** The report's verdict on the must-match table. */
export interface ConfigIdentity {
  /** identical: every must-match variable is equal; deliberate: only asked-for differences; differs; unknown: no table. */
  verdict: "identical" | "deliberate" | "differs" | "unknown";
  checked: number;
  differing: MustMatchRow[];
}

/** The report model of one run: the ratio table and what a reader needs to trust it. Every renderer takes this. */
export interface RunReport {
  runId: string;
  scenarioName: string;
  status: RunManifest["status"];
  partial: boolean;
  /** "Each test was run for 5 minutes." or "" */
  durationText: string;
  startedAt: string;
  endedAt: string | null;
  /** The machine in words (`<CPU model>, 2 CPUs`) and the run's seconds from start to end; null when unknown. */
  host: string | null;
  wallSeconds: number | null;
  /** Planned measure cells and those with a record. */
  planned: number;
  recorded: number;
  failed: number;
  skipped: number;
  /** Measured attempts after a failed attempt (`--retries`): the report uses each cell's last attempt. */
  retries: number;
  /** Outside interference: measured cells, those with figures, those disturbed, and the disturbed pairs' re-runs. */
  /** Cells that outside work disturbed; `counted`: the run kept their pairs (workload.rerunDisturbed false). */
  disturbance: {
    measured: number;
    known: number;
    disturbed: number;
    /** Of the disturbed cells, those that ran at another CPU speed than their pair's first cell. */
    bySpeed: number;
    reruns: number;
    counted: boolean;
  };
  servers: ServerLine[];
  configIdentity: ConfigIdentity;
  /** null when the run has fewer than two servers. In a ladder (compare: { base }) the primary pair's, = pairs[0]. */
  table: RatioTable | null;
  /** Where a second run on this host lands, from the host's history; null: not enough history; absent: not asked. */
  replication?: RunReplication | null;
  /** Which runs `table`'s verdicts speak for (see {@link ReportLevel}); absent when the report had no history. */
  level?: ReportLevel;
  /**
   * Every compared pair's table (the ladder's blocks, src/core/stats/ladder.ts), in comparisonPairs order; with
   * more than one pair their q-values and fdr readings are over every pair × cell. One entry for a two-server run
   * (the same as `table`), none with one server.
   */
  pairs: RatioTable[];
  /** More than one pair (a version ladder, src/core/stats/ladder.ts): each server against the base, q over every
   *  pair × cell. The renderers show it in place of `table`; null with one pair (the two-server report). */
  ladder: Ladder | null;
  /** p50, p95, p99 of every cell per compared pair (report/figures.ts); null with fewer than two servers. */
  latency: LatencySection | null;
  /** The TPC-C-like cells' NOPM ratio per compared pair (report/figures.ts); empty without NOPM figures. */
  nopm: RatioTable[];
  /** The cost per query of the same two servers, paired like the ratio table (src/core/stats/costs.ts); null with
   *  fewer than two servers. */
  costs: CostTable | null;
  notes: string[];
  /** The measured cells disturbed by outside work (the interference note lists them too), for report.html's table. */
  disturbedCells: DisturbedLine[];
  /** Each measured cell's state (the record's `state`): backlog, warm state, bottleneck, cost per query. */
  cellStates: CellStateLine[];
  /** The seconds each measured cell's figure used (src/core/measure/levers.ts figureWindow). */
  windows: Array<{ key: string } & FigureWindow>;
}

/**
 * The level of the verdicts: `run` (this run's own intervals) or `host` (each interval with the level between runs on
 * this host added, stats/host-level.ts). `asked` is what the user asked for; `host` falls back to `run` when the
 * history holds no level between runs. At the host level `runTable` keeps the run's own table.
 */
export interface ReportLevel {
  level: VerdictLevel;
  asked: VerdictLevel | "default";
  /** Cells whose interval holds the level between runs, and the most comparable runs behind one. */
  widened: number;
  runs: number;
  runTable?: RatioTable;
}

/** One disturbed cell: where, and what its interference figures said. */
export interface DisturbedLine {
  server: string;
  test: string;
  threads: number;
  repeat: number;
  outsiderCores: number | null;
  stealPct: number | null;
  reasons: string[];
}

/** One measured cell's state in the report (the cell record's `state`, keyed). */
export interface CellStateLine {
  key: string;
  server: string;
  test: string;
  threads: number;
  repeat: number;
  state: CellState;
}

/** Metric, CV threshold and servers of a report. */
export interface ReportOptions {
  metric?: Metric;
  /** Equivalence margin in percent (default 5): `equivalent` when the interval lies inside 100 ± margin. */
  marginPct?: number;
  numerator?: string;
  denominator?: string;
  /** The run's pairs (src/core/model/scenario/pairs.ts comparisonPairs): with more than one, the report has a ladder. */
  pairs?: readonly LadderPair[];
  /**
   * The host's run history (earlier runs' entries): the report then says where a second run on this host lands, or
   * that no level between runs has been measured here. Absent: the report says nothing about other runs.
   */
  history?: readonly HistoryEntry[];
  /**
   * Which runs the verdicts speak for: `run`, or `host` (with the level between runs in every interval). Default:
   * `host` once the history holds a level between runs for this run's cells, else `run`. Needs `history`.
   */
  level?: VerdictLevel;
}

export function describeStorage(s: StorageFacts | undefined, fallbackKind?: string): string {
  if (!s) return fallbackKind ?? "unknown";
  const parts: string[] = [s.kind];
  if (s.raidLevel && s.raidLevel !== s.kind) parts.push(`${s.raidLevel}`);
  if (s.members?.length) parts.push(`${s.members.length} members${s.loopBacked ? " (loop-backed)" : ""}`);
  if (s.chunk) parts.push(`chunk ${s.chunk}`);
  if (s.fsType && s.fsType !== s.kind) parts.push(s.fsType);
  if (s.sizeBytes !== undefined) parts.push(formatBytes(s.sizeBytes));
  if (s.mountOptions) parts.push(`(${s.mountOptions})`);
  return parts.join(" ");
}

export function durationText(manifest: RunManifest): string {
  const w = manifest.scenario.workload;
  const secs = w.duration === undefined ? undefined : parseDuration(w.duration);
  if (secs !== undefined) {
    if (secs >= 60 && secs % 60 === 0) return `Each test was run for ${secs / 60} minute${secs === 60 ? "" : "s"}.`;
    return `Each test was run for ${secs} second${secs === 1 ? "" : "s"}.`;
  }
  if (w.events !== undefined) return `Each test was run for ${w.events} events.`;
  return "";
}

function serverLine(s: ServerManifest, manifest: RunManifest): ServerLine {
  const spec = manifest.scenario.servers.find((x) => x.id === s.id);
  return {
    id: s.id,
    family: familyName(s.family),
    version: s.version ?? null,
    image: s.imageTag ?? s.image,
    packageVersion: s.packageVersion ?? null,
    storage: describeStorage(s.storage, (spec?.storage ?? manifest.scenario.storage)?.kind),
    asymmetries: s.asymmetries ?? [],
  };
}

export function configIdentity(rows: MustMatchRow[] | undefined): ConfigIdentity {
  if (!rows || rows.length === 0) return { verdict: "unknown", checked: 0, differing: [] };
  const differing = rows.filter((r) => !r.equal);
  const verdict =
    differing.length === 0 ? "identical" : differing.every((r) => r.deliberate) ? "deliberate" : "differs";
  return { verdict, checked: rows.length, differing };
}

/** Readings that failed (not absent): a cell's CPU sampler, a server's storage re-measure after the run. Pure. */
export function readingFailureNotes(manifest: Pick<RunManifest, "servers">, measured: readonly CellRecord[]): string[] {
  const notes: string[] = [];
  const failed = measured.filter((c) => c.interferenceError);
  if (failed.length > 0)
    notes.push(
      `The CPU sampler failed in ${failed.length} measured cell${failed.length === 1 ? "" : "s"} (no interference figures): ${failed.map((c) => `${c.key} (${c.interferenceError})`).join(", ")}.`,
    );
  for (const s of manifest.servers)
    if (s.storage?.afterError)
      notes.push(`Storage of server ${s.id} could not be re-measured after the run: ${s.storage.afterError}.`);
  return notes;
}

/** The run's replication intervals from the host's history; null when no cell has 2 or more compatible runs. */
function replicationOf(
  manifest: RunManifest,
  table: RatioTable | null,
  history: readonly HistoryEntry[],
): RunReplication | null {
  const host = manifest.hosts[0];
  if (!table || !host) return null;
  const entry = historyEntry(manifest, table, { hostKey: hostKey(host) });
  if (!entry) return null;
  const r = runReplication(entry, history);
  return r.cells.size > 0 ? r : null;
}

/** The verdicts' level and, at the host level, the table with the level between runs in each interval. */
function levelOf(
  table: RatioTable | null,
  replication: RunReplication | null,
  opts: ReportOptions,
): { level: ReportLevel; table?: RatioTable } {
  const asked: ReportLevel["asked"] = opts.level ?? "default";
  const runLevel = { level: { level: "run" as const, asked, widened: 0, runs: replication?.runs ?? 0 } };
  if (asked === "run" || !table || !replication) return runLevel;
  const r = atHostLevel(table, replication.levels, opts.marginPct ?? DEFAULT_MARGIN_PCT);
  if (r.widened === 0) return runLevel;
  return { level: { level: "host", asked, widened: r.widened, runs: r.runs, runTable: table }, table: r.table };
}

/** Build the report model of a run from its manifest and cell records. Pure. */
export function buildRunReport(
  manifest: RunManifest,
  cells: readonly CellRecord[],
  opts: ReportOptions = {},
): RunReport {
  const planned = manifest.cells.length;
  const measured = measureRecords(cells);
  const recorded = new Set(measured.map((c) => c.key)).size;
  const failed = measured.filter((c) => c.status === "failed").length;
  const skipped = measured.filter((c) => c.status === "skipped").length;
  const interference = summariseInterference(measured, cells);
  // A disturbed pair's re-run is an attempt too, but not a retry of a failure.
  const retries = cells.filter((c) => c.phase === "measure" && (c.attempt ?? 1) > 1).length - interference.reruns;
  const partial = manifest.status !== "ok" || (planned > 0 && recorded < planned);
  // One model of the compared pairs (ladder.ts): with more than one pair (compare: { base }) the ladder, whose first
  // block is the primary table with q-values over every pair × cell; an explicit --numerator/--denominator is its own.
  const ladder = buildLadder(manifest, cells, opts.pairs ?? comparisonPairs(manifest.scenario), opts);
  const explicit = opts.numerator !== undefined || opts.denominator !== undefined;
  const table = ladder && !explicit ? (ladder.blocks[0] ?? null) : buildRatioTable(manifest, cells, opts);
  const pairs = ladder ? ladder.blocks : table ? [table] : [];
  const costs = buildCostTable(manifest, cells, opts);
  const ladderPairs = ladder && !explicit ? (opts.pairs ?? comparisonPairs(manifest.scenario)) : null;
  const { latency, nopm } = runFigures(manifest, cells, ladderPairs, opts);
  const notes: string[] = [];
  if (!table && !ladder)
    notes.push("Only one server in this run: no ratio table (use `twinbench compare` to compare runs).");
  notes.push(...interferenceNotes(interference));
  notes.push(...readingFailureNotes(manifest, measured));
  notes.push(...cellStateNotes(measured));
  const windows = measured.flatMap((r) => {
    const w = r.status === "ok" ? figureWindow(r) : null;
    return w ? [{ key: r.key, ...w }] : [];
  });
  notes.push(...windowNotes(windows));
  if (manifest.adaptive) notes.push(...adaptiveNotes(manifest.adaptive));
  const replication = opts.history ? replicationOf(manifest, table, opts.history) : undefined;
  const level = opts.history ? levelOf(table, replication ?? null, opts) : undefined;
  return {
    ...(replication !== undefined ? { replication } : {}),
    ...(level ? { level: level.level } : {}),
    runId: manifest.runId,
    scenarioName: manifest.scenario.name,
    status: manifest.status,
    partial,
    durationText: durationText(manifest),
    startedAt: manifest.startedAt,
    endedAt: manifest.endedAt ?? null,
    host: hostWords(manifest),
    wallSeconds: wallSeconds(manifest),
    planned,
    recorded,
    failed,
    skipped,
    retries,
    disturbance: {
      measured: interference.measured,
      known: interference.known,
      disturbed: interference.disturbed.length,
      bySpeed: interference.disturbed.filter((c) => c.interference?.speedMismatch !== undefined).length,
      reruns: interference.reruns,
      counted: false,
    },
    servers: manifest.servers.map((s) => serverLine(s, manifest)),
    configIdentity: configIdentity(manifest.mustMatch),
    table: level?.table ?? table,
    pairs,
    ladder,
    latency,
    nopm,
    costs,
    notes,
    windows,
    disturbedCells: interference.disturbed.map((c) => ({
      server: c.server,
      test: c.test,
      threads: c.threads,
      repeat: c.repeat,
      outsiderCores: c.interference?.outsiderCores ?? null,
      stealPct: c.interference?.stealPct ?? null,
      reasons: c.interference?.reasons ?? [],
    })),
    cellStates: measured.flatMap((r) =>
      r.state && r.status === "ok"
        ? [{ key: r.key, server: r.server, test: r.test, threads: r.threads, repeat: r.repeat, state: r.state }]
        : [],
    ),
  };
}

/**
 * Which seconds the cells' figures used, grouped: "Seconds each cell's figure used: seconds 3–7 (per-second mean of
 * 5 s after a 2 s lead-in) in 24 cells." A group of fewer cells lists their keys.
 */
export function windowNotes(ws: ReadonlyArray<{ key: string } & FigureWindow>): string[] {
  if (!ws.length) return [];
  const groups = new Map<string, string[]>();
  for (const w of ws) groups.set(figureWindowText(w), [...(groups.get(figureWindowText(w)) ?? []), w.key]);
  // The largest group is counted; any other lists its cells.
  const main = [...groups].reduce((a, b) => (b[1].length > a[1].length ? b : a))[0];
  const cells = (n: number) => `${n} cell${n === 1 ? "" : "s"}`;
  const parts = [...groups].map(([text, keys]) =>
    text === main ? `${text} in ${cells(keys.length)}` : `${text} in ${cells(keys.length)} (${keys.join(", ")})`,
  );
  return [`Seconds each cell's figure used: ${parts.join("; ")}.`];
}

/** What an adaptive run did: its settings, how many cells stopped for which reason, and the width each one reached. */
export function adaptiveNotes(a: AdaptiveSummary): string[] {
  const count = (why: string) =>
    a.cells.filter((c) => c.done === why && !printedWiderThanTarget(c, a.precisionPct)).length;
  // A cell of an older run can stop on precision while its printed interval is wider than the target:
  // it is never counted "at the precision target" (src/core/stats/stop.ts, PRINTED_WIDTH_FACTOR).
  const wide = a.cells.filter((c) => printedWiderThanTarget(c, a.precisionPct)).length;
  const budget = a.budgetSeconds === undefined ? "no budget" : `a budget of ${formatSeconds(a.budgetSeconds)}`;
  const out = [
    `Adaptive repeats: target ±${a.precisionPct}% per cell, ${a.min} to ${a.max} rounds, ${budget}; ${a.instances > 1 ? `a fresh server instance every ${a.roundsPerInstance} round${a.roundsPerInstance === 1 ? "" : "s"}` : "one server instance"}; ${a.rounds} round${a.rounds === 1 ? "" : "s"} run. ` +
      `Stopped: ${count("precision")} at the precision target, ${wide ? `${wide} with an interval still wider than the target, ` : ""}${count("max")} at max, ${count("budget")} by the budget${a.cells.some((c) => !c.done) ? `, ${a.cells.filter((c) => !c.done).length} still open (the run was cut short)` : ""}.`,
  ];
  for (const c of a.cells) {
    if (c.done === "precision" && !printedWiderThanTarget(c, a.precisionPct)) continue;
    const hw = c.halfWidthPct === null ? "no interval yet" : `±${c.halfWidthPct.toFixed(1)}%`;
    const where = `${c.test} at ${c.threads} thread${c.threads === 1 ? "" : "s"}`;
    const after = `after ${c.rounds} round${c.rounds === 1 ? "" : "s"}, ${c.n} pairs`;
    if (printedWiderThanTarget(c, a.precisionPct))
      out.push(
        `- ${where}: stopped ${after}; its interval was ${c.halfWidthPct === null ? "not available" : hw} at the stop, wider than the ±${a.precisionPct}% target`,
      );
    else out.push(`- ${where}: ${c.done ? `stopped (${c.done})` : "open"} ${after}, reached ${hw}`);
  }
  return out;
}
