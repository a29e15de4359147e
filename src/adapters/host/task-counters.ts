/**
 * Reads a container's task counters on this machine (src/core/taskcounters.ts): the context switches of every thread
 * in its cgroup (/proc/<tid>/status) and its block I/O bytes (blkio cgroup), and whether the host can count hardware
 * events (its PMU and `perf stat`). Local engine only, like src/adapters/host/cpu-accounting.ts; reads are
 * synchronous and small so a sample can be taken inside a sysbench line callback.
 */
import { existsSync, readFileSync } from "node:fs";
import { hardwareCountersOf, parseBlkioServiceBytes, parseCtxSwitches, parseIoStat, type HardwareCounters, type TaskCounters } from "../../core/taskcounters.ts";
import type { Runner } from "./runner.ts";

/** The cgroup of a container's threads and of its block I/O, by layout (v1 cgroupfs, v1 systemd, v2 either). */
function layouts(id: string): Array<{ threads: string; io: string; v2: boolean }> {
  return [
    { threads: `/sys/fs/cgroup/cpuacct/docker/${id}/tasks`, io: `/sys/fs/cgroup/blkio/docker/${id}/blkio.throttle.io_service_bytes`, v2: false },
    { threads: `/sys/fs/cgroup/cpu,cpuacct/docker/${id}/tasks`, io: `/sys/fs/cgroup/blkio/docker/${id}/blkio.throttle.io_service_bytes`, v2: false },
    { threads: `/sys/fs/cgroup/cpuacct/system.slice/docker-${id}.scope/tasks`, io: `/sys/fs/cgroup/blkio/system.slice/docker-${id}.scope/blkio.throttle.io_service_bytes`, v2: false },
    { threads: `/sys/fs/cgroup/system.slice/docker-${id}.scope/cgroup.threads`, io: `/sys/fs/cgroup/system.slice/docker-${id}.scope/io.stat`, v2: true },
    { threads: `/sys/fs/cgroup/docker/${id}/cgroup.threads`, io: `/sys/fs/cgroup/docker/${id}/io.stat`, v2: true },
  ];
}

const absent = (e: unknown) => {
  const code = (e as NodeJS.ErrnoException | null)?.code;
  return code === "ENOENT" || code === "ENOTDIR" || code === "ESRCH";
};

/** A file's text, or null when it is not there; any other failure (a permission) is thrown, not read as absence. */
function readIfThere(path: string): string | null {
  try {
    return readFileSync(path, "utf8");
  } catch (e) {
    if (absent(e)) return null;
    throw e;
  }
}

/**
 * One container's counters now, or null when none of the known cgroup layouts has it (the container is gone, or
 * this machine is not where its engine runs). A thread that ends between the list and its status file is left out.
 */
export function readTaskCounters(id: string): TaskCounters | null {
  for (const l of layouts(id)) {
    const list = readIfThere(l.threads);
    if (list === null) continue;
    const ctx: TaskCounters["ctx"] = {};
    for (const tid of list.split("\n").map((s) => s.trim()).filter(Boolean)) {
      const status = readIfThere(`/proc/${tid}/status`);
      const c = status === null ? null : parseCtxSwitches(status);
      if (c) ctx[tid] = c;
    }
    const ioText = readIfThere(l.io);
    const io = ioText === null ? null : l.v2 ? parseIoStat(ioText) : parseBlkioServiceBytes(ioText);
    return { ctx, io };
  }
  return null;
}

/** The kernel's CPU PMU devices (cpu; cpu_core and cpu_atom on hybrid Intel CPUs). */
const PMU_DEVICES = ["/sys/bus/event_source/devices/cpu", "/sys/bus/event_source/devices/cpu_core", "/sys/bus/event_source/devices/cpu_atom"];

/**
 * Whether this host counts hardware events: a CPU PMU in sysfs, then `perf stat -x,` of the events on `true` (a VM
 * without a PMU has neither; a host with one may still refuse through perf_event_paranoid, which perf then says).
 */
export async function detectHardwareCounters(runner: Runner): Promise<HardwareCounters> {
  const pmu = PMU_DEVICES.some((p) => existsSync(p));
  if (!pmu) return hardwareCountersOf({ pmu, perfOutput: null });
  const r = await runner.run("perf", ["stat", "-x,", "-e", "instructions,cycles,LLC-load-misses", "--", "true"], { timeoutMs: 10_000 });
  // exit 127: perf is not installed (the runner's "cannot start"); any other outcome is perf's own word on stderr.
  return hardwareCountersOf({ pmu, perfOutput: r.exitCode === 127 ? null : r.stderr });
}
