/**
 * Interference during a cell: what else used the machine while sysbench ran. Pure: it reads the texts of
 * /proc/stat, /proc/pressure/cpu and the containers' cgroup CPU counters taken at two moments (the adapter
 * src/adapters/host/cpu-accounting.ts takes them) and turns their deltas into an {@link Interference}.
 *
 * - steal: the /proc/stat steal column (time the hypervisor gave to other guests), as a share of one core;
 * - PSI: the "some" total of /proc/pressure/cpu (time some runnable task waited for a CPU), as a share of the wall;
 * - kernel threads: the CPU time of the machine's kernel threads (kworkers, loop and btrfs workers, kswapd…), in
 *   cores. They belong to no container's cgroup, and on a loop-device RAID 0 or any real disk they do the servers'
 *   I/O, so they are the lab's own storage stack as much as outside work: reported apart, never a disturbance;
 * - outsiders: the machine's busy CPU time (user + nice + system of /proc/stat) minus the CPU time of the run's
 *   containers (their cgroup counters), of the kernel threads and of twinbench itself, in cores.
 */
import type { CellRecord, Interference } from "../model/results.ts";

/** One reading of the machine's CPU accounting, as texts and counters (what the adapter reads). */
export interface CpuSample {
  /** Monotonic clock, ms. */
  atMs: number;
  /** The text of /proc/stat. */
  procStat: string;
  /** The text of /proc/pressure/cpu; null when the kernel has no PSI. */
  psiCpu: string | null;
  /** CPU time of each run container so far, ns (cgroup counter); null when its counter could not be read. */
  containersNs: Record<string, number | null>;
  /** twinbench's own CPU time so far (process.cpuUsage user + system), µs. */
  selfUs: number;
  /** Every kernel thread's CPU time so far, by pid ({@link parsePidStat}); absent or null when /proc could not be listed. */
  kernelThreads?: Record<string, KernelThreadTicks> | null;
}

/** One kernel thread's name and CPU time so far (utime + stime), in USER_HZ ticks. */
export interface KernelThreadTicks {
  comm: string;
  ticks: number;
}

/** PF_KTHREAD, the flags bit of /proc/<pid>/stat that marks a kernel thread (include/linux/sched.h). */
export const PF_KTHREAD = 0x00200000;

/**
 * One /proc/<pid>/stat text: whether the task is a kernel thread, its name, and its utime + stime in ticks. The name
 * sits in parentheses and may hold spaces and parentheses itself, so the fields are counted after the last ")".
 * Null when the text is not such a line (a task that exited while it was read gives an empty text).
 */
export function parsePidStat(text: string): (KernelThreadTicks & { kernel: boolean }) | null {
  const open = text.indexOf("(");
  const close = text.lastIndexOf(")");
  if (open < 0 || close < open) return null;
  // After ")": state(3) ppid(4) pgrp(5) session(6) tty_nr(7) tpgid(8) flags(9) minflt … utime(14) stime(15).
  const f = text
    .slice(close + 1)
    .trim()
    .split(/\s+/);
  const flags = Number(f[6]);
  const utime = Number(f[11]);
  const stime = Number(f[12]);
  if (![flags, utime, stime].every(Number.isFinite)) return null;
  return { comm: text.slice(open + 1, close), kernel: (flags & PF_KTHREAD) !== 0, ticks: utime + stime };
}

/**
 * The kernel threads' CPU over a window, in ticks, with the busiest by name. A thread in both samples counts its
 * difference; one that started inside the window (a new kworker) counts all of its time; one whose count went down
 * (its pid reused) counts its new time. A thread that exited inside the window is lost to this figure, and so is
 * left in the outsiders'.
 */
