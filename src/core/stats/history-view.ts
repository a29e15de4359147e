/**
 * The history view: each comparable cell of one host over time (every run's estimate and interval), its level between
 * runs (replication.ts), and the runs that fall outside the interval the others give them. Pure; the history store
 * reads the entries and report/history.ts prints the view.
 */
import { cellRunsOf, type HistoryEntry } from "./history.ts";
import { replicationAnalysis, runsOutside, type ReplicationCell } from "./replication.ts";

/** What reading history gave: the entries, and each line that was skipped with why. */
export interface HistoryRead {
  entries: HistoryEntry[];
  skipped: Array<{ file: string; line: number; problem: string }>;
}

/** One cell's runs and its level between runs, for the history view. */
export interface HistoryCellView {
  key: string;
  name: string;
  runs: Array<{ runId: string; startedAt: string; estimate: number; low: number; high: number }>;
  level: ReplicationCell;
}

/** The history of one host (or several folders of hosts), per cell: the runs, the pooled line and the band. */
export interface HistoryView {
  /** Hosts whose entries were read, with their runs. */
  hosts: Array<{ hostKey: string; cpuModel?: string; runs: number }>;
  cells: HistoryCellView[];
  /** `cell: run` for each run outside the interval the other runs give it. */
  outside: string[];
  skipped: HistoryRead["skipped"];
  /** The host the cells are of. */
  host?: string;
}

/** Build the history view from entries: one scenario (by name) or all, on one host key (the most runs') or `host`. */
export function historyView(
  read: HistoryRead,
  opts: { scenario?: string; host?: string; confidence?: number } = {},
): HistoryView {
  const entries = read.entries.filter((e) => !opts.scenario || e.scenario === opts.scenario);
  const hosts = new Map<string, { hostKey: string; cpuModel?: string; runs: number }>();
  for (const e of entries) {
    const h = hosts.get(e.hostKey) ?? { hostKey: e.hostKey, cpuModel: e.cpuModel, runs: 0 };
    h.runs++;
    hosts.set(e.hostKey, h);
  }
  const host = opts.host ?? [...hosts.values()].sort((a, b) => b.runs - a.runs)[0]?.hostKey;
  const mine = entries.filter((e) => e.hostKey === host);
  const groups = cellRunsOf(mine);
  const levels = replicationAnalysis(groups, { confidence: opts.confidence });
  const cells = groups.map((g, i) => ({
    key: g.cell,
    name: g.name ?? g.cell,
    runs: mine
      .flatMap((e) => e.cells.filter((c) => c.key === g.cell).map((c) => ({ e, c })))
      .sort((a, b) => a.e.startedAt.localeCompare(b.e.startedAt))
      .map(({ e, c }) => ({ runId: e.runId, startedAt: e.startedAt, estimate: c.estimate, low: c.low, high: c.high })),
    level: levels[i],
  }));
  const names = new Map(groups.map((g) => [g.cell, g.name ?? g.cell]));
  const outside = runsOutside(groups, opts.confidence).map((s) => {
    const [key, run] = s.split(": ");
    return `${names.get(key) ?? key}: ${run}`;
  });
  return { hosts: [...hosts.values()], host, cells, outside, skipped: read.skipped };
}

/** Where a next run of each of this run's cells lands on this host, from the history's compatible runs. */
export interface RunReplication {
  /** Compatible runs on this host, this one included (the most any cell has). */
  runs: number;
  /** By `test|threads`: the replication interval in % and the level between runs, for cells with 2 or more runs. */
  cells: Map<string, { low: number; high: number; tauPct: number; k: number }>;
}

/**
 * The replication intervals of a run's cells: its own entry joined with the host's earlier entries (same host key,
 * same cell keys; a run counted once). The next run is taken to be as noisy as this one.
 */
export function runReplication(entry: HistoryEntry, history: readonly HistoryEntry[]): RunReplication {
  const host = history.filter((e) => e.hostKey === entry.hostKey && e.runId !== entry.runId);
  const groups = cellRunsOf([...host, entry], new Set(entry.cells.map((c) => c.key)));
  const next = new Map(entry.cells.map((c) => [c.key, { se: c.se, df: c.df }]));
  const levels = replicationAnalysis(groups, { confidence: entry.confidence, next });
  const cells: RunReplication["cells"] = new Map();
  let runs = 0;
  for (const l of levels) {
    runs = Math.max(runs, l.k);
    const c = entry.cells.find((x) => x.key === l.cell);
    if (!c || l.replicationLow === null || l.replicationHigh === null || l.tau === null) continue;
    cells.set(`${c.test}|${c.threads}`, {
      low: Math.exp(l.replicationLow) * 100,
      high: Math.exp(l.replicationHigh) * 100,
      tauPct: (Math.exp(l.tau) - 1) * 100,
      k: l.k,
    });
  }
  return { runs, cells };
}
