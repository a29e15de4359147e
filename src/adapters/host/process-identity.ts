/**
 * Who this process is, as other twinbench processes can judge it (src/core/base/labels.ts ownerStatus): pid, hostname,
 * the inode of its pid namespace, the kernel's boot id and its start time. And what /proc says about another pid.
 */
import { readFileSync, readlinkSync } from "node:fs";
import { hostname as osHostname } from "node:os";
import type { Owner, ProcessProbe } from "../../core/base/labels.ts";

/** `pid:[4026531836]` → `4026531836`; undefined when the link cannot be read (no /proc, or not Linux). */
export function readPidNamespace(link = "/proc/self/ns/pid"): string | undefined {
  let target: string;
  try {
    target = readlinkSync(link);
  } catch {
    return undefined; // not readable here: the namespace is unknown, so no owner on this machine can be judged dead
  }
  return /^pid:\[(\d+)\]$/.exec(target)?.[1];
}

/** The kernel's boot id; undefined when it cannot be read. */
export function readBootId(file = "/proc/sys/kernel/random/boot_id"): string | undefined {
  try {
    return readFileSync(file, "utf8").trim() || undefined;
  } catch {
    return undefined; // not readable here: the boot is unknown, so no owner on this machine can be judged dead
  }
}

/**
 * What /proc says about `pid`: running with its start time (field 22 of /proc/<pid>/stat), gone (ENOENT: no such
 * process in this namespace), or unreadable (any other error: the process may well run).
 */
export function probeProcess(pid: number, procRoot = "/proc"): ProcessProbe {
  let text: string;
  try {
    text = readFileSync(`${procRoot}/${pid}/stat`, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ESRCH") return { state: "gone" };
    return { state: "unreadable", reason: `${procRoot}/${pid}/stat: ${code ?? (e as Error).message}` };
  }
  const startTime = text.slice(text.lastIndexOf(")") + 2).split(" ")[19];
  return { state: "running", ...(startTime ? { startTime } : {}) };
}

let self: Owner | undefined;

/** This process as an owner (read once: none of it changes while the process lives). */
export function selfOwner(): Owner {
  if (!self) {
    const probe = probeProcess(process.pid);
    self = {
      pid: process.pid,
      hostname: osHostname(),
      pidNs: readPidNamespace(),
      bootId: readBootId(),
      ...(probe.state === "running" && probe.startTime ? { startTime: probe.startTime } : {}),
    };
  }
  return self;
}
