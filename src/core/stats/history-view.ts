/**
 * The history view: each comparable cell of one host over time (every run's estimate and interval), its level between
 * runs (replication.ts), and the runs that fall outside the interval the others give them. Pure; the history store
 * reads the entries and report/history.ts prints the view.
 */
import { cellRunsOf, type HistoryEntry } from "./history.ts";
import type { CellRuns } from "./replication.ts";
import { tQuantile } from "../base/distributions.ts";
import { replicationAnalysis, runsOutside, type ReplicationCell } from "./replication.ts";
import type { CellLevel } from "./host-level.ts";

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
  /** With runs of several hosts read: each cell on each host, and the level between hosts when 3 or more have it. */
  byHost?: HostLevelView;
}

/** The host as a level: each cell's pooled estimate per host, and the sd between hosts with where another lands. */
export interface HostLevelView {
  hosts: Array<{ hostKey: string; cpuModel?: string; runs: number }>;
  cells: Array<{
    key: string;
    name: string;
    /** Per host (same order as `hosts`): the pooled estimate over its runs and its interval, in %; null: no runs. */
    perHost: Array<{ estimate: number; low: number; high: number; runs: number } | null>;
    /** The level between hosts (log units) and where a run on another host lands (%); null below 3 hosts. */
    tau: number | null;
    tauLow: number | null;
    tauHigh: number | null;
    nextLow: number | null;
    nextHigh: number | null;
  }>;
  /** Hosts behind the cell with the most; a level between hosts needs 3 or more. */
  most: number;
}

