/**
 * Removal by label: the start-up sweep (resources of runs whose process is gone) and `twinbench clean`
 * (everything twinbench made, plus whatever the storage layer left).
 */
import { hostname as osHostname } from "node:os";
import { TwinbenchError } from "../core/errors.ts";
import { isOrphan, LABEL } from "../core/labels.ts";
import type { Engine } from "../adapters/docker/engine.ts";
import type { StorageProvider } from "../adapters/storage/types.ts";

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

export interface CleanReport {
  containers: string[];
  networks: string[];
  volumes: string[];
  storage: string[];
  /** Resources that could not be removed, with the reason (e.g. still in use). */
  failed: string[];
  /** A storage state file is damaged (STORAGE_STATE_CORRUPT): storage was not cleaned; the caller says so loudly. */
  storageError?: TwinbenchError;
}

/**
 * Remove labelled resources. `orphansOnly`: only those whose owning process is gone (start-up sweep).
 * `runId`: only that run's. `force`: storage too where state files are damaged or missing (StorageProvider
 * cleanLeftovers: damaged files moved aside, mounts and loop devices from the host's tables).
 */
export async function cleanResources(engine: Engine, opts: { orphansOnly?: boolean; runId?: string; storage?: StorageProvider; force?: boolean } = {}): Promise<CleanReport> {
  const filters = [opts.runId ? `${LABEL.run}=${opts.runId}` : LABEL.session];
  if (!opts.runId) filters.push(`${LABEL.host}=${engine.hostId}`);
  const found = await engine.listLabelled(opts.runId ? filters : [LABEL.session]);
  const host = osHostname();
  const pick = <T extends { labels: Record<string, string> }>(xs: T[]) =>
    xs.filter((x) => (opts.runId ? x.labels[LABEL.run] === opts.runId : true)).filter((x) => !opts.orphansOnly || isOrphan(x.labels, host, pidAlive));
  const report: CleanReport = { containers: [], networks: [], volumes: [], storage: [], failed: [] };
  const attempt = async (what: string, fn: () => Promise<void>, into: string[]) => {
    try {
      await fn();
      into.push(what);
    } catch (e) {
      report.failed.push(`${what}: ${(e as Error).message}`);
    }
  };
  for (const c of pick(found.containers))
    await attempt(c.name, async () => {
      await engine.unpause(c.id).catch(() => undefined);
      await engine.remove(c.id);
    }, report.containers);
  for (const n of pick(found.networks)) await attempt(n.name, () => engine.removeNetwork(n.id), report.networks);
  for (const v of pick(found.volumes)) await attempt(v.name, () => engine.removeVolume(v.name), report.volumes);
  // Storage state files name their owner (pid and start time): leftovers of live runs are always skipped, so the
  // start-up sweep can replay them as safely as `clean`.
  if (opts.storage) {
    try {
      report.storage = await opts.storage.cleanLeftovers({ runId: opts.runId, force: opts.force });
    } catch (e) {
      if (e instanceof TwinbenchError && e.code === "STORAGE_STATE_CORRUPT") report.storageError = e;
      else report.failed.push(`storage: ${(e as Error).message}`);
    }
  }
  return report;
}
