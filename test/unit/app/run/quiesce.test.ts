/** The quiesce stage on fake time: InnoDB's backlog read once a second until it settles or the wait runs out. */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { QUIESCE_TIMEOUT_S, quiesce } from "../../../../src/app/run/quiesce.ts";
import type { LabServer } from "../../../../src/app/lab-server.ts";
import type { Probe } from "../../../../src/adapters/mysql/probe.ts";
import type { BacklogSample } from "../../../../src/core/measure/levers.ts";
import { memorySession, stageContext } from "../../../support/run-context.ts";

const server = { id: "a", rootEndpoint: () => ({ host: "a" }) } as unknown as LabServer;

/** A probe whose backlog reads are `samples` in turn (the last one repeated), counting the reads. */
function backlog(samples: BacklogSample[]) {
  const seen = { reads: 0 };
  const probe = {
    readInnodbBacklog: async () => samples[Math.min(seen.reads++, samples.length - 1)]!,
  } as unknown as Probe;
  return { probe, seen };
}

beforeEach(() => void vi.useFakeTimers({ toFake: ["Date", "performance", "setTimeout"] }));
afterEach(() => void vi.useRealTimers());

describe("quiesce", () => {
  it.each([
    [
      "near zero at once",
      [{ historyLength: 10, dirtyPages: 0 }],
      1,
      0,
      "settled before t1 after 0.0 s: history length 10, dirty pages 0",
    ],
    [
      "falling, then near zero",
      [
        { historyLength: 5000, dirtyPages: 900 },
        { historyLength: 2000, dirtyPages: 300 },
        { historyLength: 40, dirtyPages: 5 },
      ],
      3,
      2,
      "settled before t1 after 2.0 s: history length 40, dirty pages 5",
    ],
    [
      "stopped falling (flat over three more looks)",
      [{ historyLength: 800, dirtyPages: 100 }],
      4,
      3,
      "settled before t1 after 3.0 s: history length 800, dirty pages 100",
    ],
    [
      "history length unknown",
      [{ historyLength: null, dirtyPages: 3 }],
      1,
      0,
      "settled before t1 after 0.0 s: history length unknown, dirty pages 3",
    ],
  ])("%s: %d look(s), %d s, and the action says what it saw", async (_, samples, reads, seconds, detail) => {
    const { probe, seen } = backlog(samples);
    const { ctx, warnings } = stageContext({ deps: { probe } });
    const { session, state } = memorySession();
    const run = quiesce(ctx, session, server, "before t1");
    await vi.runAllTimersAsync();
    expect(await run).toBe(seconds);
    expect(seen.reads).toBe(reads);
    expect(state.manifest.actions).toEqual([{ at: expect.any(String), server: "a", action: "quiesce", detail }]);
    expect(warnings()).toEqual([]);
  });

  it("a backlog still falling at the time limit: the cell runs anyway, with a warning", async () => {
    let n = 100000;
    const probe = {
      readInnodbBacklog: async () => ({ historyLength: (n -= 100), dirtyPages: 500 }),
    } as unknown as Probe;
    const { ctx, warnings } = stageContext({ deps: { probe } });
    const { session, state } = memorySession();
    const run = quiesce(ctx, session, server, "before t1");
    await vi.runAllTimersAsync();
    expect(await run).toBe(QUIESCE_TIMEOUT_S);
    expect(state.manifest.actions?.[0]?.detail).toMatch(/^not settled after 60 s before t1 after 60\.0 s: /);
    expect(warnings()).toEqual([
      `a: InnoDB did not settle within 60 s before t1 (history length ${n}, dirty pages 500)`,
    ]);
  });

  it("a probe that cannot read the backlog: no wait, a warning", async () => {
    const { ctx, warnings } = stageContext({ deps: { probe: {} as Probe } });
    const { session, state } = memorySession();
    expect(await quiesce(ctx, session, server, "after prepare")).toBe(0);
    expect(state.manifest.actions).toEqual([]);
    expect(warnings()).toEqual([
      "workload.quiesce: the SQL probe cannot read InnoDB's backlog; a after prepare runs without waiting",
    ]);
  });

  it("a cancelled run stops waiting", async () => {
    const ac = new AbortController();
    const { probe } = backlog([{ historyLength: 100000, dirtyPages: 900 }]);
    const { ctx } = stageContext({ deps: { probe }, opts: { signal: ac.signal } });
    ac.abort();
    await expect(quiesce(ctx, memorySession().session, server, "before t1")).rejects.toMatchObject({
      code: "CANCELLED",
    });
  });
});
