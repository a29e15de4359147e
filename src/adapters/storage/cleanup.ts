/**
 * Carries out the undo plan of a state record (core/storage/state.ts planCleanup): observe the host, plan, run each
 * step, keep in the state only the entries whose steps failed.
 */
import { readdir, rm, rmdir, unlink } from "node:fs/promises";
import { dirname, join } from "node:path";
import { DEFAULT_LOOP_DIR, MOUNT_ROOT } from "../../core/storage/plan.ts";
import type { Runner } from "../host/runner.ts";
import { formatCommand } from "../host/runner.ts";
import {
  planCleanup,
  planForcedSweep,
  type CleanupOp,
  type Observed,
  type StorageStateRecord,
} from "../../core/storage/state.ts";
import { readLoops, readMd, readMounts } from "./host.ts";
import type { VolumePort } from "../../core/model/engine/volumes.ts";

export interface CleanupDeps {
  engine: { readonly volumes: Pick<VolumePort, "inspect" | "remove"> };
  runner: Runner;
}

export interface CleanupOutcome {
  /** What was done or found, one line each ("unmount /x", "volume v is gone"). */
  lines: string[];
  failures: string[];
  /** Indexes of entries whose undo failed (they stay in the state). */
  failedEntries: Set<number>;
}

export async function observe(deps: CleanupDeps, rec: StorageStateRecord): Promise<Observed> {
  const needHost = rec.entries.some((e) => e.type !== "volume");
  const obs: Observed = needHost
    ? { mounts: await readMounts(deps.runner), loops: await readLoops(deps.runner), md: await readMd(deps.runner) }
    : { mounts: [], loops: [], md: null };
  const vols = rec.entries.filter((e) => e.type === "volume");
  if (vols.length > 0) {
    obs.volumes = {};
    for (const v of vols) {
      const info = await deps.engine.volumes.inspect(v.name);
      if (info) obs.volumes[v.name] = info.labels;
    }
  }
  return obs;
}

