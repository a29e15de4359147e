/**
 * The noise levers' pure parts: the trimmed rates of a cell, the steady-state check of a
 * write cell (slope of its per-second q/s), and when InnoDB's background work has settled (quiescence).
 */
import type { IntervalSample } from "../model/sysbench/result.ts";
import type { TrimmedRates } from "../model/cell.ts";
import { mean, tQuantile } from "../base/distributions.ts";
import type { Owner } from "../base/labels.ts";

/**
 * The mean q/s and t/s of the per-second samples after the first `seconds`; null when nothing is left (too short a
 * cell, or no per-second report).
 */
export function trimmedRates(intervals: readonly IntervalSample[], seconds: number): TrimmedRates | null {
  const kept = intervals.filter((s) => s.t > seconds);
  if (!kept.length) return null;
  return { seconds, samples: kept.length, qps: mean(kept.map((s) => s.qps)), tps: mean(kept.map((s) => s.tps)) };
}

/**
 * The seconds a cell's figure comes from. Without a lead-in it is sysbench's own total over the
 * whole run (seconds 1 to its total time); with one (workload.trim) the mean of the per-second samples after it.
 */
export interface FigureWindow {
  /** First and last second used (1-based, inclusive; `to` is the run's total time rounded for a total). */
  from: number;
  to: number;
  /** Seconds left out at the start. */
  leadIn: number;
  /** Per-second samples behind the figure; null for sysbench's total. */
  samples: number | null;
  source: "sysbench total" | "per-second mean";
}

/** A record's figure window from its trimmed rates (the lead-in used) or sysbench's total time. Null without a run. */
export function figureWindow(r: {
  trimmed?: TrimmedRates;
  metrics?: { totalTime?: number | null; intervals: readonly IntervalSample[] } | null;
}): FigureWindow | null {
  if (r.trimmed) {
    const ts = (r.metrics?.intervals ?? []).filter((s) => s.t > r.trimmed!.seconds).map((s) => s.t);
    return {
      from: r.trimmed.seconds + 1,
      to: ts.length ? Math.max(...ts) : r.trimmed.seconds + r.trimmed.samples,
      leadIn: r.trimmed.seconds,
      samples: r.trimmed.samples,
      source: "per-second mean",
    };
  }
  const total = r.metrics?.totalTime;
  if (typeof total !== "number" || !(total > 0)) return null;
  return { from: 1, to: Math.max(1, Math.round(total)), leadIn: 0, samples: null, source: "sysbench total" };
}

/** "seconds 3–9 (per-second mean of 7 s after a 2 s lead-in)", "seconds 1–5 (sysbench's total)". */
export function figureWindowText(w: FigureWindow): string {
  return w.source === "sysbench total"
    ? `seconds ${w.from}–${w.to} (sysbench's total, no lead-in)`
    : `seconds ${w.from}–${w.to} (per-second mean of ${w.samples} s after a ${w.leadIn} s lead-in)`;
}

/** The least-squares slope of a per-second series, as % of its mean per 10 s, with its interval. */
export interface SteadySlope {
  /** Slope in % of the series' mean per 10 seconds. */
  pctPer10s: number;
  low: number;
  high: number;
  /** Samples in the fit. */
  n: number;
  /** Lag-1 autocorrelation of the residuals, used to widen the interval (clamped to [0, 0.9]). */
  rho: number;
}

/** A write cell is "not steady" when its slope's interval excludes 0 and |slope| exceeds this (% per 10 s). */
export const STEADY_THRESHOLD_PCT_PER_10S = 3;
/** Fewer samples than this give no slope (the interval would be meaningless). */
export const STEADY_MIN_SAMPLES = 5;

/**
 * Least-squares slope of `ys` against 0..n-1 seconds, relative to the mean, in % per 10 s, with its interval at
 * `confidence`. Per-second throughput is autocorrelated (lag 1 about 0.6 on this project's machines), so the
 * standard error is widened by √((1+ρ)/(1−ρ)) with ρ the residuals' lag-1 autocorrelation (the AR(1) effective
 * sample size), and the t quantile uses the matching effective degrees of freedom. Null for fewer than
 * STEADY_MIN_SAMPLES samples or a zero mean.
 */
export function steadySlope(ys: readonly number[], confidence = 0.95): SteadySlope | null {
  const n = ys.length;
  if (n < STEADY_MIN_SAMPLES) return null;
  const my = mean(ys);
  if (!(my > 0)) return null;
  const mx = (n - 1) / 2;
  let sxx = 0;
  let sxy = 0;
  ys.forEach((y, x) => {
    sxx += (x - mx) ** 2;
    sxy += (x - mx) * (y - my);
  });
  const b = sxy / sxx;
  const res = ys.map((y, x) => y - (my + b * (x - mx)));
  const sse = res.reduce((s, r) => s + r * r, 0);
  let num = 0;
  for (let i = 1; i < n; i++) num += res[i]! * res[i - 1]!;
  const rho = sse > 0 ? Math.min(0.9, Math.max(0, num / sse)) : 0;
  const inflate = (1 + rho) / (1 - rho);
  const se = Math.sqrt(sse / (n - 2) / sxx) * Math.sqrt(inflate);
  const dfEff = Math.max(1, n / inflate - 2);
  const q = tQuantile(1 - (1 - confidence) / 2, dfEff);
  const scale = 1000 / my;
  return { pctPer10s: b * scale, low: (b - q * se) * scale, high: (b + q * se) * scale, n, rho };
}

