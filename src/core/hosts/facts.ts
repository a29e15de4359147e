/**
 * Host facts across hosts (pure): the probe a short container runs on each host, its parsing, the table of facts
 * per host with the ones that differ, and the sharding rule (hosts must be alike to share one matrix).
 * Engine `info` gives kernel, OS, CPU count, memory, Docker version, storage driver and cgroup version; the probe
 * adds what only a container sees: the CPU model, `nproc`, and the file system and mount options under volumes,
 * and what a kernel comparison turns on (KERNEL_FACTS), read from the engine host's /sys and /proc.
 */
import type { HostFacts } from "../model/results.ts";
import { formatBytes } from "../base/units.ts";

/** Where the probe container mounts a fresh volume, to read the file system that volumes live on. */
export const PROBE_MOUNT = "/tb-probe";

/** The probe's command line (POSIX sh, coreutils and /proc only). */
export function probeCommand(): string[] {
  const script = [
    'echo "kernel=$(uname -r)"',
    'echo "arch=$(uname -m)"',
    'echo "nproc=$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN)"',
    "sed -n 's/^model name[[:space:]]*:[[:space:]]*/cpu=/p' /proc/cpuinfo | head -n 1",
    `awk '$2 == "${PROBE_MOUNT}" { print "volfs=" $3; print "volopts=" $4 }' /proc/mounts`,
    // The block device under the volume: major:minor from mountinfo, /sys/dev/block/M:m (a partition's queue is
    // its disk's).
    `mm=$(awk '$5 == "${PROBE_MOUNT}" { print $3; exit }' /proc/self/mountinfo)`,
    'echo "devnum=$mm"',
    'd=""',
    'if [ -n "$mm" ] && [ -e "/sys/dev/block/$mm" ]; then d=$(readlink -f "/sys/dev/block/$mm"); if [ -e "$d/partition" ]; then d=$(dirname "$d"); fi; fi',
    'if [ -n "$d" ]; then echo "blockdev=${d##*/}"; echo "scheduler=$(cat "$d/queue/scheduler" 2>/dev/null)"; echo "nr_requests=$(cat "$d/queue/nr_requests" 2>/dev/null)"; echo "queue_depth=$(cat "$d/device/queue_depth" 2>/dev/null)"; echo "rotational=$(cat "$d/queue/rotational" 2>/dev/null)"; fi',
    ...KERNEL_FILES.map(([k, f]) => `echo "${k}=$(cat ${f} 2>/dev/null)"`),
    'for f in /sys/devices/system/cpu/vulnerabilities/*; do if [ -r "$f" ]; then echo "vuln.${f##*/}=$(cat "$f")"; fi; done',
    'echo "probe=done"',
  ].join("; ");
  return ["sh", "-c", script];
}

/** Probe key → file (each read with cat; a missing file prints an empty value). */
const KERNEL_FILES: ReadonlyArray<[string, string]> = [
  ["thp", "/sys/kernel/mm/transparent_hugepage/enabled"],
  ["thp_defrag", "/sys/kernel/mm/transparent_hugepage/defrag"],
  ["cpufreq_driver", "/sys/devices/system/cpu/cpu0/cpufreq/scaling_driver"],
  ["cpufreq_governor", "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"],
  ["clocksource", "/sys/devices/system/clocksource/clocksource0/current_clocksource"],
  ["cmdline", "/proc/cmdline"],
];

/** The kernel facts (HostFacts keys) the probe fills in, "unknown" where the host does not say. */
export const KERNEL_FACTS = [
  "dataDevice",
  "ioScheduler",
  "nrRequests",
  "queueDepth",
  "rotational",
  "thp",
  "thpDefrag",
  "cpufreqDriver",
  "cpufreqGovernor",
  "clocksource",
  "kernelCmdline",
] as const;
export type KernelFact = (typeof KERNEL_FACTS)[number];

/** sysfs choice lists mark the active one in brackets: "always [madvise] never" → "madvise". */
export function activeChoice(v: string): string {
  const m = /\[([^\]]+)\]/.exec(v);
  return m ? m[1]! : v.trim();
}

export interface ProbedFacts {
  kernel?: string;
  architecture?: string;
  nproc?: number;
  cpuModel?: string;
  volumeFs?: string;
  volumeMountOptions?: string;
  /** Present when the probe ran to its end: then every kernel fact is known or "unknown". */
  kernelFacts?: Record<KernelFact, string> & { mitigations: Record<string, string> };
}

export const UNKNOWN = "unknown";

export function parseProbeOutput(text: string): ProbedFacts {
  const out: ProbedFacts = {};
  const raw = new Map<string, string>();
  const vulns: Record<string, string> = {};
  for (const line of text.split("\n")) {
    const i = line.indexOf("=");
    if (i <= 0) continue;
    const k = line.slice(0, i).trim();
    const v = line.slice(i + 1).trim();
    if (k.startsWith("vuln.") && v) vulns[k.slice(5)] = v;
    else raw.set(k, v);
    if (!v) continue;
    if (k === "kernel") out.kernel = v;
    else if (k === "arch") out.architecture = v;
    else if (k === "nproc" && /^\d+$/.test(v)) out.nproc = Number(v);
    else if (k === "cpu") out.cpuModel = v.replace(/\s+/g, " ");
    else if (k === "volfs") out.volumeFs = v;
    else if (k === "volopts") out.volumeMountOptions = v;
  }
  if (raw.get("probe") === "done") out.kernelFacts = kernelFacts(raw, vulns);
  return out;
}