export function kernelThreadTicks(
  start: Record<string, KernelThreadTicks>,
  end: Record<string, KernelThreadTicks>,
): { ticks: number; byName: Map<string, number> } {
  let ticks = 0;
  const byName = new Map<string, number>();
  for (const [pid, e] of Object.entries(end)) {
    const s = start[pid];
    const d = s && s.ticks <= e.ticks ? e.ticks - s.ticks : e.ticks;
    if (d <= 0) continue;
    ticks += d;
    // kworker/u4:2-btrfs-endio-write and kworker/u4:0-btrfs-endio-write are one kind of work: drop the worker number.
    const name = e.comm.replace(/^kworker\/[^-]*(-|$)/, "kworker$1").replace(/\/?\d+$/, "");
    byName.set(name, (byName.get(name) ?? 0) + d);
  }
  return { ticks, byName };
}

/** The aggregate `cpu` line of /proc/stat in USER_HZ ticks. */
export interface ProcStatCpu {
  busy: number;
  steal: number | null;
}

/** /proc/stat's clock tick: USER_HZ, 100 on every Linux architecture's user ABI. */
export const USER_HZ = 100;

/**
 * The aggregate `cpu` line of /proc/stat: busy = user + nice + system (guest time is already inside user/nice);
 * idle, iowait, irq and softirq are left out (interrupt time is charged to no cgroup, so it cannot be attributed to
 * the run or to outsiders). steal is null when the line has fewer than 8 columns.
 */
export function parseProcStat(text: string): ProcStatCpu {
  const line = text.split("\n").find((l) => /^cpu\s/.test(l));
  if (!line) throw new Error("no aggregate cpu line in /proc/stat");
  const f = line.trim().split(/\s+/).slice(1).map(Number);
  if (f.length < 4 || f.some((x) => !Number.isFinite(x))) throw new Error(`unreadable /proc/stat cpu line: ${line}`);
  return { busy: f[0]! + f[1]! + f[2]!, steal: f.length >= 8 ? f[7]! : null };
}

/** The `some` total (µs) of /proc/pressure/cpu; null when the text has none. */
export function parsePsiSomeTotal(text: string | null): number | null {
  if (text === null) return null;
  const m = /^some\b.*\btotal=(\d+)/m.exec(text);
  return m ? Number(m[1]) : null;
}

/** A cgroup v2 cpu.stat's usage_usec, in ns; null when absent. */
export function parseCpuStatUsageNs(text: string): number | null {
  const m = /^usage_usec\s+(\d+)/m.exec(text);
  return m ? Number(m[1]) * 1000 : null;
}

/**
 * Where "disturbed" starts. Reasoned, not measured on an idle machine: the project's 2-core VM (Debian 12, Docker
 * 20.10, cgroup v1, steal column always 0) was shared with other work when this was written, and every cell of a
 * 3 s oltp_read_only run read 1.4-1.7 outsider cores, which was true (other processes held both cores; PSI some
 * 80-99%). What an undisturbed cell of this lab counts as "outsiders" is small and bounded:
 * - /proc/stat's 10 ms ticks on 2 CPUs, read twice over a window of at least 2 s: at most about 0.02 core;
 * - kernel threads with no cgroup: kdamond on this VM averaged 0.01 core over its uptime; kworkers for the
 *   server's tmpfs/unix-socket I/O are smaller still;
 * - dockerd relaying sysbench's few output lines a second.
 * So 0.10 core, several times that floor, is work the lab did not do. Steal of 2% of a core is a hypervisor taking
 * cycles (0 here). PSI cpu "some" is recorded but flags nothing: it is system-wide under cgroup v1, so it also
 * counts the run's own threads waiting for each other when a cell runs more sysbench threads than its CPUs.
 * docs/stats.md, "Interference", says the same; the lead re-measures the floor on an idle machine.
 */
export const DISTURBANCE_THRESHOLDS = {
  /** Outsiders' CPU, in cores. */
  outsiderCores: 0.1,
  /** Steal time, in % of one core. */
  stealPct: 2,
} as const;

/** Thresholds of {@link interferenceOf}. */
export type DisturbanceThresholds = { readonly [K in keyof typeof DISTURBANCE_THRESHOLDS]: number };

