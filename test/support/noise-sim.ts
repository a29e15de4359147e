/**
 * A simulated A/B run at the noise measured on this project's machine (docs/stats.md, "How the method was checked";
 * figures from /work/shared/notes/noise-and-statistics-facts.md), used to check the intervals' coverage.
 *
 * Time runs round by round (round-robin over the cells, as adaptive runs do); in each round every cell runs one
 * pair, A then B or B then A (ABBA over the rounds). Per server, the log throughput of each second is
 *   the cell's true level + instance effect + slow drift + fast AR(1) noise,
 * and the cell's value is the mean over its seconds, plus a cell-level shift of its own. Server instances are
 * restarted between blocks of rounds: each gets new instance effects and a new slow-drift state.
 */
import { normalFrom, seededRandom } from "../../src/core/base/random.ts";
import type { CellInput } from "../../src/core/stats/estimate.ts";

export interface NoiseModel {
  cells: number;
  pairs: number;
  instances: number;
  /** Seconds per cell, seconds between cells. */
  cellSeconds: number;
  gapSeconds: number;
  /** Fast per-second noise: AR(1) coefficient and marginal sd (log units). */
  fastPhi: number;
  fastSd: number;
  /** Slow per-second drift of each server instance: AR(1) coefficient and marginal sd. */
  slowPhi: number;
  slowSd: number;
  /** Cell-level white noise per server-cell: sd range across cells (log-uniform), so cells differ in variance. */
  cellSdMin: number;
  cellSdMax: number;
  /** sd of the instance effect on the log ratio, per cell and instance. */
  instanceSd: number;
  /** Whole-cell shifts: probability per server-cell, and the sd of the shift. */
  shiftProb: number;
  shiftSd: number;
  /** True log ratios of the cells (0 in A/A). */
  truth: (cell: number) => number;
}

export const MEASURED: NoiseModel = {
  cells: 6,
  pairs: 4,
  instances: 2,
  cellSeconds: 6,
  gapSeconds: 1,
  fastPhi: 0.6,
  fastSd: 0.075,
  slowPhi: 0.99,
  slowSd: 0.045,
  cellSdMin: 0.03,
  cellSdMax: 0.06,
  instanceSd: 0.11,
  shiftProb: 0.02,
  shiftSd: 0.2,
  truth: () => 0,
};

/** One simulated run: the cells' pairs (log ratio A/B, instance, order). */
export function simulateRun(model: NoiseModel, rand: () => number): CellInput[] {
  const z = normalFrom(rand);
  const m = model;
  const cellSd = Array.from({ length: m.cells }, () =>
    Math.exp(Math.log(m.cellSdMin) + rand() * Math.log(m.cellSdMax / m.cellSdMin)),
  );
  const out: CellInput[] = Array.from({ length: m.cells }, () => ({
    pairs: [] as Array<{ d: number; instance: number; order: 1 | -1 }>,
  }));
  const perInstance = Math.ceil(m.pairs / m.instances);
  // The fast AR(1) enters through the exact sd of its mean over a cell's seconds; its correlation between cells
  // (lag cellSeconds + gapSeconds: 0.6^7 = 0.03) is left out. The slow drift is sampled once per cell slot, which
  // is again an AR(1), with coefficient slowPhi^(cellSeconds + gapSeconds).
  const L = m.cellSeconds;
  let acc = L;
  for (let k = 1; k < L; k++) acc += 2 * (L - k) * m.fastPhi ** k;
  const fastMeanSd = (m.fastSd * Math.sqrt(acc)) / L;
  const phiSlot = m.slowPhi ** (m.cellSeconds + m.gapSeconds);
  const slowK = Math.sqrt(1 - phiSlot ** 2);
  const slow = [z() * m.slowSd, z() * m.slowSd];
  const tick = (running: number): number => {
    for (const srv of [0, 1]) slow[srv] = phiSlot * slow[srv] + slowK * m.slowSd * z();
    return slow[running] + fastMeanSd * z();
  };
  let instance = -1;
  let effects: number[] = [];
  for (let r = 0; r < m.pairs; r++) {
    const inst = Math.min(m.instances - 1, Math.floor(r / perInstance));
    if (inst !== instance) {
      instance = inst;
      // A fresh instance of each server: new slow state, new instance effects per cell.
      slow[0] = z() * m.slowSd;
      slow[1] = z() * m.slowSd;
      effects = Array.from({ length: m.cells }, () => z() * m.instanceSd);
    }
    for (let c = 0; c < m.cells; c++) {
      const aFirst = (r + c) % 2 === 0;
      const value = (srv: number) => {
        const shift = rand() < m.shiftProb ? z() * m.shiftSd : 0;
        return tick(srv) + z() * cellSd[c] + shift;
      };
      const first = value(aFirst ? 0 : 1);
      const second = value(aFirst ? 1 : 0);
      const a = aFirst ? first : second;
      const b = aFirst ? second : first;
      (out[c].pairs as Array<{ d: number; instance: number; order: 1 | -1 }>).push({
        d: m.truth(c) + effects[c] + a - b,
        instance: inst,
        order: aFirst ? 1 : -1,
      });
    }
  }
  return out;
}
