import { describe, expect, it, vi } from "vitest";
import { CancelledError } from "../../../../src/core/base/errors.ts";
import { PROGRESS_EVERY_SECONDS } from "../../../../src/core/model/events.ts";
import { STAGE_NOW, stageContext } from "../../../support/run-context.ts";

describe("RunContext", () => {
  it("stamps events with the deps' clock: warnings and phases", () => {
    const { ctx, events } = stageContext();
    ctx.warn("w");
    ctx.phase("prepare", { server: "a" });
    expect(events).toEqual([
      { type: "warning", at: STAGE_NOW, message: "w" },
      { type: "phase", at: STAGE_NOW, phase: "prepare", server: "a" },
    ]);
  });

  it.each([
    ["given", { sessionId: "abc" }, /^abc$/],
    ["made up", {}, /^[0-9a-f]{12}$/],
  ])("the session id is %s", (_, opts, want) => {
    expect(stageContext({ opts }).ctx.sessionId).toMatch(want);
  });

  it("labels carry the session, the run and the engine's host", () => {
    const { ctx } = stageContext({ opts: { sessionId: "s9" } });
    ctx.runId = "r9";
    expect(ctx.labels({ "twinbench.role": "server" })).toMatchObject({
      "twinbench.session": "s9",
      "twinbench.run": "r9",
      "twinbench.host": "local",
      "twinbench.pid": String(process.pid),
      "twinbench.role": "server",
    });
  });

  it.each([
    ["not aborted", false],
    ["aborted", true],
  ])("throwIfAborted when %s", (_, aborted) => {
    const ac = new AbortController();
    if (aborted) ac.abort();
    const { ctx } = stageContext({ opts: { signal: ac.signal } });
    if (aborted) expect(() => ctx.throwIfAborted()).toThrow(CancelledError);
    else expect(() => ctx.throwIfAborted()).not.toThrow();
  });

  it("time adds each call's wall time to its key, failures included", async () => {
    vi.useFakeTimers({ toFake: ["Date", "performance"] });
    try {
      const { ctx } = stageContext();
      await ctx.time("prepare", async () => vi.advanceTimersByTime(1500));
      await ctx.time("prepare", async () => vi.advanceTimersByTime(500));
      await expect(
        ctx.time("start", async () => {
          vi.advanceTimersByTime(250);
          throw new Error("no");
        }),
      ).rejects.toThrow("no");
      expect(ctx.timings).toEqual({ prepare: 2, start: 0.25 });
    } finally {
      vi.useRealTimers();
    }
  });

  it("withProgress says every few seconds that a step still runs, with its latest line", async () => {
    vi.useFakeTimers({ toFake: ["Date", "performance", "setInterval", "clearInterval"] });
    try {
      const { ctx, events } = stageContext();
      const out = await ctx.withProgress("prepare", "server a", async (note) => {
        vi.advanceTimersByTime(PROGRESS_EVERY_SECONDS * 1000);
        note("  loading table 1  ");
        note("   ");
        vi.advanceTimersByTime(PROGRESS_EVERY_SECONDS * 1000);
        return 7;
      });
      vi.advanceTimersByTime(PROGRESS_EVERY_SECONDS * 3000);
      expect(out).toBe(7);
      expect(events.map((e) => (e.type === "progress" ? [e.seconds, e.detail] : e.type))).toEqual([
        [PROGRESS_EVERY_SECONDS, undefined],
        [2 * PROGRESS_EVERY_SECONDS, "loading table 1"],
      ]);
    } finally {
      vi.useRealTimers();
    }
  });
});
