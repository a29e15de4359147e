/**
 * Storage state files and their replay. The adapter appends an entry the moment a resource exists (or, for names it
 * chose itself, just before creating it), so a killed run can be undone later. Replaying turns a state record plus
 * what the host shows now into an ordered list of undo actions, newest first, each guarded: twinbench only undoes
 * what the state lists and what still matches it (a mount with the recorded source, a loop device on the recorded
 * backing file, an md array with the recorded members, a volume with the run's label).
 */
import type { Storage } from "../model/scenario/schema.ts";
import type { LoopEntry, MdArray, MountEntry } from "./parse.ts";
import { safeComponent } from "./plan.ts";
import type { Owner } from "../base/labels.ts";

export type StateEntry =
  /** A directory twinbench created. `recursive`: it owns the contents too (the bind subdirectory). */
  | { type: "dir"; path: string; recursive: boolean }
  /** A loop backing file twinbench created. */
  | { type: "file"; path: string }
  | { type: "loop"; device: string; backingFile: string }
  | { type: "md"; device: string; members: string[] }
  /** btrfs filesystem spanning these devices (the kernel keeps them registered: forget them). */
  | { type: "btrfs"; devices: string[] }
  | { type: "mount"; target: string; sources: string[]; fsType: string }
  | { type: "volume"; name: string; keep: boolean };

export interface StorageStateRecord {
  version: 1;
  runId: string;
  serverId: string;
  sessionId: string;
  kind: Storage["kind"];
  /** The process that wrote it; records of old versions have no pid namespace or boot id (their owner is unknown). */
  owner: Owner;
  createdAt: string;
  /** Results folder of the run (its storage-state.json is kept in step with the global copy). */
  runDir?: string;
  /** In creation order. */
  entries: StateEntry[];
}

/** `<runDir>/storage-state.json`: every server of the run. */
export interface RunStorageState {
  version: 1;
  records: StorageStateRecord[];
}

export function upsertRecord(state: RunStorageState | undefined, rec: StorageStateRecord): RunStorageState {
  const records = (state?.records ?? []).filter((r) => !(r.runId === rec.runId && r.serverId === rec.serverId));
  return { version: 1, records: [...records, rec] };
}

export function removeRecord(state: RunStorageState | undefined, runId: string, serverId: string): RunStorageState {
  return { version: 1, records: (state?.records ?? []).filter((r) => !(r.runId === runId && r.serverId === serverId)) };
}

/** Validate a parsed state file; returns undefined for anything that is not one. */
export function readRecord(raw: unknown): StorageStateRecord | undefined {
  const r = raw as Partial<StorageStateRecord> | null;
  if (
    !r ||
    r.version !== 1 ||
    typeof r.runId !== "string" ||
    typeof r.serverId !== "string" ||
    !Array.isArray(r.entries)
  ) {
    return undefined;
  }
  return r as StorageStateRecord;
}

export function readRunState(raw: unknown): RunStorageState | undefined {
  const s = raw as Partial<RunStorageState> | null;
  if (!s || s.version !== 1 || !Array.isArray(s.records)) return undefined;
  return { version: 1, records: s.records.map(readRecord).filter((r): r is StorageStateRecord => !!r) };
}

/** What the host shows now. */
export interface Observed {
  mounts: MountEntry[];
  loops: LoopEntry[];
  /** null when the kernel has no md. */
  md: MdArray[] | null;
  /** Volumes that exist, with their labels (undefined: the engine was not asked). */
  volumes?: Record<string, Record<string, string>>;
}

export type CleanupOp =
  | { op: "umount"; target: string }
  | { op: "mdadm-stop"; device: string; members: string[] }
  | { op: "btrfs-forget"; devices: string[] }
  | { op: "losetup-detach"; device: string }
  | { op: "rm-file"; path: string }
  | { op: "rmdir"; path: string }
  | { op: "rm-tree"; path: string }
  | { op: "volume-rm"; name: string };

export interface CleanupStep {
  /** Index of the state entry this step undoes. */
  entry: number;
  /** undefined: nothing to do for this entry (see `note`). */
  action?: CleanupOp;
  note: string;
}