/** Whether a slope says "not steady": its interval excludes 0 and it is steeper than the threshold. */
export function notSteady(s: SteadySlope | null, thresholdPct = STEADY_THRESHOLD_PCT_PER_10S): boolean {
  if (!s) return false;
  return (s.low > 0 || s.high < 0) && Math.abs(s.pctPer10s) > thresholdPct;
}

/** One look at InnoDB's background work: purge history length (null when unknown) and dirty buffer-pool pages. */
export interface BacklogSample {
  historyLength: number | null;
  dirtyPages: number;
}

/** History length and dirty pages at or below these count as "near zero". */
export const QUIESCE_NEAR_ZERO = { historyLength: 50, dirtyPages: 10 } as const;
/** Samples (one a second) without a fall that count as "stopped falling". */
export const QUIESCE_FLAT_SAMPLES = 3;

/**
 * Whether InnoDB has settled, from samples one second apart (oldest first): both figures are near zero, or neither
 * has fallen over the last QUIESCE_FLAT_SAMPLES samples (what is left is not going away by waiting).
 */
export function quiesced(samples: readonly BacklogSample[]): boolean {
  const last = samples[samples.length - 1];
  if (!last) return false;
  const nearZero =
    (last.historyLength ?? 0) <= QUIESCE_NEAR_ZERO.historyLength && last.dirtyPages <= QUIESCE_NEAR_ZERO.dirtyPages;
  if (nearZero) return true;
  if (samples.length <= QUIESCE_FLAT_SAMPLES) return false;
  const window = samples.slice(-(QUIESCE_FLAT_SAMPLES + 1));
  const first = window[0]!;
  const fell = (a: number | null, b: number | null) => a !== null && b !== null && b < a;
  return !fell(first.historyLength, last.historyLength) && !fell(first.dirtyPages, last.dirtyPages);
}

/** The CPU list from `taskset -c -p PID` ("pid 812's current affinity list: 0,1"); null when it is not there. */
export function parseAffinityList(out: string): string | null {
  const m = /affinity list:\s*([0-9,-]+)\s*$/m.exec(out);
  return m ? m[1]! : null;
}

/** What resources.confineDaemons moves to the load CPUs: the Docker engine, containerd and its shims (by comm). */
export const CONFINED_DAEMONS = ["dockerd", "containerd", "containerd-shim"] as const;

/**
 * The affinity ledger: what a run confined (resources.confineDaemons), kept in the state dir while it is confined,
 * so that a killed run's changes can be put back by `clean` or the next run's start-up sweep. `original` is the CPU
 * list the process had before any twinbench moved it.
 */
export interface ConfinedPid {
  pid: number;
  /** Start time of the process (field 22 of /proc/<pid>/stat): a later process with the pid is not put back. */
  startTime?: string;
  original: string;
}

export interface AffinityRecord {
  version: 1;
  runId: string;
  owner: Owner;
  /** The CPUs the processes were moved to. */
  cpus: string;
  pids: ConfinedPid[];
}

const samePid = (e: ConfinedPid, pid: number, startTime?: string) =>
  e.pid === pid && (e.startTime === undefined || startTime === undefined || e.startTime === startTime);

/**
 * The CPU list to put back for `pid` when this run is done: the original that another run's record (live or left
 * by a killed run) kept for the same process, else what the process has now. So a run that starts while another
 * has the daemons confined never takes the confined list for the original.
 */
export function originalAffinity(
  pid: number,
  startTime: string | undefined,
  now: string,
  others: readonly AffinityRecord[],
): string {
  for (const r of others) {
    const e = r.pids.find((x) => samePid(x, pid, startTime));
    if (e) return e.original;
  }
  return now;
}

/**
 * The run (of `live`, the records of other runs that still run or cannot be judged) that still confines `pid`:
 * then the process stays where it is, and that run puts the original back when it is done.
 */
export function confinedByOther(
  pid: number,
  startTime: string | undefined,
  live: readonly AffinityRecord[],
): AffinityRecord | undefined {
  return live.find((r) => r.pids.some((x) => samePid(x, pid, startTime)));
}

/** Check a parsed ledger file; undefined for anything that is not one. */
export function readAffinityRecord(raw: unknown): AffinityRecord | undefined {
  const r = raw as Partial<AffinityRecord> | null;
  if (!r || r.version !== 1 || typeof r.runId !== "string" || typeof r.cpus !== "string") return undefined;
  if (!r.owner || !Number.isInteger(r.owner.pid) || typeof r.owner.hostname !== "string") return undefined;
  if (!Array.isArray(r.pids)) return undefined;
  for (const p of r.pids)
    if (!p || !Number.isInteger(p.pid) || typeof p.original !== "string" || !/^[0-9,-]+$/.test(p.original))
      return undefined;
  return r as AffinityRecord;
}