function kernelFacts(
  raw: Map<string, string>,
  mitigations: Record<string, string>,
): NonNullable<ProbedFacts["kernelFacts"]> {
  const get = (k: string, f: (v: string) => string = (v) => v) => {
    const v = raw.get(k);
    return v ? f(v) : UNKNOWN;
  };
  const devnum = raw.get("devnum") ?? "";
  // Major 0 is an anonymous device: overlay, tmpfs, btrfs subvolumes, NFS have no queue of their own.
  const dataDevice =
    raw.get("blockdev") ||
    (devnum.startsWith("0:") ? `none (${raw.get("volfs") || "virtual"} file system, device ${devnum})` : UNKNOWN);
  return {
    dataDevice,
    ioScheduler: get("scheduler", activeChoice),
    nrRequests: get("nr_requests"),
    queueDepth: get("queue_depth"),
    rotational: get("rotational", (v) => (v === "1" ? "yes" : v === "0" ? "no" : v)),
    thp: get("thp", activeChoice),
    thpDefrag: get("thp_defrag", activeChoice),
    cpufreqDriver: get("cpufreq_driver"),
    cpufreqGovernor: get("cpufreq_governor"),
    clocksource: get("clocksource"),
    kernelCmdline: get("cmdline"),
    mitigations,
  };
}

/** Whether these facts already hold the probe's (a multi-host run probes each host before its run). */
export function hasProbe(h: HostFacts): boolean {
  return h.nproc !== undefined || h.kernelCmdline !== undefined;
}

/** The mitigations of a host in one line: "12 mitigated, 1 vulnerable, 5 not affected". */
export function mitigationsSummary(m: Record<string, string> | undefined): string | undefined {
  if (!m) return undefined;
  const states = Object.values(m);
  if (states.length === 0) return UNKNOWN;
  const n = (re: RegExp) => states.filter((s) => re.test(s)).length;
  const parts: Array<[number, string]> = [
    [n(/^Mitigation/), "mitigated"],
    [n(/^Vulnerable/), "vulnerable"],
    [n(/^Not affected/), "not affected"],
  ];
  const other = states.length - parts.reduce((a, [c]) => a + c, 0);
  if (other) parts.push([other, "other"]);
  return parts
    .filter(([c]) => c > 0)
    .map(([c, w]) => `${c} ${w}`)
    .join(", ");
}

/** Engine info plus the probe; the probe's kernel wins only when info had none (they agree on Linux). */
export function mergeProbe(info: HostFacts, probe: ProbedFacts, engineUrl?: string): HostFacts {
  return {
    ...info,
    kernel: info.kernel ?? probe.kernel,
    cpuModel: probe.cpuModel ?? info.cpuModel,
    ...(probe.nproc !== undefined ? { nproc: probe.nproc } : {}),
    ...(probe.architecture ? { architecture: probe.architecture } : {}),
    ...(probe.volumeFs ? { volumeFs: probe.volumeFs } : {}),
    ...(probe.volumeMountOptions ? { volumeMountOptions: probe.volumeMountOptions } : {}),
    ...(probe.kernelFacts ?? {}),
    ...(engineUrl ? { engine: engineUrl } : {}),
  };
}

interface FactField {
  field: string;
  get: (h: HostFacts) => string | undefined;
  /** Must be equal for sharding (memory: within MEMORY_TOLERANCE). */
  shard: boolean;
}

/** Two "identical" machines rarely report the same MemTotal to the byte (firmware reservations). */
export const MEMORY_TOLERANCE = 0.02;

