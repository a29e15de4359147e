/**
 * The storage provider: carries out a core/storage plan on the host and the engine through the kind's provisioner
 * (kinds/), records every resource in the state files the moment it exists, and undoes everything in reverse order;
 * the preflight (preflight.ts) runs first, and `cleanLeftovers` undoes what killed runs left.
 */
import { join } from "node:path";
import { TwinbenchError } from "../../core/base/errors.ts";
import {
  LABEL,
  ownerStatus,
  describeOwner,
  type Owner,
  type OwnerStatus,
  type ProcessProbe,
} from "../../core/base/labels.ts";
import { GLOBAL_STATE_DIR, planStorage } from "../../core/storage/plan.ts";
import { TOOL_PACKAGES, type StorageTool } from "../../core/storage/tools.ts";
import { remainingEntries, type StorageStateRecord } from "../../core/storage/state.ts";
import { probeProcess, selfOwner } from "../host/process-identity.ts";
import type { Runner } from "../host/runner.ts";
import { sweepUnrecorded, undoRecord } from "./cleanup.ts";
import { findTool, readMd } from "./host.ts";
import { provisionerFor, type StorageHost } from "./kinds/index.ts";
import { preflight } from "./preflight.ts";
import { readGlobalRecords, readRunStateFile, setAsideDamagedStateFiles, StateWriter } from "./state-file.ts";
import type { ProvisionedStorage, StorageEngine, StorageProvider, StorageRequest } from "./types.ts";

export interface StorageProviderDeps {
  engine: StorageEngine;
  runner: Runner;
  /** Global state dir (default /var/lib/twinbench/state). */
  stateDir?: string;
  /** Where the host's root is visible to this process (default "/"; e.g. "/host" when twinbench runs in a container
   *  with the host's / mounted there). Docker mount sources stay host paths. */
  hostRoot?: string;
  /** Hostname written into state records (default os.hostname()). */
  hostname?: string;
  /** This process as the owner of its records, and how another owner's pid is probed (tests replace them). */
  self?: Owner;
  probe?: (pid: number) => ProcessProbe;
  /** Which provisioner makes a kind of storage (default: the real ones, kinds/index.ts); tests replace it. */
  provisionerFor?: typeof provisionerFor;
}

export function createStorageProvider(deps: StorageProviderDeps): StorageProvider {
  const stateDir = deps.stateDir ?? GLOBAL_STATE_DIR;
  const hostRoot = (deps.hostRoot ?? "/").replace(/\/+$/, "");
  const self: Owner = { ...(deps.self ?? selfOwner()), ...(deps.hostname ? { hostname: deps.hostname } : {}) };
  const probe = deps.probe ?? ((pid: number) => probeProcess(pid));
  const statusOf = (rec: StorageStateRecord) => ownerStatus(rec.owner, self, probe);
  const { engine, runner } = deps;
  const host: StorageHost = {
    engine,
    runner,
    hp: (p) => (hostRoot === "" ? p : join(hostRoot, p)),
    engineIsLocal: () => engine.location().local,
  };

  const c: ProviderContext = { stateDir, self, statusOf, host, engine, runner, deps };
  return {
    preflight: (spec) => preflight(spec, host),
    provision: (req) => provisionStorage(c, req),
    cleanLeftovers: (opts) => cleanStorageLeftovers(c, opts),
    onEngine: (other) => createStorageProvider({ ...deps, self, engine: other }),
  };
}

/** What the provider's steps share: where state goes, this host, the engine and the runner. */
interface ProviderContext {
  stateDir: string;
  /** This process as the owner of the records it writes. */
  self: Owner;
  /** Whether a record's owner is alive, dead, or cannot be checked from here. */
  statusOf: (rec: StorageStateRecord) => OwnerStatus;
  host: StorageHost;
  engine: StorageProviderDeps["engine"];
  runner: StorageProviderDeps["runner"];
  deps: StorageProviderDeps;
}

