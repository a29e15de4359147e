/**
 * Storage spec → a concrete plan: sizes in bytes, names of the volume / directories / backing files, which RAID
 * builder to use. Pure; the adapter (src/adapters/storage) carries it out.
 *
 * Decisions:
 * - raid0 uses mdadm where the kernel has md (/proc/mdstat exists), fs defaulting to xfs. Without md it falls back
 *   to btrfs native RAID 0, and then fs must be btrfs: asking for xfs or ext4 there is an error (RAID_FS_NEEDS_MD),
 *   not a silent switch, because the filesystem is part of what is being measured.
 * - btrfs stripes at a fixed 64 KiB (BTRFS_STRIPE_LEN); a different `chunk` with btrfs is an error.
 * - bind always uses a fresh subdirectory `<path>/twinbench-<run>-<server>`: the same `storage` applies to every
 *   server, so they can never share the directory itself. Only that subdirectory is ever deleted.
 * - The data dir inside a RAID filesystem is `<mountpoint>/data`, so ext4's lost+found never reaches mysqld
 *   (`--initialize` refuses a non-empty data dir).
 */
import { InputError, type ErrorCode } from "../base/errors.ts";
import { parseSize, type Storage } from "../model/scenario/schema.ts";
import { withPackages, type StorageTool, type ToolPackage } from "./tools.ts";

export const DATA_TARGET = "/var/lib/mysql";
export const TWINBENCH_ROOT = "/var/lib/twinbench";
export const DEFAULT_LOOP_DIR = `${TWINBENCH_ROOT}/loop`;
export const MOUNT_ROOT = `${TWINBENCH_ROOT}/mnt`;
export const GLOBAL_STATE_DIR = `${TWINBENCH_ROOT}/state`;
export const BTRFS_STRIPE_BYTES = 64 * 1024;
export const MDADM_DEFAULT_CHUNK_BYTES = 512 * 1024;
/** mkfs.btrfs refuses tiny devices; xfsprogs ≥ 5.19 refuses filesystems under 300 MB. */
export const MIN_BTRFS_MEMBER_BYTES = 128 * 2 ** 20;
export const MIN_XFS_BYTES = 300 * 10 ** 6;
export const MIN_TMPFS_BYTES = 16 * 2 ** 20;

export type RaidBuilder = "mdadm" | "btrfs";
export type RaidFs = "xfs" | "ext4" | "btrfs";

export interface PlanContext {
  runId: string;
  serverId: string;
  uid: number;
  gid: number;
  /** The kernel has md (/proc/mdstat exists). */
  hasMd: boolean;
}

export interface TmpfsPlan {
  kind: "tmpfs";
  sizeBytes: number;
  volumeName: string;
  /** Options of the local volume driver: a dedicated tmpfs mount, never /dev/shm. */
  driverOptions: Record<string, string>;
}
export interface VolumePlan {
  kind: "volume";
  keep: boolean;
  volumeName: string;
}
export interface BindPlan {
  kind: "bind";
  basePath: string;
  /** The subdirectory twinbench creates, uses and later deletes. */
  dir: string;
}
export interface RaidMemberPlan {
  /** Real device (`devices:`); loop members get theirs from losetup. */
  device?: string;
  /** Sparse backing file (`loop:`). */
  backingFile?: string;
}
export interface Raid0Plan {
  kind: "raid0";
  builder: RaidBuilder;
  fs: RaidFs;
  /** Chunk (stripe unit) in bytes. */
  chunkBytes: number;
  loop?: { dir: string; memberBytes: number };
  members: RaidMemberPlan[];
  /** md array name (mdadm only): /dev/md/<name>. */
  mdName?: string;
  label: string;
  mountPoint: string;
  /** Bound into the container as the data dir. */
  dataDir: string;
}
export type StoragePlan = TmpfsPlan | VolumePlan | BindPlan | Raid0Plan;

/**
 * A path component made of safe characters only, never `.`, `..` or empty: leading dots become `_`, so a component
 * can never name the folder it is in or the one above it.
 */
export function safeComponent(s: string): string {
  const safe = s.replace(/[^a-zA-Z0-9_.-]/g, "_").replace(/^\.+/, (dots) => "_".repeat(dots.length));
  return safe === "" ? "_" : safe;
}

/** FNV-1a, 32 bit, as 8 hex digits: short stable names (md array names are limited to 32 characters). */
export function shortHash(s: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, "0");
}

import { formatBytes } from "../base/units.ts";

function joinPath(a: string, b: string): string {
  return `${a.replace(/\/+$/, "")}/${b}`;
}

function sizeOf(v: string | number, path: string): number {
  const n = parseSize(v);
  if (n === undefined) {
    throw new InputError(`${path}: ${JSON.stringify(v)} is not a size`, {
      code: "STORAGE_BAD_SIZE",
      hint: 'write a size like "2g", "512m" or a number of bytes',
    });
  }
  return n;
}

