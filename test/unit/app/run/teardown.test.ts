/** The teardown stage: every server's log kept, storage re-measured, the stack disposed, run.json finished. */
import { describe, expect, it } from "vitest";
import { teardown } from "../../../../src/app/run/teardown.ts";
import type { Servers } from "../../../../src/app/run/servers.ts";
import type { RunStatus } from "../../../../src/app/run/types.ts";
import type { ServerManifest, StorageFacts } from "../../../../src/core/model/results.ts";
import { STAGE_NOW, memorySession, stageContext } from "../../../support/run-context.ts";

interface FakeServer {
  id: string;
  containerId?: string;
  logFails?: boolean;
  refresh?: () => Promise<StorageFacts>;
}

function servers(list: FakeServer[], log: string[]) {
  return {
    all: () =>
      list.map((s) => ({
        id: s.id,
        containerId: s.containerId,
        unpause: async () => void log.push(`unpause ${s.id}`),
        logs: async (n: number) => {
          if (s.logFails) throw new Error("container gone");
          return `${s.id} log (${n} lines)`;
        },
        storage: s.refresh ? { refreshFacts: s.refresh } : undefined,
      })),
  } as unknown as Servers;
}

describe("teardown", () => {
  it.each(["ok", "partial", "failed", "cancelled"] as RunStatus[])(
    "%s: logs kept, storage re-measured, stack disposed last-in first-out, run.json finished, reports written",
    async (status) => {
      const log: string[] = [];
      const { ctx, events, warnings } = stageContext({
        deps: { writeReports: async (dir: string) => void log.push(`reports ${dir}`) },
      });
      ctx.stack.defer("first", async () => void log.push("dispose first"));
      ctx.stack.defer("second", async () => void log.push("dispose second"));
      const { session, state } = memorySession({
        servers: [{ id: "a", storage: { kind: "tmpfs", freeBytes: 1 } } as unknown as ServerManifest],
      });
      const after = { kind: "tmpfs", freeBytesAfter: 2 } as unknown as StorageFacts;
      await teardown(
        ctx,
        session,
        servers([{ id: "a", containerId: "c1", refresh: async () => after }, { id: "b" }], log),
        status,
      );
      expect(log).toEqual(["unpause a", "dispose second", "dispose first", "reports /nonexistent/run"]);
      expect([...state.raw]).toEqual([["a.error.log", "a log (5000 lines)"]]);
      expect(state.manifest.servers[0]!.storage).toBe(after);
      expect(state.manifest).toMatchObject({ status, endedAt: STAGE_NOW });
      expect(Object.keys(state.manifest.timings ?? {}).sort()).toEqual(["teardown", "wall"]);
      expect(state.saves).toBe(1);
      expect(events[0]).toEqual({ type: "phase", at: STAGE_NOW, phase: "teardown" });
      expect(warnings()).toEqual([]);
    },
  );

  it("what fails is a warning and an action, and the rest still runs", async () => {
    const { ctx, warnings } = stageContext({
      deps: {
        writeReports: async () => {
          throw new Error("no space");
        },
      },
    });
    ctx.stack.defer("remove network", async () => {
      throw new Error("in use");
    });
    const { session, state } = memorySession({
      servers: [{ id: "a", storage: { kind: "tmpfs", freeBytesAfter: 9 } } as unknown as ServerManifest],
    });
    await teardown(
      ctx,
      session,
      servers(
        [
          {
            id: "a",
            containerId: "c1",
            logFails: true,
            refresh: async () => {
              throw new Error("df failed");
            },
          },
        ],
        [],
      ),
      "failed",
    );
    expect(warnings()).toEqual([
      "teardown: could not keep the error log of server a: container gone",
      "teardown: could not re-measure the storage of server a after the run: df failed",
      "teardown: remove network: in use",
      "reports: no space",
    ]);
    expect(state.manifest.actions?.map((a) => a.action)).toEqual(["log-not-kept", "storage-facts-failed"]);
    // The stale "after" figure is dropped: the failure is the after, not the start's value.
    expect(state.manifest.servers[0]!.storage).toEqual({ kind: "tmpfs", afterError: "df failed" });
    expect(state.manifest.status).toBe("failed");
  });
});
