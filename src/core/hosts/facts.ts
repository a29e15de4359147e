/**
 * Host facts across hosts (pure): the probe a short container runs on each host, its parsing, the table of facts
 * per host with the ones that differ, and the sharding rule (hosts must be alike to share one matrix).
 * Engine `info` gives kernel, OS, CPU count, memory, Docker version, storage driver and cgroup version; the probe
 * adds what only a container sees: the CPU model, `nproc`, and the file system and mount options under volumes.
 */
import type { HostFacts } from "../results.ts";
import { formatBytes } from "../report/model.ts";

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
  ].join("; ");
  return ["sh", "-c", script];
}

export interface ProbedFacts {
  kernel?: string;
  architecture?: string;
  nproc?: number;
  cpuModel?: string;
  volumeFs?: string;
  volumeMountOptions?: string;
}

export function parseProbeOutput(text: string): ProbedFacts {
  const out: ProbedFacts = {};
  for (const line of text.split("\n")) {
    const i = line.indexOf("=");
    if (i <= 0) continue;
    const k = line.slice(0, i).trim();
    const v = line.slice(i + 1).trim();
    if (!v) continue;
    if (k === "kernel") out.kernel = v;
    else if (k === "arch") out.architecture = v;
    else if (k === "nproc" && /^\d+$/.test(v)) out.nproc = Number(v);
    else if (k === "cpu") out.cpuModel = v.replace(/\s+/g, " ");
    else if (k === "volfs") out.volumeFs = v;
    else if (k === "volopts") out.volumeMountOptions = v;
  }
  return out;
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
  { field: "engine", get: (h) => h.engine, shard: false },
];

export interface FactRow {
  field: string;
  /** Host id → value (null when unknown). */
  values: Record<string, string | null>;
  equal: boolean;
}

/** Every fact of every host, in HOST_FACT_FIELDS order; `equal` is false when any two known values differ. */
export function hostFactRows(facts: readonly HostFacts[]): FactRow[] {
  return HOST_FACT_FIELDS.map((f) => {
    const values = Object.fromEntries(facts.map((h) => [h.id, f.get(h) ?? null]));
    const known = new Set(Object.values(values).map((v) => v ?? "(unknown)"));
    return { field: f.field, values, equal: known.size <= 1 };
  });
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