export const HOST_FACT_FIELDS: readonly FactField[] = [
  { field: "kernel", get: (h) => h.kernel, shard: true },
  { field: "os", get: (h) => h.os, shard: true },
  { field: "architecture", get: (h) => h.architecture, shard: true },
  { field: "cpu model", get: (h) => h.cpuModel, shard: true },
  { field: "cpus", get: (h) => (h.cpus === undefined ? undefined : String(h.cpus)), shard: true },
  { field: "nproc", get: (h) => (h.nproc === undefined ? undefined : String(h.nproc)), shard: true },
  { field: "memory", get: (h) => (h.memoryBytes === undefined ? undefined : formatBytes(h.memoryBytes)), shard: true },
  { field: "docker version", get: (h) => h.dockerVersion, shard: true },
  { field: "docker API", get: (h) => h.apiVersion, shard: false },
  { field: "storage driver", get: (h) => h.storageDriver, shard: true },
  { field: "cgroup version", get: (h) => h.cgroupVersion, shard: true },
  { field: "volume fs", get: (h) => h.volumeFs, shard: true },
  { field: "volume mount options", get: (h) => h.volumeMountOptions, shard: true },
  { field: "data device (volumes)", get: (h) => h.dataDevice, shard: false },
  { field: "io scheduler", get: (h) => h.ioScheduler, shard: false },
  { field: "nr_requests", get: (h) => h.nrRequests, shard: false },
  { field: "queue depth", get: (h) => h.queueDepth, shard: false },
  { field: "rotational", get: (h) => h.rotational, shard: false },
  { field: "transparent huge pages", get: (h) => h.thp, shard: false },
  { field: "THP defrag", get: (h) => h.thpDefrag, shard: false },
  { field: "cpufreq driver", get: (h) => h.cpufreqDriver, shard: false },
  { field: "cpufreq governor", get: (h) => h.cpufreqGovernor, shard: false },
  { field: "clocksource", get: (h) => h.clocksource, shard: false },
  { field: "kernel command line", get: (h) => h.kernelCmdline, shard: false },
  { field: "mitigations", get: (h) => mitigationsSummary(h.mitigations), shard: false },
  { field: "engine", get: (h) => h.engine, shard: false },
];

/** Facts that older runs did not record: their rows show only when some host has them. */
const OPTIONAL_ROWS = new Set([
  "data device (volumes)",
  "io scheduler",
  "nr_requests",
  "queue depth",
  "rotational",
  "transparent huge pages",
  "THP defrag",
  "cpufreq driver",
  "cpufreq governor",
  "clocksource",
  "kernel command line",
  "mitigations",
]);

export interface FactRow {
  field: string;
  /** Host id → value (null when unknown). */
  values: Record<string, string | null>;
  equal: boolean;
}

/** Every fact of every host, in HOST_FACT_FIELDS order; `equal` is false when any two known values differ. */
export function hostFactRows(facts: readonly HostFacts[]): FactRow[] {
  const row = (field: string, get: (h: HostFacts) => string | undefined): FactRow => {
    const values = Object.fromEntries(facts.map((h) => [h.id, get(h) ?? null]));
    const known = new Set(Object.values(values).map((v) => v ?? "(unknown)"));
    return { field, values, equal: known.size <= 1 };
  };
  const rows = HOST_FACT_FIELDS.map((f) => row(f.field, f.get)).filter(
    (r) => !OPTIONAL_ROWS.has(r.field) || Object.values(r.values).some((v) => v !== null),
  );
  // One row per vulnerability, after the summary line, so that the diff names the one that differs.
  const vulns = [...new Set(facts.flatMap((h) => Object.keys(h.mitigations ?? {})))].sort();
  const at = rows.findIndex((r) => r.field === "mitigations") + 1 || rows.length;
  rows.splice(
    at,
    0,
    ...vulns.map((v) => row(`mitigation: ${v}`, (h) => (h.mitigations ? (h.mitigations[v] ?? UNKNOWN) : undefined))),
  );
  return rows;
}

/**
 * The kernel facts of two hosts that differ (field, base value, new value), for the facts diff of `compare`.
 * Nothing when either side was not probed (a run from before these facts were recorded).
 */
export function kernelFactDifferences(
  a: HostFacts | undefined,
  b: HostFacts | undefined,
): Array<{ field: string; base: string | null; new: string | null }> {
  if (!a || !b || a.kernelCmdline === undefined || b.kernelCmdline === undefined) return [];
  return hostFactRows([
    { ...a, id: "base" },
    { ...b, id: "new" },
  ])
    .filter((r) => !r.equal && (OPTIONAL_ROWS.has(r.field) || r.field.startsWith("mitigation: ")))
    .map((r) => ({ field: r.field, base: r.values.base ?? null, new: r.values.new ?? null }));
}

/** Only the rows that differ (the engine URL always differs and is not a fact of the machine). */
export function hostFactDiff(facts: readonly HostFacts[]): FactRow[] {
  return hostFactRows(facts).filter((r) => !r.equal && r.field !== "engine");
}

/**
 * Why these hosts cannot share one matrix: one line per differing fact, e.g.
 * `kernel: a=6.1.0-18-amd64, b=6.1.0-21-amd64`. Memory counts as equal within MEMORY_TOLERANCE.
 */
export function shardMismatches(facts: readonly HostFacts[]): string[] {
  const out: string[] = [];
  for (const f of HOST_FACT_FIELDS) {
    if (!f.shard) continue;
    if (f.field === "memory") {
      const mem = facts.map((h) => h.memoryBytes).filter((m): m is number => m !== undefined);
      if (mem.length > 1 && (Math.max(...mem) - Math.min(...mem)) / Math.max(...mem) <= MEMORY_TOLERANCE) continue;
    }
    const vals = facts.map((h) => f.get(h) ?? "(unknown)");
    if (new Set(vals).size > 1) out.push(`${f.field}: ${facts.map((h, i) => `${h.id}=${vals[i]}`).join(", ")}`);
  }
  return out;
}
