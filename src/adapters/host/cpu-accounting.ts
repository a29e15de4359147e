/**
 * Reads this machine's CPU accounting for the interference figures (src/core/measure/interference.ts): /proc/stat,
 * /proc/pressure/cpu and the cgroup CPU counters of the run's containers. Local engine only: a remote engine's
 * containers are not visible here. Reads are synchronous and small (a few /proc and /sys files), so a sample can be
 * taken from inside a line callback at the exact moment the line arrives.
 */
import { readdirSync, readFileSync } from "node:fs";
import type { CpuSample, KernelThreadTicks } from "../../core/measure/interference.ts";
import { parseCpuStatUsageNs, parsePidStat } from "../../core/measure/interference.ts";

/**
 * Where a container's CPU counter lives, by cgroup layout: v1 with the cgroupfs driver (this project's machine:
 * cpuacct/docker/<id>), v1 with the systemd driver, v2 with either driver. The first readable one wins.
 */
function candidates(id: string): Array<{ path: string; unit: "ns" | "cpu.stat" }> {
  return [
    { path: `/sys/fs/cgroup/cpuacct/docker/${id}/cpuacct.usage`, unit: "ns" },
    { path: `/sys/fs/cgroup/cpu,cpuacct/docker/${id}/cpuacct.usage`, unit: "ns" },
    { path: `/sys/fs/cgroup/cpuacct/system.slice/docker-${id}.scope/cpuacct.usage`, unit: "ns" },
    { path: `/sys/fs/cgroup/cpu,cpuacct/system.slice/docker-${id}.scope/cpuacct.usage`, unit: "ns" },
    { path: `/sys/fs/cgroup/system.slice/docker-${id}.scope/cpu.stat`, unit: "cpu.stat" },
    { path: `/sys/fs/cgroup/docker/${id}/cpu.stat`, unit: "cpu.stat" },
  ];
}

/**
 * Error codes that mean the file is not there: no such path, a path through a non-directory, a process that
 * exited (ESRCH from /proc), an interface the kernel does not offer (EOPNOTSUPP: PSI switched off at boot).
 * Anything else (EACCES, EMFILE, EIO) is a failure, never read as absence.
 */
const ABSENT = new Set(["ENOENT", "ENOTDIR", "ESRCH", "EOPNOTSUPP"]);

/** Whether a read error means the file is absent (see {@link ABSENT}), not that the read failed. */
export function isAbsentFile(e: unknown): boolean {
  return ABSENT.has((e as NodeJS.ErrnoException | null)?.code ?? "");
}

export function readOrNull(path: string): string | null {
  try {
    return readFileSync(path, "utf8");
  } catch (e) {
    // Absent file only: the kernel has no such interface (PSI off), the container has no cgroup there, or the
    // process exited between the listing of /proc and this read. A failed read (EACCES, EMFILE, EIO) is thrown.
    if (isAbsentFile(e)) return null;
    throw e;
  }
}

/** CPU time of one container so far (ns), or null when none of the known cgroup layouts has it. */
export function containerCpuNs(id: string): number | null {
  for (const c of candidates(id)) {
    const text = readOrNull(c.path);
    if (text === null) continue;
    const v = c.unit === "ns" ? Number(text.trim()) : parseCpuStatUsageNs(text);
    if (v !== null && Number.isFinite(v)) return v;
  }
  return null;
}

/**
 * Every kernel thread's CPU time so far, by pid: /proc/<pid>/stat of each process (kernel threads are processes of
 * their own, so the thread lists need not be read). About 200 small reads on this project's VM; null when /proc
 * cannot be listed.
 */
export function kernelThreads(): Record<string, KernelThreadTicks> | null {
  let pids: string[];
  try {
    pids = readdirSync("/proc").filter((n) => /^\d+$/.test(n));
  } catch (e) {
    // No /proc to list (not Linux): no kernel-thread figure, and the outsiders keep the kernel's work as before.
    if (isAbsentFile(e)) return null;
    throw e;
  }
  const out: Record<string, KernelThreadTicks> = {};
  for (const pid of pids) {
    const text = readOrNull(`/proc/${pid}/stat`);
    const t = text === null ? null : parsePidStat(text);
    if (t?.kernel) out[pid] = { comm: t.comm, ticks: t.ticks };
  }
  return out;
}

/** One sample of the machine's CPU accounting with the given containers' counters. */
export function sampleCpu(containerIds: readonly string[]): CpuSample {
  const self = process.cpuUsage();
  const containersNs: Record<string, number | null> = {};
  for (const id of containerIds) containersNs[id] = containerCpuNs(id);
  return {
    atMs: performance.now(),
    procStat: readFileSync("/proc/stat", "utf8"),
    psiCpu: readOrNull("/proc/pressure/cpu"),
    containersNs,
    selfUs: self.user + self.system,
    kernelThreads: kernelThreads(),
  };
}
