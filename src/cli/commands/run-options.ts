import { InputError } from "../../core/base/errors.ts";

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
  /** `--no-calibrate`: deprecated, accepted and ignored (a run never calibrates first). */
  calibrate?: boolean;
  /** `--level run|host`: which runs the printed verdicts speak for. */
  level?: "run" | "host";
  /** `--precision 3%`: adaptive repeats until each cell's interval is within ± this. */
  precision?: string;
  /** `--budget 30m`: the wall-time budget of an adaptive run. */
  budget?: string;
  /** `--design` (with --budget): the budget-first design chooses cell length, warm-up, rounds, instances and order. */
  design?: boolean;
}

/** `--retries N`: a whole number from 0 (no retries); undefined: the default (1). */
export function parseRetries(v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!/^\d+$/.test(v.trim()) || !Number.isSafeInteger(n))
    throw new InputError(`--retries ${v}: expected a whole number (0 or more)`, {
      code: "RETRIES_INVALID",
      hint: "--retries 1 retries a failed cell once (the default); --retries 0 never retries",
    });
  return n;
}

/** The longest `--ready-timeout`: a day (a server that is not ready after that will not be). */
export const MAX_READY_TIMEOUT_SECONDS = 86400;

/** `--ready-timeout SECONDS` in ms: a number of seconds above 0 and at most a day; undefined: the default (180 s). */
export function parseReadyTimeoutMs(v: string | undefined): number {
  if (v === undefined) return 180_000;
  const n = Number(v);
  if (v.trim() === "" || !Number.isFinite(n) || n <= 0 || n > MAX_READY_TIMEOUT_SECONDS)
    throw new InputError(
      `--ready-timeout ${JSON.stringify(v)}: expected a number of seconds above 0 and at most ${MAX_READY_TIMEOUT_SECONDS}`,
      {
        code: "CLI_OPTION_INVALID",
        hint: "e.g. --ready-timeout 300 waits up to five minutes for each server to accept connections",
      },
    );
  return Math.round(n * 1000);
}

export { adaptiveOverrides } from "../../app/start.ts";