function bad(message: string, code: ErrorCode, hint: string, path = "storage"): InputError {
  return new InputError(`${path}: ${message}`, { code, hint });
}

/** Validate a storage spec and work out everything to create. Throws InputError naming the offending value. */
export function planStorage(spec: Storage, ctx: PlanContext): { plan: StoragePlan; warnings: string[] } {
  const warnings: string[] = [];
  const base = `twinbench-${safeComponent(ctx.runId)}-${safeComponent(ctx.serverId)}`;
  switch (spec.kind) {
    case "tmpfs": {
      const sizeBytes = sizeOf(spec.size, "storage.size");
      if (sizeBytes < MIN_TMPFS_BYTES) {
        throw bad(
          `size ${formatBytes(sizeBytes)} is too small for a data dir`,
          "STORAGE_TMPFS_TOO_SMALL",
          `use at least ${formatBytes(MIN_TMPFS_BYTES)} (a sysbench data dir with redo logs needs hundreds of MiB)`,
          "storage.size",
        );
      }
      return {
        plan: {
          kind: "tmpfs",
          sizeBytes,
          volumeName: `${base}-tmpfs`,
          driverOptions: {
            type: "tmpfs",
            device: "tmpfs",
            o: `size=${sizeBytes},uid=${ctx.uid},gid=${ctx.gid},mode=0750`,
          },
        },
        warnings,
      };
    }
    case "volume":
      return { plan: { kind: "volume", keep: spec.keep, volumeName: `${base}-data` }, warnings };
    case "bind": {
      if (!spec.path.startsWith("/")) {
        throw bad(
          `path ${JSON.stringify(spec.path)} is not absolute`,
          "STORAGE_BIND_RELATIVE",
          "write the host directory as an absolute path, e.g. /mnt/array",
          "storage.path",
        );
      }
      const basePath = spec.path.replace(/\/+$/, "") || "/";
      return { plan: { kind: "bind", basePath, dir: joinPath(basePath, base) }, warnings };
    }
    case "raid0":
      return planRaid0(spec, ctx, base, warnings);
  }
}

function planRaid0(
  spec: Extract<Storage, { kind: "raid0" }>,
  ctx: PlanContext,
  base: string,
  warnings: string[],
): { plan: Raid0Plan; warnings: string[] } {
  if ((spec.devices === undefined) === (spec.loop === undefined)) {
    throw bad(
      "raid0 needs exactly one of `devices` and `loop`",
      "STORAGE_RAID_MEMBERS",
      "give `devices: [/dev/sdX, /dev/sdY]` for real disks or `loop: {members: 2, size: 4g}` to try it on files",
    );
  }
  const builder: RaidBuilder = ctx.hasMd ? "mdadm" : "btrfs";
  const fs: RaidFs = spec.fs ?? (builder === "mdadm" ? "xfs" : "btrfs");
  if (builder === "btrfs" && fs !== "btrfs") {
    throw bad(
      `fs ${fs} needs an md array, but this kernel has no md driver (/proc/mdstat is missing)`,
      "RAID_FS_NEEDS_MD",
      "drop `fs` (or set fs: btrfs) to use btrfs native RAID 0, or run on a host whose kernel has md (modprobe md_mod raid0)",
      "storage.fs",
    );
  }
  let chunkBytes = builder === "btrfs" ? BTRFS_STRIPE_BYTES : MDADM_DEFAULT_CHUNK_BYTES;
  if (spec.chunk !== undefined) {
    const c = sizeOf(spec.chunk, "storage.chunk");
    if (builder === "btrfs" && c !== BTRFS_STRIPE_BYTES) {
      throw bad(
        `chunk ${formatBytes(c)} is not possible with btrfs RAID 0, which always stripes at 64 KiB`,
        "RAID_CHUNK_BTRFS",
        "drop `chunk` or set chunk: 64k (other chunk sizes need mdadm, i.e. a kernel with md)",
        "storage.chunk",
      );
    }
    if (builder === "mdadm" && (c < 4096 || (c & (c - 1)) !== 0)) {
      throw bad(
        `chunk ${formatBytes(c)} must be a power of two of at least 4 KiB`,
        "RAID_CHUNK_INVALID",
        "use e.g. 64k, 256k or 512k (mdadm's default)",
        "storage.chunk",
      );
    }
    chunkBytes = c;
  }

  let members: RaidMemberPlan[];
  let loop: Raid0Plan["loop"];
  if (spec.devices) {
    const seen = new Set<string>();
    for (const [i, d] of spec.devices.entries()) {
      if (seen.has(d)) {
        throw bad(
          `device ${d} is listed twice`,
          "RAID_DEVICE_DUPLICATE",
          "list each member device once",
          `storage.devices.${i}`,
        );
      }
      seen.add(d);
    }
    members = spec.devices.map((device) => ({ device }));
  } else {
    const l = spec.loop!;
    const memberBytes = sizeOf(l.size, "storage.loop.size");
    const dir = (l.dir ?? DEFAULT_LOOP_DIR).replace(/\/+$/, "");
    if (!dir.startsWith("/")) {
      throw bad(
        `dir ${JSON.stringify(l.dir)} is not absolute`,
        "STORAGE_LOOP_DIR_RELATIVE",
        `write an absolute directory for the backing files (default ${DEFAULT_LOOP_DIR})`,
        "storage.loop.dir",
      );
    }
    if (fs === "btrfs" && memberBytes < MIN_BTRFS_MEMBER_BYTES) {
      throw bad(
        `size ${formatBytes(memberBytes)} per member is too small for btrfs`,
        "RAID_MEMBER_TOO_SMALL",
        `use at least ${formatBytes(MIN_BTRFS_MEMBER_BYTES)} per member`,
        "storage.loop.size",
      );
    }
    if (fs === "xfs" && memberBytes * l.members < MIN_XFS_BYTES) {
      throw bad(
        `${l.members} × ${formatBytes(memberBytes)} is too small for xfs (300 MB minimum)`,
        "RAID_MEMBER_TOO_SMALL",
        "raise loop.size",
        "storage.loop.size",
      );
    }
    loop = { dir, memberBytes };
    members = Array.from({ length: l.members }, (_, i) => ({ backingFile: `${dir}/${base}-${i}.img` }));
  }
  const mountPoint = `${MOUNT_ROOT}/${safeComponent(ctx.runId)}/${safeComponent(ctx.serverId)}`;
  return {
    plan: {
      kind: "raid0",
      builder,
      fs,
      chunkBytes,
      ...(loop ? { loop } : {}),
      members,
      ...(builder === "mdadm" ? { mdName: `tb${shortHash(base)}` } : {}),
      label: `tb${shortHash(base)}`,
      mountPoint,
      dataDir: `${mountPoint}/data`,
    },
    warnings,
  };
}

