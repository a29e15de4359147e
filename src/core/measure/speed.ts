/**
 * The speed of the server's CPUs during a cell, and the rule that a pair whose two cells ran at different speeds
 * is disturbed. Pure: it reads the samples of the speed probe (src/adapters/host/cpu-speed.ts), which times a fixed
 * piece of arithmetic on each of the server's CPUs four times a second.
 *
 * Why: a virtual CPU's speed changes under it, by up to about 2× for seconds to minutes at a time, when the host
 * gives its physical core to other work. Steal time does not show it (it read 0 throughout on this project's VMs),
 * nor does any other counter in the guest. Both servers of a pair see the same speed when the change outlasts the
 * pair, and the ratio holds; a pair whose two cells fall on either side of a change reads as wild as 0.8 or 1.8
 * where its neighbours read 1.05. docs/bench.md has the measurements.
 */
import type { CpuSpeed, Interference } from "../model/results.ts";

/** One timing of the probe's fixed work on one CPU: when (ms, the run's monotonic clock) and how long (µs). */
export interface SpeedSample {
  atMs: number;
  cpu: number;
  workUs: number;
}

/** Fewer samples than this in a cell's window give no speed (a window under about a second). */
export const MIN_SPEED_SAMPLES = 3;

/**
 * Two cells of a pair whose mean speeds differ by this factor or more are a disturbed pair. Chosen on a default run
 * of this project's 2-vCPU VM (docs/bench.md): the pairs at or beyond 1.15 were 4 of 26, all four the run's
 * outliers; leaving them out took the spread of the pairs' log ratios around their cells from 0.092 to 0.047. The
 * probe's own spread on an idle CPU is about 2%.
 */
export const SPEED_MISMATCH = 1.15;

const round = (x: number, d: number) => Math.round(x * 10 ** d) / 10 ** d;

/**
 * The mean speed of the given CPUs over [fromMs, toMs]: per CPU the mean of 1 / work time, then the mean over the
 * CPUs, given back as the work time it stands for (µs), with the slowest and fastest single timings. Null when any
 * CPU has fewer than {@link MIN_SPEED_SAMPLES} samples in the window.
 */
export function cpuSpeedOver(
  samples: readonly SpeedSample[],
  cpus: readonly number[],
  fromMs: number,
  toMs: number,
): CpuSpeed | null {
  if (cpus.length === 0) return null;
  const inWindow = samples.filter((s) => s.atMs >= fromMs && s.atMs <= toMs && s.workUs > 0);
  let speed = 0;
  let n = 0;
  for (const cpu of cpus) {
    const mine = inWindow.filter((s) => s.cpu === cpu);
    if (mine.length < MIN_SPEED_SAMPLES) return null;
    speed += mine.reduce((a, s) => a + 1 / s.workUs, 0) / mine.length;
    n += mine.length;
  }
  const times = inWindow.filter((s) => cpus.includes(s.cpu)).map((s) => s.workUs);
  return {
    workUs: round(cpus.length / speed, 2),
    fastestUs: round(Math.min(...times), 2),
    slowestUs: round(Math.max(...times), 2),
    samples: n,
    cpus: [...cpus],
  };
}

/**
 * How much slower the second cell of a pair ran than the first (its work time over the first's: 1.3 is 30% slower,
 * 0.8 is faster), when the two differ by {@link SPEED_MISMATCH} or more; null when they agree or either is unknown.
 */
export function speedMismatch(
  first: CpuSpeed | undefined,
  second: CpuSpeed | undefined,
  limit: number = SPEED_MISMATCH,
): number | null {
  if (!first || !second || !(first.workUs > 0) || !(second.workUs > 0)) return null;
  const r = second.workUs / first.workUs;
  return r >= limit || r <= 1 / limit ? r : null;
}

/**
 * The second cell's interference once its pair's speeds are compared: disturbed, with the reason, when the server's
 * CPUs ran at a different speed than in the first cell's (`partner` names that cell's server). Unchanged otherwise.
 */
export function withSpeedCheck(
  second: Interference,
  first: Interference | undefined,
  partner: string,
  limit: number = SPEED_MISMATCH,
): Interference {
  const r = speedMismatch(first?.cpuSpeed, second.cpuSpeed, limit);
  if (r === null) return second;
  const how = r > 1 ? `${round(r, 2)}× slower` : `${round(1 / r, 2)}× faster`;
  return {
    ...second,
    speedMismatch: round(r, 3),
    disturbed: true,
    reasons: [
      ...second.reasons,
      `the server's CPU ran ${how} than in ${partner}'s cell of this pair (threshold ${limit}×)`,
    ],
  };
}
