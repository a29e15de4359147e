/**
 * A host's run history (`twinbench history`, and the stage at the end of every run): each run's cells go into the
 * host's history, and the history gives each cell's level between runs and the interval a next run lands in.
 * Reading and writing are the history store's (adapters); the statistics are core/stats/replication.ts.
 */
import { fileURLToPath } from "node:url";
import { hostKey } from "../core/plan/calibration/host-key.ts";
import { buildRunReport } from "../core/report/model.ts";
import { historyEntry, serverCellKey, type HistoryEntry } from "../core/stats/history.ts";
import { serverLevels, type HistoryRead } from "../core/stats/history-view.ts";
import type { CellLevel } from "../core/stats/host-level.ts";
import type { CellRecord, RunManifest } from "../core/model/results.ts";
import { appendHistory, historyDir, readHistoryDir } from "../adapters/history-store.ts";
import { readResultsFolder } from "../adapters/report-files.ts";
import { localHostFacts } from "../adapters/calibration-store.ts";
import { TwinbenchError } from "../core/base/errors.ts";
import { DeadlineError, withDeadline } from "../core/base/deadline.ts";
import type { Engine } from "../core/model/engine/engine.ts";

/** The history entry of a run from its manifest and records: the primary table's cells with an interval. */
export function runHistoryEntry(manifest: RunManifest, cells: readonly CellRecord[]): HistoryEntry | null {
  const table = buildRunReport(manifest, cells).table;
  const host = manifest.hosts[0];
  if (!table || !host) return null;
  return historyEntry(manifest, table, { hostKey: hostKey(host), cpuModel: host.cpuModel, cpus: host.cpus });
}

/** What `history add` did with each folder. */
export interface HistoryAdded {
  added: Array<{ dir: string; runId: string; cells: number; file: string }>;
  /** Folders that were not added, each with why (a damaged folder is named and skipped; nothing else is lost). */
  skipped: Array<{ dir: string; why: string }>;
}

/** Import results folders into their hosts' histories; a run already in its history is not added twice. */
export async function addFoldersToHistory(dirs: readonly string[], dir = historyDir()): Promise<HistoryAdded> {
  const out: HistoryAdded = { added: [], skipped: [] };
  const known = new Set((await readHistoryDir(dir)).entries.map((e) => `${e.hostKey}/${e.runId}`));
  for (const d of dirs) {
    let entry: HistoryEntry | null;
    try {
      const folder = await readResultsFolder(d);
      entry = runHistoryEntry(folder.manifest, folder.cells);
    } catch (e) {
      // A folder that cannot be read is reported and skipped; the others still go in.
      out.skipped.push({ dir: d, why: (e as Error).message });
      continue;
    }
    if (!entry) {
      out.skipped.push({ dir: d, why: "no cell with an interval (a run of one server, or no complete pairs)" });
      continue;
    }
    if (known.has(`${entry.hostKey}/${entry.runId}`)) {
      out.skipped.push({ dir: d, why: `run ${entry.runId} is already in the history` });
      continue;
    }
    const file = await appendHistory(entry, dir);
    known.add(`${entry.hostKey}/${entry.runId}`);
    out.added.push({ dir: d, runId: entry.runId, cells: entry.cells.length, file });
  }
  return out;
}

/**
 * The history this project keeps of its own test hosts (bench/history/ in the repository), so that a new machine of
 * the same kind starts with the earlier days. Read after the host's own folder; a run in both counts once.
 */
export const PROJECT_HISTORY = fileURLToPath(new URL("../../bench/history", import.meta.url));

/**
 * Read the history: this host's folder and the project's (either may be missing: a host with no history yet), or
 * the folders or files the user named, each of which must exist.
 */
export async function readHistory(dirs?: readonly string[]): Promise<HistoryRead> {
  const out: HistoryRead = { entries: [], skipped: [] };
  for (const d of dirs ?? [historyDir(), PROJECT_HISTORY]) {
    const r = await readHistoryDir(d, { required: dirs !== undefined });
    out.entries.push(...r.entries);
    out.skipped.push(...r.skipped);
  }
  return out;
}

/**
 * The history a run's report is held against: this host's and the project's entries. A history that cannot be
 * read leaves the report without it (and says why) rather than failing the report.
 */
export async function historyForReports(): Promise<{ entries?: HistoryEntry[]; warning?: string }> {
  try {
    return { entries: (await readHistory()).entries };
  } catch (e) {
    return { warning: `the host's run history could not be read (${(e as Error).message})` };
  }
}

/**
 * The level between runs of each server on BASE's host, for `compare` with one run a side: from this host's and the
 * project's history, leaving out the compared runs. Undefined when the history cannot be read (the comparison then
 * says that its intervals leave the level out).
 */
export async function betweenRunsFor(
  base: RunManifest,
  metric: string,
  compared: readonly string[],
): Promise<Map<string, Map<string, CellLevel>> | undefined> {
  const host = base.hosts[0];
  const { entries } = await historyForReports();
  if (!host || !entries) return undefined;
  const w = base.scenario.workload;
  const keys = base.scenario.servers.flatMap((s) =>
    w.tests.flatMap((test) =>
      w.threads.map((threads) => ({
        server: s.id,
        test,
        threads,
        key: serverCellKey(base, metric, s.id, test, threads),
      })),
    ),
  );
  return serverLevels(entries, hostKey(host), keys, new Set(compared));
}

/**
 * The host `twinbench history` shows when none is named: this machine's (the key its runs are filed under), so that a
 * machine of another kind is not shown the project's test host as its own. With no engine answering, the key cannot
 * be made (it names the engine's storage driver and cgroup version): then no host is chosen, and `why` says so.
 */
export async function thisHost(
  engine: Engine,
  deadlineMs = THIS_HOST_DEADLINE_MS,
): Promise<{ key: string } | { why: string }> {
  try {
    return {
      key: hostKey(await withDeadline(localHostFacts(engine), deadlineMs, () => new DeadlineError(deadlineMs))),
    };
  } catch (e) {
    if (e instanceof TwinbenchError && e.code === "ENGINE_UNREACHABLE")
      return { why: `this host's key needs the Docker engine, which did not answer (${e.message})` };
    if (e instanceof DeadlineError)
      return { why: `this host's key needs the Docker engine, which gave no answer within ${deadlineMs / 1000} s` };
    throw e;
  }
}

/** How long `history` waits for the engine's facts (a hung engine must not hang a command that only reads files). */
export const THIS_HOST_DEADLINE_MS = 10_000;