/** Host tools a plan needs, with the Debian package that ships each. */
export function requiredTools(plan: StoragePlan): ToolPackage[] {
  if (plan.kind !== "raid0") return [];
  const t: StorageTool[] = ["mount", "umount", "findmnt", "lsblk", "wipefs"];
  if (plan.loop) t.push("losetup");
  if (plan.builder === "mdadm") t.push("mdadm");
  if (plan.fs === "btrfs") t.push("mkfs.btrfs", "btrfs");
  if (plan.fs === "xfs") t.push("mkfs.xfs");
  if (plan.fs === "ext4") t.push("mkfs.ext4");
  return withPackages(t);
}

/**
 * Warnings for a tmpfs data dir. tmpfs pages are charged to the memory cgroup of the container that writes them, so
 * data + buffer pool must fit under the container's limit (and in the host's RAM).
 */
export function tmpfsMemoryWarnings(n: {
  tmpfsBytes: number;
  bufferPoolBytes?: number;
  memoryLimitBytes?: number;
  hostMemoryBytes?: number;
}): string[] {
  const out: string[] = [];
  const bp = n.bufferPoolBytes ?? 0;
  const need = n.tmpfsBytes + bp;
  const what =
    bp > 0
      ? `tmpfs size ${formatBytes(n.tmpfsBytes)} + buffer pool ${formatBytes(bp)} = ${formatBytes(need)}`
      : `tmpfs size ${formatBytes(n.tmpfsBytes)}`;
  if (n.memoryLimitBytes !== undefined && n.memoryLimitBytes > 0 && need > n.memoryLimitBytes) {
    out.push(
      `${what} exceeds the container memory limit ${formatBytes(n.memoryLimitBytes)}: tmpfs pages count ` +
        `against the container's memory, so the server can be OOM-killed once the data dir fills up`,
    );
  }
  if (n.hostMemoryBytes !== undefined && n.hostMemoryBytes > 0 && need > n.hostMemoryBytes) {
    out.push(`${what} exceeds the engine host's memory ${formatBytes(n.hostMemoryBytes)}`);
  }
  return out;
}

/** Warning when sparse loop backing files could outgrow the free space of their directory. */
export function loopSpaceWarnings(n: { dir: string; totalBytes: number; freeBytes?: number }): string[] {
  if (n.freeBytes === undefined || n.totalBytes <= n.freeBytes) return [];
  return [
    `loop backing files in ${n.dir} may grow to ${formatBytes(n.totalBytes)} but only ` +
      `${formatBytes(n.freeBytes)} is free there: writes could fail with ENOSPC mid-run`,
  ];
}