const base = (p: string) => p.replace(/^.*\//, "");
const under = (p: string, dir: string) => p === dir || p.startsWith(dir.replace(/\/+$/, "") + "/");

/**
 * The undo plan for one record, newest entry first. Entries whose resource is gone or no longer matches get a
 * step without an action and a note saying why.
 */
export function planCleanup(rec: StorageStateRecord, obs: Observed): CleanupStep[] {
  const steps: CleanupStep[] = [];
  // Mounts that will remain: those we will not unmount. Directories under them are never removed.
  const ourMounts = new Set<string>();
  for (const e of rec.entries) {
    if (e.type === "mount") {
      const m = mountAt(obs, e.target);
      if (m && mountMatches(m, e)) ourMounts.add(e.target);
    }
  }
  const foreignMountUnder = (dir: string) => obs.mounts.some((m) => under(m.target, dir) && !ourMounts.has(m.target));

  for (let i = rec.entries.length - 1; i >= 0; i--) {
    const e = rec.entries[i];
    switch (e.type) {
      case "mount": {
        const m = mountAt(obs, e.target);
        if (!m) steps.push({ entry: i, note: `${e.target} is not mounted` });
        else if (!mountMatches(m, e)) {
          steps.push({
            entry: i,
            note: `${e.target} now holds ${m.source} (${m.fsType}), not twinbench's ${e.sources[0]}: left alone`,
          });
        } else steps.push({ entry: i, action: { op: "umount", target: e.target }, note: `unmount ${e.target}` });
        break;
      }
      case "md": {
        if (obs.md === null) {
          steps.push({ entry: i, note: `no md driver: ${e.device} cannot exist` });
          break;
        }
        const want = e.members.map(base).sort().join(",");
        const a = obs.md.find((x) => [...x.members].sort().join(",") === want);
        if (!a) steps.push({ entry: i, note: `no md array over ${e.members.join(", ")}` });
        else
          steps.push({
            entry: i,
            action: { op: "mdadm-stop", device: `/dev/${a.name}`, members: e.members },
            note: `stop /dev/${a.name}`,
          });
        break;
      }
      case "btrfs":
        steps.push({
          entry: i,
          action: { op: "btrfs-forget", devices: e.devices },
          note: `forget btrfs devices ${e.devices.join(", ")}`,
        });
        break;
      case "loop": {
        const l = obs.loops.find((x) => x.device === e.device);
        if (!l) steps.push({ entry: i, note: `${e.device} is not attached` });
        else if (l.backingFile !== e.backingFile) {
          steps.push({ entry: i, note: `${e.device} now backs ${l.backingFile}, not ${e.backingFile}: left alone` });
        } else steps.push({ entry: i, action: { op: "losetup-detach", device: e.device }, note: `detach ${e.device}` });
        break;
      }
      case "file": {
        // A loop device attached after the file but before its state entry was written: detach it by backing file.
        const recorded = new Set(
          rec.entries.filter((x) => x.type === "loop").map((x) => (x as { device: string }).device),
        );
        for (const l of obs.loops) {
          if (l.backingFile === e.path && !recorded.has(l.device)) {
            steps.push({
              entry: i,
              action: { op: "losetup-detach", device: l.device },
              note: `detach ${l.device} (on ${e.path})`,
            });
          }
        }
        steps.push({ entry: i, action: { op: "rm-file", path: e.path }, note: `delete ${e.path}` });
        break;
      }
      case "dir": {
        if (foreignMountUnder(e.path)) {
          steps.push({ entry: i, note: `${e.path} has a mount twinbench does not own under it: left alone` });
        } else if (e.recursive)
          steps.push({ entry: i, action: { op: "rm-tree", path: e.path }, note: `delete ${e.path}` });
        else steps.push({ entry: i, action: { op: "rmdir", path: e.path }, note: `remove ${e.path} if empty` });
        break;
      }
      case "volume": {
        if (e.keep) {
          steps.push({ entry: i, note: `volume ${e.name} kept (keep: true)` });
          break;
        }
        const labels = obs.volumes?.[e.name];
        if (obs.volumes && !labels) steps.push({ entry: i, note: `volume ${e.name} is gone` });
        else if (labels && labels["twinbench.run"] !== rec.runId) {
          steps.push({ entry: i, note: `volume ${e.name} is not labelled with run ${rec.runId}: left alone` });
        } else steps.push({ entry: i, action: { op: "volume-rm", name: e.name }, note: `remove volume ${e.name}` });
        break;
      }
    }
  }
  return steps;
}

function mountAt(obs: Observed, target: string): MountEntry | undefined {
  // The last entry is the top of a stack of mounts on the same target.
  return [...obs.mounts].reverse().find((m) => m.target === target);
}

function mountMatches(m: MountEntry, e: { sources: string[]; fsType: string }): boolean {
  return e.sources.includes(m.source) && m.fsType === e.fsType;
}

/** Entries left after a cleanup: those whose steps did not all succeed. */
export function remainingEntries(rec: StorageStateRecord, failedEntries: Set<number>): StateEntry[] {
  return rec.entries.filter((_, i) => failedEntries.has(i));
}

/**
 * `clean --force`: what to undo without a (readable) state file, from the mount and loop tables alone. twinbench's
 * mounts are those under MOUNT_ROOT (`<root>/<run>/<server>`), its loop devices those whose backing file is named
 * `twinbench-<run>-<server>-<n>.img` and lies directly in one of `loopDirs` (the known loop dirs: a file of that
 * name anywhere else is not twinbench's to detach or delete); with `runId`, only that run's. Whatever a live run's record lists is kept.
 * Order: unmount (deepest first), stop md arrays over those loops, forget btrfs devices, detach, delete the
 * backing files, remove the emptied mount points.
 */
export function planForcedSweep(
  obs: Observed & { loopFiles?: string[] },
  opts: { mountRoot: string; loopDirs: readonly string[]; runId?: string; keep?: StorageStateRecord[] },
): Array<{ action: CleanupOp; note: string }> {
  const run = opts.runId !== undefined ? safeComponent(opts.runId) : undefined;
  const root = opts.mountRoot.replace(/\/+$/, "");
  const keptMounts = new Set<string>();
  const keptLoops = new Set<string>();
  for (const r of opts.keep ?? []) {
    for (const e of r.entries) {
      if (e.type === "mount") keptMounts.add(e.target);
      if (e.type === "loop") keptLoops.add(e.device);
    }
  }
  const ours = (target: string) =>
    (run ? under(target, `${root}/${run}`) : target.startsWith(`${root}/`)) && !keptMounts.has(target);
  const loopName = (file: string) => base(file.replace(/ \(deleted\)$/, ""));
  const loopDirs = new Set(opts.loopDirs.map((d) => d.replace(/\/+$/, "")));
  const ourFile = (file: string) => {
    const path = file.replace(/ \(deleted\)$/, "");
    const n = loopName(path);
    return (
      loopDirs.has(path.slice(0, path.length - n.length - 1)) &&
      n.endsWith(".img") &&
      n.startsWith(run ? `twinbench-${run}-` : "twinbench-")
    );
  };
  const steps: Array<{ action: CleanupOp; note: string }> = [];
  const mounts = [...new Set(obs.mounts.filter((m) => ours(m.target)).map((m) => m.target))].sort(
    (a, b) => b.length - a.length,
  );
  for (const t of mounts)
    steps.push({ action: { op: "umount", target: t }, note: `unmount ${t} (found in the mount table)` });
  const loops = obs.loops.filter((l) => ourFile(l.backingFile) && !keptLoops.has(l.device));
  const loopBases = new Set(loops.map((l) => base(l.device)));
  for (const a of obs.md ?? []) {
    if (a.members.length > 0 && a.members.every((m) => loopBases.has(base(m)))) {
      steps.push({
        action: { op: "mdadm-stop", device: `/dev/${a.name}`, members: a.members.map((m) => `/dev/${base(m)}`) },
        note: `stop /dev/${a.name} (over twinbench loop devices)`,
      });
    }
  }
  if (loops.length > 0)
    steps.push({
      action: { op: "btrfs-forget", devices: loops.map((l) => l.device) },
      note: `forget btrfs devices ${loops.map((l) => l.device).join(", ")}`,
    });
  for (const l of loops)
    steps.push({
      action: { op: "losetup-detach", device: l.device },
      note: `detach ${l.device} (on ${l.backingFile})`,
    });
  const files = new Set([
    ...loops.map((l) => l.backingFile.replace(/ \(deleted\)$/, "")),
    ...(obs.loopFiles ?? []).filter(ourFile),
  ]);
  const keptFiles = new Set(obs.loops.filter((l) => keptLoops.has(l.device)).map((l) => l.backingFile));
  for (const f of [...files].filter((x) => !keptFiles.has(x)).sort())
    steps.push({ action: { op: "rm-file", path: f }, note: `delete ${f}` });
  for (const t of mounts) steps.push({ action: { op: "rmdir", path: t }, note: `remove ${t} if empty` });
  return steps;
}