/** Build the history view from entries: one scenario (by name) or all, on one host key (the most runs') or `host`. */
export function historyView(
  read: HistoryRead,
  opts: { scenario?: string; host?: string; confidence?: number } = {},
): HistoryView {
  // A run read from both the host's folder and the project's counts once (as in cellRunsOf).
  const seen = new Set<string>();
  const entries = read.entries.filter((e) => {
    if (opts.scenario && e.scenario !== opts.scenario) return false;
    const id = `${e.hostKey}/${e.runId}`;
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
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
  const named = distinctNames(groups);
  const cells = groups.map((g, i) => ({
    key: g.cell,
    name: named.get(g.cell) ?? g.cell,
    runs: mine
      .flatMap((e) => e.cells.filter((c) => c.key === g.cell).map((c) => ({ e, c })))
      .sort((a, b) => a.e.startedAt.localeCompare(b.e.startedAt))
      .map(({ e, c }) => ({ runId: e.runId, startedAt: e.startedAt, estimate: c.estimate, low: c.low, high: c.high })),
    level: levels[i],
  }));
  const outside = runsOutside(groups, opts.confidence).map((s) => {
    const [key, run] = s.split(": ");
    return `${named.get(key) ?? key}: ${run}`;
  });
  const all = [...hosts.values()];
  const byHost = all.length > 1 ? hostLevel(entries, all, opts.confidence) : undefined;
  return { hosts: all, host, cells, outside, skipped: read.skipped, ...(byHost ? { byHost } : {}) };
}

/**
 * Each cell's printed name. Runs of one test and thread count whose comparability keys differ (other images, config,
 * storage, data or cell length) are separate cells: their names carry the key's first 6 digits, so that two rows of
 * one name never read as the same cell.
 */
function distinctNames(groups: ReadonlyArray<{ cell: string; name?: string }>): Map<string, string> {
  const count = new Map<string, number>();
  for (const g of groups) count.set(g.name ?? g.cell, (count.get(g.name ?? g.cell) ?? 0) + 1);
  return new Map(
    groups.map((g) => {
      const name = g.name ?? g.cell;
      return [g.cell, (count.get(name) ?? 0) > 1 ? `${name} (key ${g.cell.slice(0, 6)})` : name];
    }),
  );
}

/** The fewest hosts a level between hosts is estimated from (with 2, its sd has 1 df: no use). */
export const MIN_HOSTS_FOR_LEVEL = 3;

/**
 * The host as a level: each host's runs of a cell pooled (replication.ts: its mean and interval; one run: that run's
 * own), then the hosts' pooled estimates as the runs of a level above, with the same model (each host's se is its
 * pooled interval's).
 */
function hostLevel(entries: readonly HistoryEntry[], hosts: HostLevelView["hosts"], confidence = 0.95): HostLevelView {
  const perHost = hosts.map((h) => {
    const groups = cellRunsOf(entries.filter((e) => e.hostKey === h.hostKey));
    const levels = replicationAnalysis(groups, { confidence });
    return new Map(groups.map((g, i) => [g.cell, { g, l: levels[i] }]));
  });
  const keys = [...new Set(perHost.flatMap((m) => [...m.keys()]))];
  const z = tQuantile((1 + confidence) / 2, 1e6);
  const rows = keys.map((key) => {
    const per = perHost.map((m) => {
      const x = m.get(key);
      if (!x) return null;
      if (x.g.runs.length === 1) {
        const r = x.g.runs[0];
        const half = tQuantile((1 + confidence) / 2, r.df ?? 30) * r.se;
        return { y: r.y, se: r.se, low: r.y - half, high: r.y + half, runs: 1 };
      }
      const half = x.l.pooledHigh - x.l.pooled;
      return { y: x.l.pooled, se: half / z, low: x.l.pooledLow, high: x.l.pooledHigh, runs: x.g.runs.length };
    });
    const name = perHost.map((m) => m.get(key)?.g.name).find((n) => n) ?? key;
    return { key, name, per };
  });
  const groups: CellRuns[] = rows.map((r) => ({
    cell: r.key,
    runs: r.per.flatMap((p, i) => (p ? [{ run: hosts[i].hostKey, y: p.y, se: p.se }] : [])),
  }));
  const levels = replicationAnalysis(
    groups.filter((g) => g.runs.length >= MIN_HOSTS_FOR_LEVEL),
    { confidence },
  );
  const byKey = new Map(levels.map((l) => [l.cell, l]));
  const pct = (x: number) => Math.exp(x) * 100;
  return {
    hosts,
    most: Math.max(0, ...groups.map((g) => g.runs.length)),
    cells: rows.map((r) => {
      const l = byKey.get(r.key);
      return {
        key: r.key,
        name: r.name,
        perHost: r.per.map((p) =>
          p ? { estimate: pct(p.y), low: pct(p.low), high: pct(p.high), runs: p.runs } : null,
        ),
        tau: l?.tau ?? null,
        tauLow: l?.tauLow ?? null,
        tauHigh: l?.tauHigh ?? null,
        nextLow: l?.replicationLow == null ? null : pct(l.replicationLow),
        nextHigh: l?.replicationHigh == null ? null : pct(l.replicationHigh),
      };
    }),
  };
}

/** Where a next run of each of this run's cells lands on this host, from the history's compatible runs. */
export interface RunReplication {
  /** Compatible runs on this host, this one included (the most any cell has). */
  runs: number;
  /** By `test|threads`: the replication interval in % and the level between runs, for cells with 2 or more runs. */
  cells: Map<string, { low: number; high: number; tauPct: number; k: number }>;
  /**
   * By `test|threads`: the level between runs measured over the earlier runs alone (2 or more), which the host-level
   * verdicts add to this run's interval (host-level.ts). This run is left out: its own deviation would widen it.
   */
  levels: Map<string, CellLevel>;
}

/**
 * The replication intervals of a run's cells: its own entry joined with the host's earlier entries (same host key,
 * same cell keys; a run counted once). The next run is taken to be as noisy as this one.
 */
export function runReplication(entry: HistoryEntry, history: readonly HistoryEntry[]): RunReplication {
  const host = history.filter((e) => e.hostKey === entry.hostKey && e.runId !== entry.runId);
  const keys = new Set(entry.cells.map((c) => c.key));
  const groups = cellRunsOf([...host, entry], keys);
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
  const earlier: RunReplication["levels"] = new Map();
  for (const l of replicationAnalysis(cellRunsOf(host, keys), { confidence: entry.confidence })) {
    const c = entry.cells.find((x) => x.key === l.cell);
    if (!c || l.tau === null || l.df === null || l.within === null) continue;
    earlier.set(`${c.test}|${c.threads}`, { tau: l.tau, within: l.within, df: l.df, k: l.k });
  }
  return { runs, cells, levels: earlier };
}

/**
 * The level between runs of each server's own figure on one host, per cell (`test|threads`), from the history's
 * per-server sides: what `compare` adds to a one-run-a-side interval. The compared runs themselves are left out.
 */
export function serverLevels(
  history: readonly HistoryEntry[],
  host: string,
  keys: ReadonlyArray<{ server: string; test: string; threads: number; key: string }>,
  exclude: ReadonlySet<string>,
): Map<string, Map<string, CellLevel>> {
  const mine = history.filter((e) => e.hostKey === host && !exclude.has(e.runId));
  const wanted = new Set(keys.map((k) => k.key));
  const seen = new Set<string>();
  const byKey = new Map<string, CellRuns["runs"][number][]>();
  for (const e of mine) {
    if (seen.has(e.runId)) continue;
    seen.add(e.runId);
    for (const s of e.cells.flatMap((c) => c.sides ?? []))
      if (wanted.has(s.key)) byKey.set(s.key, [...(byKey.get(s.key) ?? []), { run: e.runId, ...s }]);
  }
  const groups: CellRuns[] = [...byKey].map(([cell, runs]) => ({ cell, runs }));
  const levels = new Map(replicationAnalysis(groups).map((l) => [l.cell, l]));
  const out = new Map<string, Map<string, CellLevel>>();
  for (const k of keys) {
    const l = levels.get(k.key);
    if (!l || l.tau === null || l.df === null || l.within === null) continue;
    const m = out.get(k.server) ?? new Map<string, CellLevel>();
    m.set(`${k.test}|${k.threads}`, { tau: l.tau, within: l.within, df: l.df, k: l.k });
    out.set(k.server, m);
  }
  return out;
}