/** Provision one server's data-dir storage, recording each resource in its state file as soon as it exists. */
async function provisionStorage(c: ProviderContext, req: StorageRequest): Promise<ProvisionedStorage> {
  const { stateDir, self, host, engine, runner, deps } = c;
  const { plan, warnings } = planStorage(req.spec, {
    runId: req.runId,
    serverId: req.serverId,
    uid: req.uid,
    gid: req.gid,
    hasMd: (await readMd(runner)) !== null,
  });
  const rec: StorageStateRecord = {
    version: 1,
    runId: req.runId,
    serverId: req.serverId,
    sessionId: req.sessionId,
    kind: plan.kind,
    owner: self,
    createdAt: new Date().toISOString(),
    runDir: req.runDir,
    entries: [],
  };
  const writer = new StateWriter(rec, req.runDir, stateDir);
  await writer.flush();

  let disposing: Promise<void> | undefined;
  const dispose = (): Promise<void> => {
    disposing ??= (async () => {
      const out = await undoRecord({ engine, runner }, rec);
      await writer.setEntries(remainingEntries(rec, out.failedEntries));
      if (out.failures.length > 0) {
        disposing = undefined; // a later call retries what is left
        throw new TwinbenchError(`could not undo all storage of server ${req.serverId}: ${out.failures[0]}`, {
          code: "STORAGE_TEARDOWN_FAILED",
          hint: `what is left is recorded in ${writer.globalFile}; \`twinbench clean\` retries it`,
          details: out.failures,
        });
      }
    })();
    return disposing;
  };

  const labels = {
    [LABEL.role]: "storage",
    [LABEL.server]: req.serverId,
    ...req.labels,
    [LABEL.session]: req.sessionId,
    [LABEL.run]: req.runId,
  };
  try {
    const made = await (deps.provisionerFor ?? provisionerFor)(plan).provision(
      plan,
      { req, labels, writer, warnings },
      host,
    );
    let facts = made.facts;
    return {
      mount: made.mount,
      get facts() {
        return facts;
      },
      warnings,
      needsHolder: made.needsHolder,
      async refreshFacts() {
        // A failed re-measure throws: the caller (teardown) keeps the start facts as the start and the failure as
        // the "after" (afterError), never the start facts as if they were re-measured.
        const after = await made.refresh();
        facts = { ...facts, ...after };
        return facts;
      },
      dispose,
    };
  } catch (e) {
    try {
      await dispose();
    } catch (undoErr) {
      // The provisioning error is the one to report; the undo's failure rides along in its details (what is
      // left stays recorded in the state file for `twinbench clean`).
      if (e instanceof TwinbenchError) e.details.push(`and the undo failed: ${(undoErr as Error).message}`);
    }
    throw e;
  }
}

// ---- leftovers -------------------------------------------------------------------------------------------------

/** Undo what killed runs left, from their state records (and, forced, from the host's mount and loop tables). */
async function cleanStorageLeftovers(
  c: ProviderContext,
  opts: { runDir?: string; runId?: string; force?: boolean } = {},
): Promise<string[]> {
  const { stateDir, statusOf, host, engine, runner } = c;
  const recs: StorageStateRecord[] = [];
  const lines: string[] = [];
  const failures: string[] = [];
  // --force: damaged state files go aside (kept), and the mount and loop tables say what to undo (below).
  if (opts.force)
    lines.push(...(await setAsideDamagedStateFiles(stateDir, { runId: opts.runId, runDir: opts.runDir })));
  if (opts.runDir) {
    recs.push(...((await readRunStateFile(opts.runDir))?.records ?? []));
  } else {
    for (const { rec } of await readGlobalRecords(stateDir, opts.runId)) recs.push(rec);
  }
  const live: StorageStateRecord[] = [];
  for (const rec of recs) {
    const who = `${rec.runId}/${rec.serverId}`;
    const status = statusOf(rec);
    if (status === "alive") {
      lines.push(`${who}: skipped, its process ${rec.owner.pid} is still running`);
      live.push(rec);
      continue;
    }
    if (status === "unknown" && !opts.force) {
      // Another host, pid namespace or boot (or an unreadable /proc entry): its owner may well run.
      lines.push(
        `${who}: skipped, written by ${describeOwner(rec.owner)}, which cannot be checked from here (use --force if that twinbench is gone)`,
      );
      live.push(rec);
      continue;
    }
    const out = await undoRecord({ engine, runner }, rec);
    lines.push(...out.lines.map((l) => `${who}: ${l}`));
    failures.push(...out.failures.map((l) => `${who}: ${l}`));
    const writer = new StateWriter(rec, opts.runDir ?? rec.runDir, stateDir);
    await writer.setEntries(remainingEntries(rec, out.failedEntries));
  }
  if (opts.force) {
    // Live runs' mounts and loops stay: `live` holds them unless only a run folder's file was read.
    const others = opts.runDir && opts.runId === undefined ? (await readGlobalRecords(stateDir)).map((g) => g.rec) : [];
    const keep = [...live, ...others.filter((r) => statusOf(r) !== "dead")];
    const swept = await sweepUnrecorded(
      { engine, runner },
      { runId: opts.runId, keep, hostPath: host.hp, knownRecords: [...recs, ...others] },
    );
    lines.push(...swept.lines);
    failures.push(...swept.failures);
  }
  if (failures.length > 0) {
    throw new TwinbenchError(`could not undo all storage leftovers: ${failures[0]}`, {
      code: "STORAGE_CLEAN_FAILED",
      hint: `what is left stays recorded in ${stateDir}; fix the cause and run \`twinbench clean\` again`,
      details: [...lines, ...failures.map((f) => `FAILED ${f}`)],
    });
  }
  return lines;
}

/** Every host tool storage may use, the package that ships it, and whether it is present (for doctor-like callers). */
export async function storageToolReport(): Promise<Array<{ tool: StorageTool; pkg: string; present: boolean }>> {
  const out: Array<{ tool: StorageTool; pkg: string; present: boolean }> = [];
  for (const [tool, pkg] of Object.entries(TOOL_PACKAGES) as Array<[StorageTool, string]>)
    out.push({ tool, pkg, present: await findTool(tool) });
  return out;
}
