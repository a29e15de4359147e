/**
 * A container's task counters, pure: context switches from /proc/<tid>/status of every thread in
 * its cgroup, storage bytes from /proc/<pid>/io of every process in it, and the hardware counters' check from
 * `perf stat -x,`. Not the blkio cgroup: on this project's machine (kernel 6.18, cgroup v1) its
 * blkio.throttle.io_service_bytes stayed "Total 0" for a container's direct and fsynced writes alike (tried by hand),
 * while /proc/<pid>/io counted them. The adapter (src/adapters/host/task-counters.ts) reads
 * the files; this module parses them and takes the differences over a cell.
 */

/** One container's counters at one moment. */
export interface TaskCounters {
  /** Per thread id: [voluntary, involuntary] context switches so far. Empty when no thread could be read. */
  ctx: Record<string, [number, number]>;
  /** Per process id: bytes it caused to be read from and written to storage so far (/proc/<pid>/io). */
  io: Record<string, { read: number; write: number }>;
}

/** `voluntary_ctxt_switches` and `nonvoluntary_ctxt_switches` of a /proc/<tid>/status text; null without them. */
export function parseCtxSwitches(status: string): [number, number] | null {
  const v = /^voluntary_ctxt_switches:\s*(\d+)\s*$/m.exec(status);
  const n = /^nonvoluntary_ctxt_switches:\s*(\d+)\s*$/m.exec(status);
  return v && n ? [Number(v[1]), Number(n[1])] : null;
}

/**
 * `read_bytes` and `write_bytes` of a /proc/<pid>/io text: what the process (all its threads, live and ended) caused
 * to be read from or sent to the storage layer. Writes count when a page is dirtied (buffered) or submitted (direct
 * I/O), so a page written twice before writeback counts twice, and a tmpfs page never does (it has no writeback).
 * Null without the two lines.
 */
export function parseProcIo(text: string): { read: number; write: number } | null {
  const r = /^read_bytes:\s*(\d+)\s*$/m.exec(text);
  const w = /^write_bytes:\s*(\d+)\s*$/m.exec(text);
  return r && w ? { read: Number(r[1]), write: Number(w[1]) } : null;
}

/**
 * Context switches between two readings: over the threads of the later one, its count less the earlier one's (0
 * for a thread started in between). A thread that ended in between takes its switches with it (the cell's server
 * and sysbench threads live through the window); a count that went down (a thread id reused) counts from zero.
 * Null when either reading has no thread.
 */
export function ctxDelta(a: TaskCounters, b: TaskCounters): { voluntary: number; involuntary: number } | null {
  if (!Object.keys(a.ctx).length || !Object.keys(b.ctx).length) return null;
  let voluntary = 0;
  let involuntary = 0;
  for (const [tid, [v1, n1]] of Object.entries(b.ctx)) {
    const [v0, n0] = a.ctx[tid] ?? [0, 0];
    voluntary += v1 >= v0 ? v1 - v0 : v1;
    involuntary += n1 >= n0 ? n1 - n0 : n1;
  }
  return { voluntary, involuntary };
}

/**
 * Whether a later reading of a container's threads may end a cell's window after an earlier accepted one: it has
 * threads, and every thread of the earlier reading is still there. ctxDelta drops a thread that ended in between
 * with all its switches, and sysbench's workers end together right after its last per-second report: a reading
 * taken as they exit (a line handled late on a busy machine) would count the main thread alone, or nothing (seen in CI: a
 * cell with 0 client switches per query).
 */
export function keepsThreads(earlier: TaskCounters, later: TaskCounters): boolean {
  if (!Object.keys(later.ctx).length) return false;
  return Object.keys(earlier.ctx).every((tid) => tid in later.ctx);
}

/**
 * Storage bytes between two readings, over the processes of the later one as ctxDelta does over threads (a process
 * started in between counts from 0). Null when either reading has no process.
 */
export function ioDelta(a: TaskCounters, b: TaskCounters): { read: number; write: number } | null {
  if (!Object.keys(a.io).length || !Object.keys(b.io).length) return null;
  let read = 0;
  let write = 0;
  for (const [pid, x] of Object.entries(b.io)) {
    const y = a.io[pid] ?? { read: 0, write: 0 };
    read += x.read >= y.read ? x.read - y.read : x.read;
    write += x.write >= y.write ? x.write - y.write : x.write;
  }
  return { read, write };
}

// ---- hardware counters ---------------------------------------------------------------------------------------

/** The hardware events twinbench would count per query. */
export const HARDWARE_EVENTS = ["instructions", "cycles", "LLC-load-misses"] as const;

/** One line of `perf stat -x,`: the value (null when perf says `<not supported>` or `<not counted>`), unit, event. */
export interface PerfStatLine {
  event: string;
  value: number | null;
  unit: string;
  /** `<not supported>`, `<not counted>` when there is no value. */
  missing?: string;
}

/**
 * The lines of `perf stat -x,` (CSV on stderr: value, unit, event, run time, percentage, …). Lines that are not
 * counter lines (comments, blank, a `perf` error message) are left out.
 */
export function parsePerfStatCsv(text: string): PerfStatLine[] {
  const out: PerfStatLine[] = [];
  for (const line of text.split("\n")) {
    if (!line.trim() || line.startsWith("#")) continue;
    const f = line.split(",");
    if (f.length < 3 || !f[2]) continue;
    const raw = f[0]!.trim();
    if (raw.startsWith("<")) out.push({ event: f[2]!.trim(), value: null, unit: f[1]!.trim(), missing: raw });
    else if (/^[0-9.]+$/.test(raw)) out.push({ event: f[2]!.trim(), value: Number(raw), unit: f[1]!.trim() });
  }
  return out;
}

/** Whether this host can count hardware events, and in words for the report. */
export interface HardwareCounters {
  available: boolean;
  text: string;
}

/**
 * The host's hardware counters from what it shows: `pmu` is whether the kernel lists a CPU PMU
 * (/sys/bus/event_source/devices/cpu, or cpu_core/cpu_atom on hybrid CPUs); `perfOutput` is `perf stat -x, -e
 * instructions,cycles,LLC-load-misses -- true`'s stderr, or null when perf is not installed or was not asked.
 */
export function hardwareCountersOf(o: { pmu: boolean; perfOutput: string | null }): HardwareCounters {
  const head = "Hardware counters per query (instructions, cycles, IPC, LLC misses)";
  if (!o.pmu)
    return {
      available: false,
      text: `${head}: not available on this host (the kernel lists no CPU PMU: perf has only software events).`,
    };
  if (o.perfOutput === null)
    return { available: false, text: `${head}: not available on this host (perf is not installed).` };
  const lines = parsePerfStatCsv(o.perfOutput);
  const missing = HARDWARE_EVENTS.filter((e) => !lines.some((l) => l.event === e && l.value !== null));
  if (missing.length)
    return {
      available: false,
      text: `${head}: not available on this host (perf: ${missing.map((e) => `${e} ${lines.find((l) => l.event === e)?.missing ?? "not counted"}`).join(", ")}).`,
    };
  return {
    available: true,
    text: `${head}: the host has them (perf counts ${HARDWARE_EVENTS.join(", ")}), but twinbench does not record them per cell yet.`,
  };
}
