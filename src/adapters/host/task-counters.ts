/**
 * Reads a container's task counters on this machine (src/core/measure/taskcounters.ts): the context switches of every thread
 * in its cgroup (/proc/<tid>/status) and the storage bytes of every process in it (/proc/<pid>/io), and whether the host can count hardware
 * events (its PMU and `perf stat`). Local engine only, like src/adapters/host/cpu-accounting.ts; reads are
 * synchronous and small so a sample can be taken inside a sysbench line callback.
 */
import { existsSync, readFileSync } from "node:fs";
import {
  hardwareCountersOf,
  parseCtxSwitches,
  parseProcIo,
  type HardwareCounters,
  type TaskCounters,
} from "../../core/measure/taskcounters.ts";
import type { Runner } from "./runner.ts";

/** A container's cgroup folder by layout (v1 cgroupfs, v1 systemd, v2 either), with its thread list's file name. */
function layouts(id: string): Array<{ dir: string; threads: string }> {
  return [
    { dir: `/sys/fs/cgroup/cpuacct/docker/${id}`, threads: "tasks" },
    { dir: `/sys/fs/cgroup/cpu,cpuacct/docker/${id}`, threads: "tasks" },
    { dir: `/sys/fs/cgroup/cpuacct/system.slice/docker-${id}.scope`, threads: "tasks" },
    { dir: `/sys/fs/cgroup/system.slice/docker-${id}.scope`, threads: "cgroup.threads" },
    { dir: `/sys/fs/cgroup/docker/${id}`, threads: "cgroup.threads" },
  ];
}

const ids = (text: string) =>
  text
    .split("\n")
    .map((s) => s.trim())
    .filter(Boolean);

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
    const threads = readIfThere(`${l.dir}/${l.threads}`);
    if (threads === null) continue;
    const ctx: TaskCounters["ctx"] = {};
    for (const tid of ids(threads)) {
      const status = readIfThere(`/proc/${tid}/status`);
      const c = status === null ? null : parseCtxSwitches(status);
      if (c) ctx[tid] = c;
    }
    const io: TaskCounters["io"] = {};
    for (const pid of ids(readIfThere(`${l.dir}/cgroup.procs`) ?? "")) {
      const text = readIfThere(`/proc/${pid}/io`);
      const b = text === null ? null : parseProcIo(text);
      if (b) io[pid] = b;
    }
    return { ctx, io };
  }
  return null;
}

/** The kernel's CPU PMU devices (cpu; cpu_core and cpu_atom on hybrid Intel CPUs). */
const PMU_DEVICES = [
  "/sys/bus/event_source/devices/cpu",
  "/sys/bus/event_source/devices/cpu_core",
  "/sys/bus/event_source/devices/cpu_atom",
];

/**
 * Whether this host counts hardware events: a CPU PMU in sysfs, then `perf stat -x,` of the events on `true` (a VM
 * without a PMU has neither; a host with one may still refuse through perf_event_paranoid, which perf then says).
 */
export async function detectHardwareCounters(runner: Runner): Promise<HardwareCounters> {
  const pmu = PMU_DEVICES.some((p) => existsSync(p));
  if (!pmu) return hardwareCountersOf({ pmu, perfOutput: null });
  const r = await runner.run("perf", ["stat", "-x,", "-e", "instructions,cycles,LLC-load-misses", "--", "true"], {
    timeoutMs: 10_000,
  });
  // exit 127: perf is not installed (the runner's "cannot start"); any other outcome is perf's own word on stderr.
  return hardwareCountersOf({ pmu, perfOutput: r.exitCode === 127 ? null : r.stderr });
}
