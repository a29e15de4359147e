/**
 * The key of a host's calibration (pure): the host facts that change its noise, as a file name.
 */
import type { HostFacts } from "../../model/results.ts";

/**
 * The key of a host's calibration: the facts that change its noise (CPU model, cores, kernel, the engine's
 * storage driver and cgroup version). Stable across runs on one machine; a different VM type gets its own.
 */
export function hostKey(facts: {
  cpuModel?: string;
  cpus?: number;
  kernel?: string;
  storageDriver?: string;
  cgroupVersion?: string | number;
}): string {
  const parts = [
    facts.cpuModel ?? "cpu?",
    `${facts.cpus ?? "?"}cpu`,
    facts.kernel ?? "kernel?",
    facts.storageDriver ?? "driver?",
    `cgroup${facts.cgroupVersion ?? "?"}`,
  ];
  return parts
    .join("_")
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, "-")
    .replace(/-+/g, "-")
    .slice(0, 120);
}

/** The facts of a host that its calibration key is made of, as strings. */
export function keyFacts(
  f: Pick<HostFacts, "cpuModel" | "cpus" | "kernel" | "storageDriver" | "cgroupVersion">,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of ["cpuModel", "cpus", "kernel", "storageDriver", "cgroupVersion"] as const)
    if (f[k] !== undefined) out[k] = String(f[k]);
  return out;
}
