/**
 * A CPU whose speed switches between full and slow, as the shipped simulation's "speed switches" noise model has
 * it (coverage.ts): a two-state process over the measured cells, and what the speed probe reads of each cell.
 */
import type { CpuSpeed } from "../model/results.ts";

/** How the speed switches: in each cell with probability `rate`, to or from 1 / `slowFactor` of full speed. */
export interface SpeedSwitch {
  rate: number;
  slowFactor: number;
  /** sd of the probe's error on a cell's mean speed (log units). */
  probeSd: number;
}

/** One measured cell: its mean speed (log units, 0 at full speed) and the probe's reading of it. */
export interface SpeedCell {
  level: number;
  probe: CpuSpeed;
}

/**
 * The cells of a run in turn: each call is the next measured cell. A switch happens at a moment drawn uniformly
 * within the cell, so that cell runs at a mix of the two speeds; the probe reads its mean with a log-normal error.
 * `u` gives uniforms in [0, 1), `z` standard normals (both seeded by the caller).
 */
export function speedSwitches(sw: SpeedSwitch, u: () => number, z: () => number): () => SpeedCell {
  let slow = false;
  const speedOf = (s: boolean) => (s ? 1 / sw.slowFactor : 1);
  return () => {
    let speed = speedOf(slow);
    if (u() < sw.rate) {
      const f = u();
      speed = f * speedOf(slow) + (1 - f) * speedOf(!slow);
      slow = !slow;
    }
    const workUs = 100 / (speed * Math.exp(sw.probeSd * z()));
    return { level: Math.log(speed), probe: { workUs, fastestUs: workUs, slowestUs: workUs, samples: 28, cpus: [1] } };
  };
}