export async function undoRecord(deps: CleanupDeps, rec: StorageStateRecord): Promise<CleanupOutcome> {
  const steps = planCleanup(rec, await observe(deps, rec));
  const out: CleanupOutcome = { lines: [], failures: [], failedEntries: new Set() };
  for (const s of steps) {
    if (out.failedEntries.has(s.entry)) continue;
    if (!s.action) {
      out.lines.push(s.note);
      continue;
    }
    // Never go on to layers below a step that failed (e.g. detaching loops under a mount still in place).
    if (s.action.op !== "volume-rm" && dependsOnFailed(rec, s.entry, out.failedEntries)) {
      out.failedEntries.add(s.entry);
      out.failures.push(`${s.note}: skipped, a step above it failed`);
      continue;
    }
    try {
      await execute(deps, s.action);
      out.lines.push(s.note);
    } catch (e) {
      out.failedEntries.add(s.entry);
      out.failures.push(`${s.note}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  return out;
}

/**
 * `clean --force`: undo twinbench's mounts and loop devices (of one run, when given) as the mount and loop tables
 * show them, with no state file to go by; what `keep` (live runs' records) lists is left alone. `hostPath` maps a
 * host path to where this process sees it (the loop dir is listed for backing files no loop holds any more).
 */
export async function sweepUnrecorded(
  deps: CleanupDeps,
  opts: {
    runId?: string;
    keep?: StorageStateRecord[];
    hostPath?: (p: string) => string;
    /** Every record read (live or not): the loop dirs they name are known loop dirs. */
    knownRecords?: StorageStateRecord[];
  },
): Promise<{ lines: string[]; failures: string[] }> {
  const hp = opts.hostPath ?? ((p: string) => p);
  const loopFiles = await readdir(hp(DEFAULT_LOOP_DIR)).then(
    (names) => names.map((n) => join(DEFAULT_LOOP_DIR, n)),
    (e: NodeJS.ErrnoException) => {
      if (e.code === "ENOENT") return []; // no loop dir: no backing files
      throw e;
    },
  );
  const obs = {
    mounts: await readMounts(deps.runner),
    loops: await readLoops(deps.runner),
    md: await readMd(deps.runner),
    loopFiles,
  };
  const out = { lines: [] as string[], failures: [] as string[] };
  // The known loop dirs: the default one and every one a state record names (a scenario's storage.loop.dir).
  const loopDirs = [
    DEFAULT_LOOP_DIR,
    ...(opts.knownRecords ?? []).flatMap((r) => r.entries.flatMap((e) => (e.type === "file" ? [dirname(e.path)] : []))),
  ];
  for (const s of planForcedSweep(obs, { mountRoot: MOUNT_ROOT, loopDirs, runId: opts.runId, keep: opts.keep })) {
    const a =
      s.action.op === "rm-file" || s.action.op === "rmdir" ? { ...s.action, path: hp(s.action.path) } : s.action;
    try {
      await execute(deps, a);
      out.lines.push(s.note);
    } catch (e) {
      out.failures.push(`${s.note}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  return out;
}

/** Host-side entries created after this one whose undo failed (a mount still up holds the loops below it). */
function dependsOnFailed(rec: StorageStateRecord, entry: number, failed: Set<number>): boolean {
  for (const f of failed) if (f > entry && rec.entries[f]?.type !== "volume") return true;
  return false;
}

async function execute(deps: CleanupDeps, a: CleanupOp): Promise<void> {
  const run = async (cmd: string, args: string[], okCodes: number[] = [0]) => {
    const r = await deps.runner.run(cmd, args);
    if (!okCodes.includes(r.exitCode)) {
      throw new Error(
        `\`${formatCommand(cmd, args)}\` exited ${r.exitCode}: ${(r.stderr || r.stdout).trim().split("\n").pop() ?? ""}`,
      );
    }
    return r;
  };
  switch (a.op) {
    case "umount": {
      const r = await deps.runner.run("umount", [a.target]);
      if (r.exitCode !== 0) {
        // Busy (a container still uses it): a lazy unmount detaches it now and frees it when the last user goes.
        await run("umount", ["-l", a.target]);
      }
      return;
    }
    case "mdadm-stop":
      await run("mdadm", ["--stop", a.device]);
      for (const m of a.members) await deps.runner.run("mdadm", ["--zero-superblock", m]);
      return;
    case "btrfs-forget":
      // Best effort: unregister the (now unmounted) devices so the kernel does not keep stale entries.
      for (const d of a.devices) await deps.runner.run("btrfs", ["device", "scan", "--forget", d]);
      return;
    case "losetup-detach":
      await run("losetup", ["-d", a.device]);
      return;
    case "rm-file":
      try {
        await unlink(a.path);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e; // already gone: that is the goal
      }
      return;
    case "rmdir":
      try {
        await rmdir(a.path);
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        // Gone already, or not empty (something not ours is inside: a dir is removed only when empty): leave it.
        if (code !== "ENOENT" && code !== "ENOTEMPTY" && code !== "EEXIST") throw e;
      }
      // The per-run folder above a mount point (<mnt>/<run>/<server>) goes too once its last server's is gone.
      // Best effort: it stays while another server of the run still has its folder there (ENOTEMPTY), or is gone.
      if (dirname(dirname(a.path)) === MOUNT_ROOT) await rmdir(dirname(a.path)).catch(() => undefined);
      return;
    case "rm-tree":
      await rm(a.path, { recursive: true, force: true });
      return;
    case "volume-rm":
      try {
        await deps.engine.volumes.remove(a.name);
      } catch (e) {
        const status = (e as { statusCode?: number }).statusCode;
        if (status === 404) return;
        if (status === 409)
          throw new Error(`volume ${a.name} is still in use by a container (remove it first)`, { cause: e });
        throw e;
      }
      return;
  }
}
