/** The history stage: the finished run's cells go into the host's history, or a warning says why not. */
import { describe, expect, it } from "vitest";
import { recordRunHistory } from "../../../../src/app/run/history.ts";
import { runHistoryEntry } from "../../../../src/app/history.ts";
import { NO_LEVEL_YET } from "../../../../src/core/report/history.ts";
import type { HistoryEntry } from "../../../../src/core/stats/history.ts";
import type { RunOptions } from "../../../../src/app/run/types.ts";
import { memorySession, stageContext } from "../../../support/run-context.ts";
import { load } from "../../../support/results-fixture.ts";

const { manifest, cells } = load("repeats");

function history(fail?: Error) {
  const appended: HistoryEntry[] = [];
  return {
    appended,
    store: {
      append: async (e: HistoryEntry) => {
        if (fail) throw fail;
        appended.push(e);
      },
    },
  };
}

describe("recordRunHistory", () => {
  it("appends the run's entry, as runHistoryEntry makes it", async () => {
    const h = history();
    const { ctx, warnings } = stageContext({ deps: { history: h.store as never } });
    await recordRunHistory(ctx, memorySession(manifest, cells).session);
    expect(h.appended).toEqual([runHistoryEntry(manifest, cells)]);
    expect(h.appended[0]).not.toBeNull();
    expect(warnings()).toEqual([]);
  });

  it.each([
    ["no history store", false, {}, cells],
    ["an identity-only run", true, { identityOnly: true }, cells],
    ["no cell with an interval", true, {}, []],
  ] as Array<[string, boolean, Partial<RunOptions>, typeof cells]>)(
    "%s: nothing appended, no warning",
    async (_, withStore, opts, recs) => {
      const h = history();
      const { ctx, warnings } = stageContext({ deps: withStore ? { history: h.store as never } : {}, opts });
      await recordRunHistory(ctx, memorySession(manifest, recs).session);
      expect(h.appended).toEqual([]);
      expect(warnings()).toEqual([]);
    },
  );

  it("a failed append is a warning, not a failed run", async () => {
    const h = history(new Error("disk full"));
    const { ctx, warnings } = stageContext({ deps: { history: h.store as never } });
    await expect(recordRunHistory(ctx, memorySession(manifest, cells).session)).resolves.toBeUndefined();
    expect(warnings()).toEqual(["could not add the run to the host's history: disk full"]);
  });
});

describe("the second-run sentences at the end of a run", () => {
  it("with the history read back: the report's own lines, in one event", async () => {
    const h = history();
    const store = { ...h.store, read: async () => h.appended };
    const { ctx, events } = stageContext({ deps: { history: store as never } });
    await recordRunHistory(ctx, memorySession(manifest, cells).session);
    const second = events.filter((e) => e.type === "second-run");
    expect(second).toHaveLength(1);
    // Only this run in the history: no level between runs yet, said in the report's words.
    expect((second[0] as { lines: string[] }).lines).toEqual([
      NO_LEVEL_YET,
      "Verdicts are for this run alone (--level run).",
    ]);
  });

  it("a store that cannot read back: no event", async () => {
    const h = history();
    const { ctx, events } = stageContext({ deps: { history: h.store as never } });
    await recordRunHistory(ctx, memorySession(manifest, cells).session);
    expect(events.some((e) => e.type === "second-run")).toBe(false);
  });
});
