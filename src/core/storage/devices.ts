/**
 * Device safety: decide from command output whether a real block device may become a RAID member.
 *
 * - Never overridable: not a block device, size 0, mounted (itself or a partition), active swap, in use by a
 *   holder (md array, device-mapper/LVM, crypt: lsblk lists holders as children), member of an md array.
 *   `--wipe-devices` cannot make those safe, and mkfs/mdadm would fail on them anyway.
 * - Overridable with `--wipe-devices`: filesystem, RAID or partition-table signatures (`wipefs -n`), partitions
 *   that are not in use.
 */
import { TwinbenchError } from "../base/errors.ts";
import type { LsblkNode, MdArray, MountEntry, Signature } from "./parse.ts";

export interface DeviceObservation {
  device: string;
  /** undefined when lsblk failed (not a block device, does not exist). */
  lsblk?: LsblkNode;
  lsblkError?: string;
  signatures: Signature[];
  mounts: MountEntry[];
  swaps: string[];
  /** null when the kernel has no md. */
  md: MdArray[] | null;
}

export interface DeviceFindings {
  device: string;
  sizeBytes?: number;
  /** Problems --wipe-devices cannot fix. */
  refuse: string[];
  /** Problems --wipe-devices overrides (signatures that will be erased). */
  wipeable: string[];
}

const base = (p: string) => p.replace(/^.*\//, "");

export function assessDevice(obs: DeviceObservation): DeviceFindings {
  const refuse: string[] = [];
  const wipeable: string[] = [];
  const node = obs.lsblk;
  if (!node) {
    refuse.push(`not a block device${obs.lsblkError ? ` (${obs.lsblkError.trim().split("\n")[0]})` : ""}`);
    return { device: obs.device, refuse, wipeable };
  }
  if (!node.sizeBytes) refuse.push("size 0 (a detached loop device or an empty drive?)");

  const names = new Set<string>([obs.device, node.path ?? "", `/dev/${node.name}`].filter(Boolean));
  const walk = (n: LsblkNode, depth: number) => {
    const p = n.path ?? `/dev/${n.name}`;
    if (n.mountpoint) refuse.push(depth === 0 ? `mounted at ${n.mountpoint}` : `${p} is mounted at ${n.mountpoint}`);
    if (depth > 0) {
      if (n.type === "part") {
        wipeable.push(`partition ${p}${n.fsType ? ` (${n.fsType})` : ""}`);
      } else {
        refuse.push(`in use by ${p} (${n.type})`);
      }
    }
    for (const c of n.children) walk(c, depth + 1);
  };
  walk(node, 0);

  for (const m of obs.mounts) {
    if (names.has(m.source) && !refuse.some((r) => r.includes(m.target)))
      refuse.push(`mounted at ${m.target} (${m.fsType})`);
  }
  for (const s of obs.swaps) if (names.has(s)) refuse.push("active swap");
  for (const a of obs.md ?? []) {
    if (a.members.includes(node.name) || a.members.includes(base(obs.device)))
      refuse.push(`member of md array /dev/${a.name}`);
  }
  for (const s of obs.signatures) {
    wipeable.push(`${s.type} signature at offset ${s.offset}${s.label ? ` (label ${JSON.stringify(s.label)})` : ""}`);
  }
  return {
    device: obs.device,
    ...(node.sizeBytes !== undefined ? { sizeBytes: node.sizeBytes } : {}),
    refuse: dedupe(refuse),
    wipeable: dedupe(wipeable),
  };
}

function dedupe(xs: string[]): string[] {
  return [...new Set(xs)];
}

/**
 * Throws when any device may not be used. Returns the devices to wipe first (those with signatures, when
 * `wipeDevices`).
 */
export function decideDevices(findings: DeviceFindings[], wipeDevices: boolean): { wipe: string[] } {
  const refused = findings.filter((f) => f.refuse.length > 0);
  if (refused.length > 0) {
    throw new TwinbenchError(
      `refusing to use ${refused.map((f) => `${f.device} (${f.refuse.join("; ")})`).join(", ")}`,
      {
        code: "DEVICE_IN_USE",
        hint:
          "free the device first (umount, swapoff, mdadm --stop, remove its holders) or choose another one; " +
          "--wipe-devices does not override a device in use",
        details: refused.flatMap((f) => [...f.refuse, ...f.wipeable].map((p) => `${f.device}: ${p}`)),
      },
    );
  }
  const dirty = findings.filter((f) => f.wipeable.length > 0);
  if (dirty.length > 0 && !wipeDevices) {
    throw new TwinbenchError(
      `refusing to overwrite ${dirty.map((f) => `${f.device} (${f.wipeable.join("; ")})`).join(", ")}`,
      {
        code: "DEVICE_HAS_DATA",
        hint: "these devices hold data; pass --wipe-devices to erase them (everything on them is lost)",
        details: dirty.flatMap((f) => f.wipeable.map((p) => `${f.device}: ${p}`)),
      },
    );
  }
  return { wipe: dirty.map((f) => f.device) };
}
