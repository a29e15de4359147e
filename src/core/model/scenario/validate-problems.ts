/**
 * The terms every scenario check shares: how a field is named (a dot path), where problems go (errors and warnings),
 * and what the checks are given besides the document (the image lock, the host's CPUs).
 */

/** A field's path in the scenario document: keys and list indexes. */
export type Path = ReadonlyArray<PropertyKey>;

/** "workload.tests.0" */
export const dot = (p: Path): string => p.map(String).join(".");

/** Where the checks report: an error makes the scenario invalid, a warning is printed with it. */
export interface Problems {
  err(path: Path, msg: string): void;
  warn(path: Path, msg: string): void;
}

/** What scenario validation checks against: the lock's image names and this host's CPU count. */
export interface ValidateContext {
  /** Image names in the image lock file (e.g. "mariadb-11.8"). */
  lockImages: string[];
  /** CPUs online on this host (ids 0..n-1); cpusets are not checked when absent. */
  hostCpus?: number;
}
