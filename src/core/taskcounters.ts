/**
 * A container's task counters (issue 24 item 4), pure: context switches from /proc/<tid>/status of every thread in
 * its cgroup, bytes through the block layer from its blkio cgroup (v1: blkio.throttle.io_service_bytes; v2: io.stat),
 * and the hardware counters' check from `perf stat -x,`. The adapter (src/adapters/host/task-counters.ts) reads
 * the files; this module parses them and takes the differences over a cell.
 */

/** One container's counters at one moment. */
export interface TaskCounters {
  /** Per thread id: [voluntary, involuntary] context switches so far. Empty when no thread could be read. */
  ctx: Record<string, [number, number]>;
  /** Bytes read and written through the block layer so far; null when the container has no blkio counter. */
  io: { read: number; write: number } | null;
}

/** `voluntary_ctxt_switches` and `nonvoluntary_ctxt_switches` of a /proc/<tid>/status text; null without them. */
export function parseCtxSwitches(status: string): [number, number] | null {
  const v = /^voluntary_ctxt_switches:\s*(\d+)\s*$/m.exec(status);
  const n = /^nonvoluntary_ctxt_switches:\s*(\d+)\s*$/m.exec(status);
  return v && n ? [Number(v[1]), Number(n[1])] : null;
}

/** Major number of Linux md (software RAID) block devices. */
const MD_MAJOR = 9;

/**
 * Read and written bytes of a cgroup v1 blkio.throttle.io_service_bytes text ("MAJ:MIN Read N" lines, then a
 * "Total N" line), summed over its devices. When an md device (major 9, twinbench's RAID 0) is among them, only md
 * devices count: the md driver passes each bio on to its members in the submitter's context, so the members' lines
 * are the same bytes again. Null for a text with no device line of either kind and no "Total" (not this file).
 */
export function parseBlkioServiceBytes(text: string): { read: number; write: number } | null {
  const rows = [...text.matchAll(/^(\d+):(\d+)\s+(Read|Write)\s+(\d+)\s*$/gm)].map((m) => ({ major: Number(m[1]), op: m[3]!, bytes: Number(m[4]) }));
  if (!rows.length) return /^Total\s+\d+\s*$/m.test(text) ? { read: 0, write: 0 } : null;
  const md = rows.some((r) => r.major === MD_MAJOR);
  const used = md ? rows.filter((r) => r.major === MD_MAJOR) : rows;
  const sum = (op: string) => used.filter((r) => r.op === op).reduce((s, r) => s + r.bytes, 0);
  return { read: sum("Read"), write: sum("Write") };
}

/**
 * Read and written bytes of a cgroup v2 io.stat text ("MAJ:MIN rbytes=N wbytes=N rios=N …" per device), with the
 * same md rule as parseBlkioServiceBytes. An empty file (no I/O yet) is zero.
 */
export function parseIoStat(text: string): { read: number; write: number } {
  const rows = [...text.matchAll(/^(\d+):(\d+)\s+(.*)$/gm)].map((m) => ({
    major: Number(m[1]),
    read: Number(/\brbytes=(\d+)/.exec(m[3]!)?.[1] ?? 0),
    write: Number(/\bwbytes=(\d+)/.exec(m[3]!)?.[1] ?? 0),
  }));
  const md = rows.some((r) => r.major === MD_MAJOR);
  const used = md ? rows.filter((r) => r.major === MD_MAJOR) : rows;
  return { read: used.reduce((s, r) => s + r.read, 0), write: used.reduce((s, r) => s + r.write, 0) };
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

/** Block I/O bytes between two readings; null when either has none or a counter went down (a reset). */
export function ioDelta(a: TaskCounters, b: TaskCounters): { read: number; write: number } | null {
  if (!a.io || !b.io || b.io.read < a.io.read || b.io.write < a.io.write) return null;
  return { read: b.io.read - a.io.read, write: b.io.write - a.io.write };
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
  if (!o.pmu) return { available: false, text: `${head}: not available on this host (the kernel lists no CPU PMU: perf has only software events).` };
  if (o.perfOutput === null) return { available: false, text: `${head}: not available on this host (perf is not installed).` };
  const lines = parsePerfStatCsv(o.perfOutput);
  const missing = HARDWARE_EVENTS.filter((e) => !lines.some((l) => l.event === e && l.value !== null));
  if (missing.length)
    return { available: false, text: `${head}: not available on this host (perf: ${missing.map((e) => `${e} ${lines.find((l) => l.event === e)?.missing ?? "not counted"}`).join(", ")}).` };
  return { available: true, text: `${head}: the host has them (perf counts ${HARDWARE_EVENTS.join(", ")}), but twinbench does not record them per cell yet.` };
}
