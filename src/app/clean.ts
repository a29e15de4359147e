/**
 * Removal by label: the start-up sweep (resources of runs whose process is gone) and `twinbench clean`
 * (everything twinbench made, plus whatever the storage layer left).
 */
import { InputError, TwinbenchError } from "../core/base/errors.ts";
import { inRun, isOrphan, LABEL, type Owner, type ProcessProbe } from "../core/base/labels.ts";
import { listLabelled, type Engine } from "../core/model/engine/engine.ts";
import type { StorageProvider } from "../adapters/storage/types.ts";
import { DockerEngine } from "../adapters/docker/engine.ts";
import { createStorageProvider } from "../adapters/storage/index.ts";
import { createRunner } from "../adapters/host/runner.ts";
import { probeProcess, selfOwner } from "../adapters/host/process-identity.ts";
import { restoreLeftAffinity, type ConfineDeps } from "./run/confine.ts";

/** What {@link cleanResources} removed, and what it could not. */
export interface CleanReport {
  containers: string[];
  networks: string[];
  volumes: string[];
  storage: string[];
  /** CPU lists that killed runs left confined (resources.confineDaemons) and that were put back, or why not. */
  affinity: string[];
  /** Resources that could not be removed, with the reason (e.g. still in use). */
  failed: string[];
  /** A storage state file is damaged (STORAGE_STATE_CORRUPT): storage was not cleaned; the caller says so loudly. */
  storageError?: TwinbenchError;
}

/**
 * Remove labelled resources. `orphansOnly`: only those whose owning process is gone (start-up sweep).
 * `runId`: only that run's (of a multi-host run: every host's run and every pass of it, src/core/base/labels.ts inRun).
 * `sessionId`: only that session's (every run and pass one process started, on this engine). `force`: storage too
 * where state files are damaged or missing (StorageProvider cleanLeftovers: damaged files moved aside, mounts and
 * loop devices from the host's tables).
 */
export async function cleanResources(
  engine: Engine,
  opts: {
    orphansOnly?: boolean;
    runId?: string;
    sessionId?: string;
    storage?: StorageProvider;
    force?: boolean;
    /** This machine's daemons' CPU lists left confined by killed runs are put back (local engine only). */
    affinity?: Partial<ConfineDeps> | true;
    /** The caller as an owner, and how a pid is probed (tests replace them). */
    self?: Owner;
    probe?: (pid: number) => ProcessProbe;
  } = {},
): Promise<CleanReport> {
  // An empty id would match nothing by label yet read as "no filter" below: every run's resources, live ones too.
  for (const [flag, v] of [
    ["--run", opts.runId],
    ["session", opts.sessionId],
  ] as const)
    if (v !== undefined && v.trim() === "")
      throw new InputError(`clean ${flag}: an empty id names no run`, {
        code: "CLEAN_EMPTY_ID",
        hint: "pass the run id as in results/<run-id>, or leave --run out to clean every run",
      });
  // A run id also finds its hosts' runs and every pass of them (<run>-<host>[-pN], src/core/base/labels.ts inRun):
  // those are listed by the session label and picked here, since the engine's label filter matches exact values.
  const { runId, sessionId } = opts;
  const mine = runId
    ? (l: Record<string, string>) => inRun(l, runId)
    : sessionId
      ? (l: Record<string, string>) => l[LABEL.session] === sessionId
      : () => true;
  const found = await listLabelled(engine, sessionId && !runId ? [`${LABEL.session}=${sessionId}`] : [LABEL.session]);
  const self = opts.self ?? selfOwner();
  const probe = opts.probe ?? ((pid: number) => probeProcess(pid));
  const pick = <T extends { labels: Record<string, string> }>(xs: T[]) =>
    xs.filter((x) => mine(x.labels)).filter((x) => !opts.orphansOnly || isOrphan(x.labels, self, probe));
  const report: CleanReport = { containers: [], networks: [], volumes: [], storage: [], affinity: [], failed: [] };
  const attempt = async (what: string, fn: () => Promise<void>, into: string[]) => {
    try {
      await fn();
      into.push(what);
    } catch (e) {
      report.failed.push(`${what}: ${(e as Error).message}`);
    }
  };
  for (const c of pick(found.containers))
    await attempt(
      c.name,
      async () => {
        await engine.containers.unpause(c.id).catch(() => undefined); // not paused, or already gone: the removal below reports a real failure
        await engine.containers.remove(c.id);
      },
      report.containers,
    );
  for (const n of pick(found.networks)) await attempt(n.name, () => engine.networks.remove(n.id), report.networks);
  for (const v of pick(found.volumes)) await attempt(v.name, () => engine.volumes.remove(v.name), report.volumes);
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
  if (opts.affinity) {
    try {
      const out = await restoreLeftAffinity(
        { force: opts.force, runId: opts.runId },
        { self, probe, ...(opts.affinity === true ? {} : opts.affinity) },
      );
      report.affinity = out.lines;
      report.failed.push(...out.failures);
    } catch (e) {
      report.failed.push(`CPU lists: ${(e as Error).message}`);
    }
  }
  return report;
}

/**
 * The forced cleanup of a second Ctrl-C: everything labelled with the session id, on every engine the session
 * used, whatever runs and passes it started. Never rejects: what one engine could not remove stays labelled for
 * `twinbench clean`.
 */
export async function cleanSession(engines: readonly Engine[], sessionId: string): Promise<Array<CleanReport | Error>> {
  const settled = await Promise.allSettled(engines.map((e) => cleanResources(e, { sessionId })));
  return settled.map((r) =>
    r.status === "fulfilled" ? r.value : r.reason instanceof Error ? r.reason : new Error(String(r.reason)),
  );
}

/**
 * Ctrl-C and SIGTERM as every front end treats them: the first Ctrl-C, and any SIGTERM, cancel gracefully (sysbench
 * stops, finished cells are kept, everything is removed); a second Ctrl-C forces (the caller removes the session's
 * resources with {@link cleanSession} and exits). A SIGTERM after a Ctrl-C changes nothing: a cancel is under way.
 */
export class CancelGate {
  private interrupts = 0;
  constructor(private readonly on: { graceful(): void; force(): void }) {}

  /** Ctrl-C (SIGINT, or the screen's Ctrl-C/q). */
  interrupt(): void {
    if (++this.interrupts === 1) this.on.graceful();
    else this.on.force();
  }
  /** SIGTERM: the first Ctrl-C, once. */
  terminate(): void {
    if (this.interrupts > 0) return;
    this.interrupts = 1;
    this.on.graceful();
  }
}

/** Options of {@link clean}. */
export interface CleanOptions {
  /** Only this run's resources (its id, as in results/<run-id>). */
  runId?: string;
  /** Only resources whose owning process is gone (the start-up sweep). */
  orphansOnly?: boolean;
  /** The engine to clean (default: the local one). */
  engine?: Engine;
}

/**
 * `twinbench clean` as a function: remove the containers, networks and volumes twinbench labelled on an engine,
 * and undo the mounts, arrays and loop devices that killed runs left. Resources that cannot be removed are listed
 * in `failed`, never thrown. Without `runId` it removes every twinbench resource on the engine, other live runs'
 * included: pass `runId` or `orphansOnly` on a shared machine.
 */
export async function clean(opts: CleanOptions = {}): Promise<CleanReport> {
  const engine = opts.engine ?? new DockerEngine("local");
  const storage = createStorageProvider({ engine, runner: createRunner() });
  return cleanResources(engine, {
    runId: opts.runId,
    orphansOnly: opts.orphansOnly,
    storage,
    affinity: engine.location().local || undefined,
  });
}
