/**
 * A host's noise calibration (`twinbench calibrate`, updated by every run's pooled residuals): what the statistics
 * and the planner assume about this machine. Kept per host, keyed by the host's facts (see calibration store in
 * src/adapters/results). Pure types and the key only.
 */

/** CV of block means for one block length, against what white noise would give. */
export interface BlockCv {
  seconds: number;
  cvPct: number;
  whiteNoiseCvPct: number;
}

/** One host's calibration. Percentages are of the q/s (log units × 100 for the pair and instance sds). */
export interface Calibration {
  /** Schema version of this file. */
  version: 1;
  /** The host key (see {@link hostKey}) and the facts it was made from. */
  hostKey: string;
  hostFacts: Record<string, string>;
  /** When calibrate measured it, and when a run last updated it (ISO). */
  measuredAt: string;
  updatedAt: string;
  /** The scenario calibrate ran (file name or name), and the cell length its pairs used. */
  scenario: string;
  cellSeconds: number;
  /** One server, one long run with a per-second report. */
  perSecond: { seconds: number; cvPct: number; autocorr: number[]; blocks: BlockCv[] } | null;
  /** A/A pairs on fresh server instances: sd of log pair ratios within instances, and its degrees of freedom. */
  pairSdPct: number;
  pairDf: number;
  /** sd between server instances (log units × 100), and its df; null when only one instance ran. */
  instanceSdPct: number | null;
  instanceDf: number;
  /** Measured wall seconds per pair (both cells, overheads included) at cellSeconds, for planning. */
  secondsPerPair: number | null;
  /** Runs whose pooled residuals updated this calibration since calibrate measured it. */
  updates: number;
}

/**
 * The key of a host's calibration: the facts that change its noise (CPU model, cores, kernel, the engine's
 * storage driver and cgroup version). Stable across runs on one machine; a different VM type gets its own.
 */
export function hostKey(facts: { cpuModel?: string; cpus?: number; kernel?: string; storageDriver?: string; cgroupVersion?: string | number }): string {
  const parts = [facts.cpuModel ?? "cpu?", `${facts.cpus ?? "?"}cpu`, facts.kernel ?? "kernel?", facts.storageDriver ?? "driver?", `cgroup${facts.cgroupVersion ?? "?"}`];
  return parts
    .join("_")
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, "-")
    .replace(/-+/g, "-")
    .slice(0, 120);
}
