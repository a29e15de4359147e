import { describe, expect, it } from "vitest";
import { allOrAbort } from "../../../src/core/base/all-or-abort.ts";

/** A task that waits until its signal aborts, then rejects with the abort reason. */
const untilAborted = (signal: AbortSignal): Promise<never> =>
  new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason as Error);
    signal.addEventListener("abort", () => reject(signal.reason as Error), { once: true });
  });

describe("allOrAbort", () => {
  it.each([
    [[], []],
    [[1], [10]],
    [
      [3, 1, 2],
      [30, 10, 20],
    ],
  ])("keys %j give the results in key order %j", async (keys, want) => {
    const out = await allOrAbort(undefined, keys, async (k) => {
      await new Promise((r) => setImmediate(r));
      return k * 10;
    });
    expect(out).toEqual(want);
  });

  it("the first failure aborts the others and is thrown once all have settled", async () => {
    const settled: string[] = [];
    const boom = new Error("first");
    const run = allOrAbort(undefined, ["a", "b", "c"], async (k, signal) => {
      if (k === "b") throw boom;
      try {
        await untilAborted(signal);
      } finally {
        settled.push(k);
      }
    });
    await expect(run).rejects.toBe(boom);
    expect(settled.sort()).toEqual(["a", "c"]);
  });

  it("a later failure does not replace the first", async () => {
    const first = new Error("first");
    const run = allOrAbort(undefined, [1, 2], async (k, signal) => {
      if (k === 1) throw first;
      await untilAborted(signal).catch(() => undefined); // the abort is expected here; fail differently after it
      throw new Error("second");
    });
    await expect(run).rejects.toBe(first);
  });

  it("an outer abort reaches every task", async () => {
    const outer = new AbortController();
    const reason = new Error("cancelled");
    const seen: unknown[] = [];
    const run = allOrAbort(outer.signal, [1, 2], async (_k, signal) => {
      await untilAborted(signal).catch((e: unknown) => {
        seen.push(e);
        throw e;
      });
    });
    outer.abort(reason);
    await expect(run).rejects.toBe(reason);
    expect(seen).toEqual([reason, reason]);
  });

  it("an outer signal already aborted gives each task an aborted signal", async () => {
    const outer = new AbortController();
    outer.abort(new Error("early"));
    const aborted: boolean[] = [];
    await allOrAbort(outer.signal, [1, 2], async (_k, signal) => {
      aborted.push(signal.aborted);
    });
    expect(aborted).toEqual([true, true]);
  });
});
