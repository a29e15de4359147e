/**
 * The CPU and task sampling of one measured cell: which containers' accounting is read at sysbench's first and
 * per-second lines, and the figures over that window.
 */
import type { CellTasks } from "../../core/model/cell.ts";
import type { Interference } from "../../core/model/results.ts";
import { interferenceOf, type CpuSample } from "../../core/measure/interference.ts";
import { cpuSpeedOver } from "../../core/measure/speed.ts";
import { watchedCpus } from "./speed.ts";
import { ctxDelta, ioDelta, keepsThreads, type TaskCounters } from "../../core/measure/taskcounters.ts";
import type { RunContext } from "./context.ts";
import { isAbsence } from "./cell-outcome.ts";

/** A cell's sampler: fed sysbench's lines, it gives the interference, CPU and task figures of their window. */
export type InterferenceProbe = {
  created(id: string): void;
  /** A sysbench output line: its per-second sample's second, or null for any other line. */
  line(intervalT: number | null): void;
  result(): Interference | undefined;
  error(): string | undefined;
  /** The measured server's and this sidecar's CPU over the same window, in cores. */
  cpu(): { wallS: number; serverCores: number; loadCores: number } | undefined;
  /** Their context switches and the server's storage bytes over the same window; undefined without a task sampler. */
  tasks(): Omit<CellTasks, "blockDevice" | "storageKind"> | undefined;
  /** Why the task counters failed (a permission, a bug), if they did. */
  taskError(): string | undefined;
};

/**
 * Samples the machine's CPU accounting while sysbench runs (local engine, measured cells): at its first output
 * line (with a lead-in, workload.trim: at the per-second line that ends it) and at each per-second report, so the
 * window is sysbench's own run (or the figure's seconds), without the container's creation and
 * removal, and every container of the run (servers, this sidecar) still has its cgroup. With the speed probe
 * running (ctx.speed), the interference carries the speed of the server's `cpuset` over the same window.
 * Undefined when the run has no sampler or the engine is remote.
 */
export function interferenceProbe(
  ctx: RunContext,
  labContainers: () => string[],
  serverId: string | undefined,
  leadIn = 0,
  cpuset?: string,
): InterferenceProbe | undefined {
  const speedCpus = watchedCpus([cpuset]);
  const sample = ctx.deps.cpuSampler;
  const sampleTasks = ctx.deps.taskSampler;
  if (!sample || !ctx.engine.location().local) return undefined;
  let sidecarId: string | undefined;
  let first: CpuSample | undefined;
  let last: CpuSample | undefined;
  let broken = false;
  let failure: string | undefined;
  let taskFailure: string | undefined;
  type Tasks = { server: TaskCounters | null; load: TaskCounters | null };
  let firstTasks: Tasks | undefined;
  let lastTasks: Tasks | undefined;
  // Read with the CPU sample it goes with, so both cover one window. Absent counters are null (no figure); any
  // other failure stops the task figures and is said on the cell.
  const takeTasks = (): Tasks | undefined => {
    if (!sampleTasks || taskFailure || !serverId || !sidecarId) return undefined;
    try {
      return { server: sampleTasks(serverId), load: sampleTasks(sidecarId) };
    } catch (e) {
      taskFailure = `task counters failed: ${(e as Error).message}`;
      return undefined;
    }
  };
  // A sample counts only when every container's counter was readable: a line handled late (a busy machine) may
  // come after sysbench exited and its cgroup went away; the window then ends at the last complete sample.
  const take = () => {
    try {
      const s = sample([...labContainers(), ...(sidecarId ? [sidecarId] : [])]);
      return Object.values(s.containersNs).every((v) => v !== null) ? s : undefined;
    } catch (e) {
      // No /proc here (an engine on this machine's VM, e.g. Docker Desktop): the cell carries no interference.
      // Any other failure (a permission, a bug) is said on the cell, never read as absence.
      broken = true;
      if (!isAbsence(e)) failure = `CPU sampler failed: ${(e as Error).message}`;
      return undefined;
    }
  };
  // A later reading may end the window only if sysbench's threads are all still there (keepsThreads) and the
  // server's were readable; without a task sampler, or once it failed, the CPU sample alone decides.
  const tasksComplete = (prev: Tasks | undefined, next: Tasks | undefined): boolean => {
    if (!sampleTasks || taskFailure || !prev) return true;
    if (!next?.load || !next.server || !Object.keys(next.server.ctx).length) return false;
    return !prev.load || keepsThreads(prev.load, next.load);
  };
  return {
    created: (id) => (sidecarId = id),
    line: (t) => {
      if (broken) return;
      // A lead-in (workload.trim): the window starts at the per-second line that ends it, as the figure does.
      if (!first && leadIn > 0 && (t === null || t < leadIn)) return;
      const interval = t !== null;
      if (!first) {
        first = take();
        if (first) firstTasks = takeTasks();
      } else if (interval) {
        // Threads first, then the CPU counters: a sample whose container went away in between is not complete.
        const tasks = takeTasks();
        const s = take();
        if (s && tasksComplete(lastTasks ?? firstTasks, tasks)) {
          last = s;
          lastTasks = tasks;
        }
      }
    },
    result: () => {
      if (broken || !first || !last) return undefined;
      try {
        const i = interferenceOf(first, last);
        const speed = ctx.speed
          ? cpuSpeedOver(ctx.speed.samples(first.atMs, last.atMs), speedCpus, first.atMs, last.atMs)
          : null;
        return speed ? { ...i, cpuSpeed: speed } : i;
      } catch (e) {
        // An unreadable /proc/stat line: no figures rather than a failed cell, and the cell says why.
        failure = `CPU figures not computed: ${(e as Error).message}`;
        return undefined;
      }
    },
    error: () => failure,
    taskError: () => taskFailure,
    tasks: () => {
      if (broken || !first || !last || !firstTasks || !lastTasks || taskFailure) return undefined;
      const d = <T>(
        f: (a: TaskCounters, b: TaskCounters) => T | null,
        a: TaskCounters | null,
        b: TaskCounters | null,
      ) => (a && b ? f(a, b) : null);
      return {
        server: d(ctxDelta, firstTasks.server, lastTasks.server),
        load: d(ctxDelta, firstTasks.load, lastTasks.load),
        serverIo: d(ioDelta, firstTasks.server, lastTasks.server),
      };
    },
    cpu: () => {
      if (broken || !first || !last || !serverId || !sidecarId) return undefined;
      const wallS = (last.atMs - first.atMs) / 1000;
      const d = (id: string) => (last!.containersNs[id] ?? NaN) - (first!.containersNs[id] ?? NaN);
      const serverNs = d(serverId);
      const loadNs = d(sidecarId);
      // Too short a window, or a counter missing from a sample (taken before the sidecar existed): no figures.
      if (!(wallS >= 0.2) || !Number.isFinite(serverNs) || !Number.isFinite(loadNs)) return undefined;
      const r3 = (x: number) => Math.round(x * 1000) / 1000;
      return { wallS: r3(wallS), serverCores: r3(serverNs / 1e9 / wallS), loadCores: r3(loadNs / 1e9 / wallS) };
    },
  };
}