const round = (x: number, d = 3) => Math.round(x * 10 ** d) / 10 ** d;

/**
 * The interference between two samples of one cell. A container missing from either sample (its counter
 * unreadable) makes `outsiderCores` null; a wall shorter than 0.2 s gives null figures (too short to say).
 */
export function interferenceOf(
  start: CpuSample,
  end: CpuSample,
  t: DisturbanceThresholds = DISTURBANCE_THRESHOLDS,
): Interference {
  const wallS = (end.atMs - start.atMs) / 1000;
  if (!(wallS >= 0.2))
    return { stealPct: null, psiCpuSomePct: null, outsiderCores: null, disturbed: false, reasons: [] };
  const a = parseProcStat(start.procStat);
  const b = parseProcStat(end.procStat);
  const stealPct =
    a.steal === null || b.steal === null ? null : round(((b.steal - a.steal) / USER_HZ / wallS) * 100, 2);
  const pa = parsePsiSomeTotal(start.psiCpu);
  const pb = parsePsiSomeTotal(end.psiCpu);
  const psiCpuSomePct = pa === null || pb === null ? null : round(((pb - pa) / 1e6 / wallS) * 100, 2);
  let runS: number | null = 0;
  for (const [id, v0] of Object.entries(start.containersNs)) {
    const v1 = end.containersNs[id];
    if (v0 === null || v1 === null || v1 === undefined) runS = null;
    else if (runS !== null) runS += (v1 - v0) / 1e9;
  }
  const busyS = (b.busy - a.busy) / USER_HZ;
  const selfS = (end.selfUs - start.selfUs) / 1e6;
  const kernel =
    start.kernelThreads && end.kernelThreads ? kernelThreadTicks(start.kernelThreads, end.kernelThreads) : null;
  const kernelS = kernel ? kernel.ticks / USER_HZ : 0;
  const kernelCores = kernel ? round(kernelS / wallS) : null;
  const kernelThreads = kernel
    ? [...kernel.byName]
        .map(([name, t]) => ({ name, cores: round(t / USER_HZ / wallS) }))
        .filter((k) => k.cores >= 0.01)
        .sort((x, y) => y.cores - x.cores)
        .slice(0, 3)
    : [];
  // Tick-based /proc/stat against ns cgroup counters: a small negative is rounding, not negative work.
  const outsiderCores = runS === null ? null : round(Math.max(0, (busyS - runS - selfS - kernelS) / wallS));
  const reasons: string[] = [];
  if (outsiderCores !== null && outsiderCores >= t.outsiderCores)
    reasons.push(`outsiders used ${outsiderCores.toFixed(2)} core (threshold ${t.outsiderCores})`);
  if (stealPct !== null && stealPct >= t.stealPct)
    reasons.push(`steal ${stealPct.toFixed(1)}% of a core (threshold ${t.stealPct}%)`);
  return {
    stealPct,
    psiCpuSomePct,
    outsiderCores,
    ...(kernel ? { kernelCores, kernelThreads } : {}),
    disturbed: reasons.length > 0,
    reasons,
  };
}

/** A measured record's short name for notes: "mariadb oltp_read_only t1 r2". */
function where(r: CellRecord): string {
  return `${r.server} ${r.test} t${r.threads} r${r.repeat}`;
}

/** What a run's reports say about interference: counts, the disturbed cells, and the re-runs. */
export interface InterferenceSummary {
  /** Measured cells (last attempt per key) with an ok status. */
  measured: number;
  /** Of those, cells with interference figures; 0 for a remote engine or a run recorded before this existed. */
  known: number;
  disturbed: CellRecord[];
  /** Measured attempts made again because their pair was disturbed (an attempt after an ok attempt). */
  reruns: number;
  /** The kernel threads' CPU over the cells that have the figure: median and largest, in cores, and the busiest names. */
  kernel: { cells: number; medianCores: number; maxCores: number; busiest: string[] } | null;
}

