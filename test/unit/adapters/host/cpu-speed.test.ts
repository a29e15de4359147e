/** The speed probe on this machine's real threads: pinned, sampling, stopping; a CPU that does not exist is said. */
import { availableParallelism } from "node:os";
import { describe, expect, it } from "vitest";
import { startSpeedProbe } from "../../../../src/adapters/host/cpu-speed.ts";

describe("startSpeedProbe", () => {
  it("samples every CPU asked for, on this thread's clock, until stopped", async () => {
    const cpus = availableParallelism() > 1 ? [0, 1] : [0];
    const t0 = performance.now();
    const p = startSpeedProbe(cpus);
    await p.ready(10_000);
    expect(p.error()).toBeUndefined();
    // Two sampling periods more, so that each CPU has given at least two samples.
    await new Promise((r) => setTimeout(r, 600));
    const s = p.samples(t0, performance.now());
    for (const cpu of cpus) expect(s.filter((x) => x.cpu === cpu).length).toBeGreaterThanOrEqual(2);
    for (const x of s) {
      expect(x.atMs).toBeGreaterThanOrEqual(t0);
      expect(x.workUs).toBeGreaterThan(0);
    }
    expect(p.samples(t0 - 10_000, t0 - 1)).toEqual([]);
    await p.stop();
    const n = p.samples(t0, performance.now() + 1e6).length;
    await new Promise((r) => setTimeout(r, 600));
    expect(p.samples(t0, performance.now() + 1e6).length).toBe(n);
  });

  it("a CPU this machine does not have: an error naming it, and no samples", async () => {
    const p = startSpeedProbe([4095]);
    await p.ready(10_000);
    expect(p.error()).toMatch(/could not pin a thread to CPU 4095/);
    expect(p.samples(0, Infinity)).toEqual([]);
    await p.stop();
  });
});
