/** The simulation of the between-runs path: coverage of its intervals at 2, 3, 5 and 10 runs, of equal and unequal precision. */
import { describe, expect, it } from "vitest";
import { simulateReplication } from "../../../src/core/stats/replication-sim.ts";

// docs/stats.md "Between runs" publishes this table: runs of equal precision, and runs of which 20% ran on a busy
// machine (every cell's se 5–50× its own).
for (const busyShare of [0, 0.2])
  describe(`simulation of the shipped path (seed 1, 4000 scenarios of 6 cells a row, ${busyShare * 100}% busy runs)`, () => {
    for (const k of [2, 3, 5, 10])
      for (const tau of [0, 0.05, 0.1, 0.15])
        it(`k = ${k}, τ = ${tau * 100}%: pooled, replication and host-level intervals hold`, () => {
          const r = simulateReplication({ k, tau, reps: 4000, seed: 1, busyShare });
          expect(r.pooledCoverage).toBeGreaterThanOrEqual(0.94);
          expect(r.pooledCoverage).toBeLessThanOrEqual(0.96);
          expect(r.replicationCoverage).toBeGreaterThanOrEqual(0.94);
          expect(r.replicationCoverage).toBeLessThanOrEqual(0.96);
          // The host-level interval (this run's estimate with the earlier runs' level between runs) holds the cell's
          // truth 94–96% once there is a level to measure; with none (τ = 0) it is conservative, as docs/stats.md says.
          expect(r.hostCoverage).toBeGreaterThanOrEqual(0.94);
          expect(r.hostCoverage).toBeLessThanOrEqual(tau === 0 ? 1 : 0.965);
          // Runs of equal precision are almost never left out; with busy runs, a cell whose runs but one were busy
          // has no interval (at k = 2 about a third of the cells).
          expect(r.noInterval).toBeLessThanOrEqual(busyShare === 0 ? 0.005 : 0.4);
        });
  });
