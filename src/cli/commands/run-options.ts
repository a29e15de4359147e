import { MIN_UNITS_FOR_PRECISION_STOP } from "../../core/stats/estimate.ts";
import { InputError } from "../../core/errors.ts";

/** The flags of `twinbench run`, shared by the one-host and the several-hosts paths. */
export interface RunCliOptions {
  out?: string;
  resume?: string;
  set: string[];
  tui: boolean;
  jsonEvents?: boolean;
  failFast?: boolean;
  /** `--retries N`: how many times a failed cell is retried (default 1). */
  retries?: string;
  strict?: boolean;
  /** `--no-rerun-disturbed` gives false: a disturbed pair is counted, not run again. */
  rerunDisturbed?: boolean;
  wipeDevices?: boolean;
  imageMode?: string;
  readyTimeout?: string;
  /** Several hosts (src/cli/commands/run-hosts.ts). */
  host?: string[];
  imageTransfer?: string;
  force?: boolean;
  /** `--no-calibrate`: a run with a precision target does not calibrate an uncalibrated host first. */
  calibrate?: boolean;
  /** `--precision 3%`: adaptive repeats until each cell's interval is within ± this. */
  precision?: string;
  /** `--budget 30m`: the wall-time budget of an adaptive run. */
  budget?: string;
}

/** `--retries N`: a whole number from 0 (no retries); undefined: the default (1). */
export function parseRetries(v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!/^\d+$/.test(v.trim()) || !Number.isSafeInteger(n))
    throw new InputError(`--retries ${v}: expected a whole number (0 or more)`, { code: "RETRIES_INVALID", hint: "--retries 1 retries a failed cell once (the default); --retries 0 never retries" });
  return n;
}

/**
 * `--precision P` and `--budget D` as `--set` overrides, so the scenario's own validation checks them and names the
 * field: with --precision, a fixed `workload.repeats: R` becomes `{ min: max(2, R), max: 40, precision: P }`; a
 * repeats object keeps its min and max and takes P. A plain `--set workload.repeats=4` stays a fixed count.
 */
export function adaptiveOverrides(repeats: number | { min: number; max: number; precision: string | number }, o: Pick<RunCliOptions, "precision" | "budget">): string[] {
  const sets: string[] = [];
  if (o.precision !== undefined) {
    // a fixed count becomes at least the fewest units a precision stop needs (estimateRun's split)
    const [min, max] = typeof repeats === "number" ? [Math.max(MIN_UNITS_FOR_PRECISION_STOP, repeats), 40] : [repeats.min, repeats.max];
    sets.push(`workload.repeats={min: ${min}, max: ${max}, precision: ${JSON.stringify(o.precision)}}`);
  }
  if (o.budget !== undefined) sets.push(`workload.budget=${JSON.stringify(o.budget)}`);
  return sets;
}