/** The kernel threads' figures over the cells that carry them; null when none does. */
function kernelSummary(ok: readonly CellRecord[]): InterferenceSummary["kernel"] {
  const with_ = ok.filter((r) => typeof r.interference?.kernelCores === "number");
  if (!with_.length) return null;
  const cores = with_.map((r) => r.interference!.kernelCores!).sort((a, b) => a - b);
  const mid = cores.length >> 1;
  const medianCores = cores.length % 2 ? cores[mid]! : (cores[mid - 1]! + cores[mid]!) / 2;
  const byName = new Map<string, number>();
  for (const r of with_)
    for (const k of r.interference!.kernelThreads ?? []) byName.set(k.name, (byName.get(k.name) ?? 0) + k.cores);
  const busiest = [...byName]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 3)
    .map(([n]) => n);
  return { cells: with_.length, medianCores: round(medianCores), maxCores: cores[cores.length - 1]!, busiest };
}

/**
 * The interference summary of a run's records. `used` are the records the report uses (last attempt per key,
 * measured phase); `all` are every record, to count re-runs: an attempt after an ok attempt of the same key is a
 * disturbed pair's re-run (a failed cell's retry follows a failed attempt).
 */
export function summariseInterference(used: readonly CellRecord[], all: readonly CellRecord[]): InterferenceSummary {
  const ok = used.filter((r) => r.status === "ok");
  const byKey = new Map<string, CellRecord[]>();
  for (const r of all) if (r.phase === "measure") byKey.set(r.key, [...(byKey.get(r.key) ?? []), r]);
  let reruns = 0;
  for (const rs of byKey.values()) {
    const sorted = [...rs].sort((x, y) => (x.attempt ?? 1) - (y.attempt ?? 1));
    for (let i = 1; i < sorted.length; i++) if (sorted[i - 1]!.status === "ok") reruns++;
  }
  return {
    measured: ok.length,
    known: ok.filter((r) => r.interference).length,
    disturbed: ok.filter((r) => r.interference?.disturbed),
    reruns,
    kernel: kernelSummary(ok),
  };
}

/** From this much kernel-thread CPU in some cell (cores), the report says how much (tmpfs runs here read about 0). */
export const KERNEL_NOTE_CORES = 0.05;

/** How the disturbed cells' note begins: `3 of 40 measured cells were disturbed` (report.html swaps that note for a table). */
export function disturbedNotePrefix(disturbed: number, measured: number): string {
  return `${disturbed} of ${measured} measured cells were disturbed`;
}

/** The report's lines about interference (empty when no record carries any and nothing was re-run). */
export function interferenceNotes(s: InterferenceSummary): string[] {
  const notes: string[] = [];
  if (s.measured === 0) return notes;
  if (s.known === 0)
    return [
      "Interference is unknown: no cell carries interference figures (a remote engine, whose host's CPU accounting twinbench cannot read, or a run recorded before twinbench measured it).",
    ];
  const list = s.disturbed.map((r) => `${where(r)} (${r.interference!.reasons.join("; ")})`);
  notes.push(`${disturbedNotePrefix(s.disturbed.length, s.measured)}${list.length ? `: ${list.join(", ")}` : "."}`);
  if (s.reruns > 0)
    notes.push(
      `${s.reruns} cell${s.reruns === 1 ? " was" : "s were"} re-run because their pair was disturbed; the report uses the last attempt.`,
    );
  const k = s.kernel;
  if (k && k.maxCores >= KERNEL_NOTE_CORES)
    notes.push(
      `Kernel threads used ${k.medianCores.toFixed(2)} core in the median measured cell (up to ${k.maxCores.toFixed(2)}; of ${k.cells} cells with the figure)${k.busiest.length ? `, busiest ${k.busiest.join(", ")}` : ""}. They belong to no container: on a disk or a loop-device RAID 0 they do the servers' I/O, so they are counted apart from outside work and disturb no cell.`,
    );
  return notes;
}
