/**
 * Host observations for storage, all through the injected Runner (so a fake runner can drive them in tests):
 * mounts, loop devices, md arrays, swaps, block device inspection, findmnt, tool lookup.
 */
import { access, constants } from "node:fs/promises";
import { realpathSync } from "node:fs";
import { delimiter, join } from "node:path";
import type { Runner } from "../host/runner.ts";
import {
  parseFindmntJson,
  parseLosetupJson,
  parseLsblkJson,
  parseMdstat,
  parseProcMounts,
  parseProcSwaps,
  parseWipefsJson,
  type FindmntEntry,
  type LoopEntry,
  type MdArray,
  type MountEntry,
} from "../../core/storage/parse.ts";
import type { DeviceObservation } from "../../core/storage/devices.ts";

export async function readMounts(runner: Runner): Promise<MountEntry[]> {
  const r = await runner.run("cat", ["/proc/mounts"]);
  return r.exitCode === 0 ? parseProcMounts(r.stdout) : [];
}

/** null when the kernel has no md driver (no /proc/mdstat). */
export async function readMd(runner: Runner): Promise<MdArray[] | null> {
  const r = await runner.run("cat", ["/proc/mdstat"]);
  return r.exitCode === 0 ? parseMdstat(r.stdout) : null;
}

export async function readLoops(runner: Runner): Promise<LoopEntry[]> {
  const r = await runner.run("losetup", ["-J", "-l"]);
  return r.exitCode === 0 ? parseLosetupJson(r.stdout) : [];
}

export async function readSwaps(runner: Runner): Promise<string[]> {
  const r = await runner.run("cat", ["/proc/swaps"]);
  return r.exitCode === 0 ? parseProcSwaps(r.stdout) : [];
}

/** Everything the device safety decision needs about one device. */
export async function inspectDevice(
  runner: Runner,
  device: string,
  shared?: { mounts: MountEntry[]; swaps: string[]; md: MdArray[] | null },
): Promise<DeviceObservation> {
  const ls = await runner.run("lsblk", ["-J", "-b", "-o", "NAME,PATH,TYPE,SIZE,FSTYPE,MOUNTPOINT", device]);
  const wf = ls.exitCode === 0 ? await runner.run("wipefs", ["-n", "-J", device]) : undefined;
  const lsblk = ls.exitCode === 0 ? parseLsblkJson(ls.stdout) : undefined;
  return {
    device,
    ...(lsblk ? { lsblk } : { lsblkError: ls.stderr || `lsblk exit code ${ls.exitCode}` }),
    signatures: wf && wf.exitCode === 0 ? parseWipefsJson(wf.stdout) : [],
    mounts: shared?.mounts ?? (await readMounts(runner)),
    swaps: shared?.swaps ?? (await readSwaps(runner)),
    md: shared ? shared.md : await readMd(runner),
  };
}

/** findmnt for the filesystem holding `path` (-T: the mount containing it). */
export async function findmnt(runner: Runner, path: string): Promise<FindmntEntry | undefined> {
  const r = await runner.run("findmnt", ["-J", "-b", "-T", path, "-o", "TARGET,SOURCE,FSTYPE,OPTIONS,SIZE,AVAIL"]);
  return r.exitCode === 0 ? parseFindmntJson(r.stdout) : undefined;
}

export async function blockSize(runner: Runner, device: string): Promise<number | undefined> {
  const r = await runner.run("lsblk", ["-b", "-d", "-n", "-o", "SIZE", device]);
  const n = Number(r.stdout.trim());
  return r.exitCode === 0 && Number.isFinite(n) && n > 0 ? n : undefined;
}

export async function exists(p: string): Promise<boolean> {
  try {
    await access(p, constants.F_OK);
    return true;
  } catch (e) {
    // Missing (ENOENT, or a path through a non-directory): not there. A failure (EACCES, EIO) is raised, never
    // read as "does not exist".
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return false;
    throw e;
  }
}

/** Whether `name` is an executable on PATH or in the sbin directories (root's tools live there). */
export async function findTool(name: string): Promise<boolean> {
  const dirs = [...(process.env.PATH ?? "").split(delimiter), "/usr/local/sbin", "/usr/sbin", "/sbin"].filter(Boolean);
  for (const d of new Set(dirs)) {
    try {
      await access(join(d, name), constants.X_OK);
      return true;
    } catch {
      // not in this directory: try the next
    }
  }
  return false;
}

/** The resolved path, or `p` itself when it cannot be resolved (yet): callers record both spellings anyway. */
export function safeRealpath(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p; // does not resolve (gone, or a dangling link): the given path is the best name there is
  }
}
