/** Which CPUs a run watches for speed, and the watch around the cells: started, shared on the context, stopped. */
import { describe, expect, it } from "vitest";
import { watchedCpus, withSpeedWatch } from "../../../../src/app/run/speed.ts";
import type { SpeedProbe } from "../../../../src/adapters/host/cpu-speed.ts";
import { stageContext } from "../../../support/run-context.ts";

const servers = (...cpusets: Array<string | undefined>) => cpusets;

/** A fake probe that fails with `failure` (at start, or only after the cells with `late`), and records its life. */
function fakeProbe(failure?: string, late = false) {
  const life: string[] = [];
  let failed = failure !== undefined && !late;
  const start = (cpus: readonly number[]): SpeedProbe => {
    life.push(`start ${cpus.join(",")}`);
    return {
      cpus,
      samples: () => [],
      error: () => (failed ? failure : undefined),
      ready: async () => {},
      stop: async () => {
        life.push("stop");
        if (late) failed = true;
      },
    };
  };
  return { start, life };
}

describe("watchedCpus", () => {
  it("the union of the servers' cpusets, in order", () => {
    expect(watchedCpus(["1", "1"])).toEqual([1]);
    expect(watchedCpus(["2-3", "1,3"])).toEqual([1, 2, 3]);
  });

  it("none when a server has no cpuset: it may run on any CPU", () => {
    expect(watchedCpus(["1", undefined])).toEqual([]);
    expect(watchedCpus([])).toEqual([]);
  });
});

describe("withSpeedWatch", () => {
  it("watches the servers' CPUs while the cells run, on the context, and stops after them, even when they throw", async () => {
    const p = fakeProbe();
    const { ctx, warnings } = stageContext({ deps: { speedProbe: p.start } });
    let seen: readonly number[] | undefined;
    await withSpeedWatch(ctx, servers("1", "1"), async () => void (seen = ctx.speed?.cpus));
    expect(seen).toEqual([1]);
    expect(ctx.speed).toBeUndefined();
    await expect(
      withSpeedWatch(ctx, servers("0-1", "1"), async () => {
        throw new Error("a cell failed");
      }),
    ).rejects.toThrow("a cell failed");
    expect(p.life).toEqual(["start 1", "stop", "start 0,1", "stop"]);
    expect(warnings()).toEqual([]);
  });

  it("a probe that cannot start: the cells run unwatched, and the run says why", async () => {
    const p = fakeProbe("could not pin a thread to CPU 1: taskset: not found");
    const { ctx, warnings } = stageContext({ deps: { speedProbe: p.start } });
    let watched = true;
    await withSpeedWatch(ctx, servers("1", "1"), async () => void (watched = ctx.speed !== undefined));
    expect(watched).toBe(false);
    expect(warnings()).toEqual(["CPU speed is not watched: could not pin a thread to CPU 1: taskset: not found"]);
  });

  it("a probe that fails during the cells: said once they end", async () => {
    const p = fakeProbe("the speed probe for CPU 1 failed: out of memory", true);
    const { ctx, warnings } = stageContext({ deps: { speedProbe: p.start } });
    await withSpeedWatch(ctx, servers("1", "1"), async () => {});
    expect(warnings()).toEqual([
      "CPU speed stopped being watched during the run: the speed probe for CPU 1 failed: out of memory",
    ]);
  });

  it("servers without a cpuset: no probe, and the run says what it cannot tell apart", async () => {
    const p = fakeProbe();
    const { ctx, warnings } = stageContext({ deps: { speedProbe: p.start } });
    await withSpeedWatch(ctx, servers("1", undefined), async () => {});
    expect(p.life).toEqual([]);
    expect(warnings()[0]).toMatch(/^CPU speed is not watched: a server has no cpuset/);
  });

  it("no probe in the run's dependencies: nothing to say", async () => {
    const { ctx, warnings } = stageContext();
    expect(await withSpeedWatch(ctx, servers("1"), async () => 7)).toBe(7);
    expect(warnings()).toEqual([]);
  });
});
