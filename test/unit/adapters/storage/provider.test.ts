import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";

import { createStorageProvider } from "../../../../src/adapters/storage/provider.ts";

// The provisioner is replaced (the provider's seam, not a module mock: the unit suite runs without isolation): what
// is under test is the provider's refreshFacts, not a storage kind.
const refresh = vi.fn<() => Promise<{ freeBytesAfter?: number }>>();
const provisionerFor = (() => ({
  problems: () => [],
  provision: async () => ({
    mount: { kind: "volume", source: "v", target: "/var/lib/mysql" },
    facts: { kind: "volume", freeBytesBefore: 100 },
    needsHolder: false,
    refresh,
  }),
})) as never;

describe("storage facts after the run (a failed reading is not an absent one)", () => {
  it("a failed re-measure is thrown to the caller (teardown notes it), not kept as the start facts", async () => {
    const dir = await mkdtemp(join(tmpdir(), "tb-refresh-"));
    const runner = { run: async () => ({ stdout: "", stderr: "", exitCode: 1 }) };
    const engine = { location: () => ({ local: true }) } as never;
    const p = createStorageProvider({ engine, runner, stateDir: join(dir, "state"), hostname: "h", provisionerFor });
    const st = await p.provision({
      spec: { kind: "volume", keep: false } as never,
      serverId: "s1",
      runId: "r1",
      sessionId: "x",
      runDir: dir,
      uid: 999,
      gid: 999,
      labels: {},
    });
    refresh.mockRejectedValueOnce(new Error("df: permission denied"));
    await expect(st.refreshFacts()).rejects.toThrow("df: permission denied");
    expect(st.facts).toEqual({ kind: "volume", freeBytesBefore: 100 });
    refresh.mockResolvedValueOnce({ freeBytesAfter: 90 });
    expect(await st.refreshFacts()).toEqual({ kind: "volume", freeBytesBefore: 100, freeBytesAfter: 90 });
  });
});

describe("onEngine: the same provider on a run's view of its engine", () => {
  it("its provisioners and its undo get the engine given (a guarded one fails fast once its host is lost)", async () => {
    const dir = await mkdtemp(join(tmpdir(), "tb-on-engine-"));
    const runner = { run: async () => ({ stdout: "", stderr: "", exitCode: 0 }) };
    const raw = { location: () => ({ local: true }), name: "raw" } as never;
    const removed: string[] = [];
    const guarded = {
      location: () => ({ local: true }),
      name: "guarded",
      volumes: {
        inspect: async (name: string) => ({ name, labels: { "twinbench.run": "r1" } }),
        remove: async (n: string) => void removed.push(n),
      },
    } as never;
    const seen: string[] = [];
    const spy = ((kind: never) => ({
      ...(provisionerFor as (k: never) => object)(kind),
      provision: async (_plan: unknown, ctx: { writer: { add(e: unknown): Promise<void> } }, host: never) => {
        seen.push((host as { engine: { name: string } }).engine.name);
        await ctx.writer.add({ type: "volume", name: "tb-vol", keep: false });
        return {
          mount: { kind: "volume", source: "tb-vol", target: "/var/lib/mysql" },
          facts: { kind: "volume" },
          needsHolder: false,
          refresh: async () => ({}),
        };
      },
    })) as never;
    const p = createStorageProvider({
      engine: raw,
      runner,
      stateDir: join(dir, "state"),
      hostname: "h",
      provisionerFor: spy,
    });
    const st = await p.onEngine!(guarded).provision({
      spec: { kind: "volume", keep: false } as never,
      serverId: "s1",
      runId: "r1",
      sessionId: "x",
      runDir: dir,
      uid: 999,
      gid: 999,
      labels: {},
    });
    expect(seen).toEqual(["guarded"]);
    await st.dispose();
    expect(removed).toEqual(["tb-vol"]);
  });
});
