/** Waiting for a quiet machine before a re-run, on fake time: one look a second, two quiet looks in a row. */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { waitForQuiet } from "../../../../src/app/run/quiet.ts";
import type { CpuSample } from "../../../../src/core/measure/interference.ts";
import { stageContext } from "../../../support/run-context.ts";

/**
 * A machine whose outside work uses `outsiders(second)` cores in each second (the run's server 0.05 core on top,
 * which is the lab's own and never counts), read by a sampler at the fake clock.
 */
function machine(outsiders: (second: number) => number) {
  let busyTicks = 0;
  let serverNs = 0;
  let lastSecond = 0;
  const advanceTo = (t: number) => {
    for (; lastSecond < t; lastSecond++) {
      busyTicks += Math.round((outsiders(lastSecond) + 0.05) * 100);
      serverNs += 0.05e9;
    }
  };
  return (ids: readonly string[]): CpuSample => {
    const now = performance.now();
    advanceTo(Math.floor(now / 1000));
    return {
      atMs: now,
      procStat: `cpu  ${busyTicks} 0 0 100000 0 0 0 0 0 0\n`,
      psiCpu: null,
      containersNs: Object.fromEntries(ids.map((id) => [id, serverNs])),
      selfUs: 0,
    };
  };
}

beforeEach(() => void vi.useFakeTimers({ toFake: ["Date", "performance", "setTimeout"] }));
afterEach(() => void vi.useRealTimers());

async function waitOn(outsiders: (s: number) => number, limitS: number) {
  const { ctx } = stageContext({ deps: { cpuSampler: machine(outsiders) } });
  const p = waitForQuiet(ctx, () => ["srv"], limitS);
  await vi.advanceTimersByTimeAsync((limitS + 2) * 1000);
  return p;
}

describe("waitForQuiet", () => {
  it("an idle machine: two quiet looks, 2 s", async () => {
    expect(await waitOn(() => 0, 30)).toEqual({ waitedS: 2, quiet: true });
  });

  it("a burst of outside work (0.9 core for the first 10 s): it waits until the burst ends, plus two quiet looks", async () => {
    const r = await waitOn((s) => (s < 10 ? 0.9 : 0), 30);
    expect(r).toEqual({ waitedS: 12, quiet: true });
  });

  it("work that never ends: it gives up at the limit, saying the machine was not quiet", async () => {
    const r = await waitOn(() => 0.5, 5);
    expect(r.quiet).toBe(false);
    expect(r.waitedS).toBe(5);
  });

  it("a limit of 0 waits not at all; a machine that cannot be watched neither", async () => {
    expect(await waitOn(() => 0.9, 0)).toEqual({ waitedS: 0, quiet: null });
    const { ctx } = stageContext();
    expect(await waitForQuiet(ctx, () => ["srv"], 30)).toEqual({ waitedS: 0, quiet: null });
  });

  it("a sampler that fails for a reason other than absence is an error, not a quiet machine", async () => {
    const fail = () => {
      throw Object.assign(new Error("permission denied"), { code: "EACCES" });
    };
    const { ctx } = stageContext({ deps: { cpuSampler: fail } });
    await expect(waitForQuiet(ctx, () => ["srv"], 30)).rejects.toThrow("permission denied");
  });
});
