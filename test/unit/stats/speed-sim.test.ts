/** The simulated CPU speed: two levels, switches at the given rate, cells that mix them, a probe with its error. */
import { describe, expect, it } from "vitest";
import { speedSwitches } from "../../../src/core/stats/speed-sim.ts";
import { normalFrom, seededRandom } from "../../../src/core/base/random.ts";

describe("speedSwitches", () => {
  const run = (rate: number, probeSd: number, n: number) => {
    const u = seededRandom(7);
    const next = speedSwitches({ rate, slowFactor: 1.6, probeSd }, u, normalFrom(u));
    return Array.from({ length: n }, next);
  };

  it("no switches: every cell at full speed, read exactly without a probe error", () => {
    for (const c of run(0, 0, 50)) {
      expect(c.level).toBe(0);
      expect(c.probe.workUs).toBe(100);
    }
  });

  it("switches at the rate asked: cells at either level, and the cells of a switch in between", () => {
    const cells = run(0.2, 0, 5000);
    const slow = Math.log(1 / 1.6);
    const full = cells.filter((c) => c.level === 0).length;
    const low = cells.filter((c) => Math.abs(c.level - slow) < 1e-12).length;
    const mixed = cells.length - full - low;
    expect(mixed / cells.length).toBeCloseTo(0.2, 1);
    expect(full).toBeGreaterThan(1500);
    expect(low).toBeGreaterThan(1500);
    for (const c of cells) {
      expect(c.level).toBeLessThanOrEqual(0);
      expect(c.level).toBeGreaterThanOrEqual(slow);
      // Without a probe error the probe reads the cell's mean speed: 100 µs at full speed.
      expect(c.probe.workUs).toBeCloseTo(100 / Math.exp(c.level), 9);
    }
  });

  it("the probe's error has the sd asked for, on the log scale", () => {
    const cells = run(0, 0.03, 4000);
    const e = cells.map((c) => Math.log(100 / c.probe.workUs));
    const m = e.reduce((a, x) => a + x, 0) / e.length;
    const sd = Math.sqrt(e.reduce((a, x) => a + (x - m) ** 2, 0) / (e.length - 1));
    expect(sd).toBeCloseTo(0.03, 2);
  });
});
