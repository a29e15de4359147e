import { describe, expect, it } from "vitest";
import { withConfinedDaemons } from "../../../../src/app/run/confine.ts";
import type { Affinity } from "../../../../src/adapters/host/affinity.ts";
import type { RunContext } from "../../../../src/app/run/context.ts";
import type { ResultsSession } from "../../../../src/app/run/session.ts";

function fakes(confineDaemons: boolean | undefined, hostId = "local") {
  const lists = new Map<number, string>([
    [10, "0-1"],
    [11, "0-1"],
    [process.pid, "0,1"],
  ]);
  const calls: string[] = [];
  const affinity: Affinity = {
    pids: async () => [10, 11, 12],
    get: async (pid) => {
      if (pid === 12) throw new Error("No such process");
      return lists.get(pid)!;
    },
    set: async (pid, cpus) => {
      calls.push(`${pid}=${cpus}`);
      if (pid === 11 && cpus === "0-1") throw new Error("no such process");
      lists.set(pid, cpus);
    },
  };
  const warnings: string[] = [];
  const actions: string[] = [];
  const ctx = {
    scenario: { resources: { confineDaemons, load: { cpuset: "0" } } },
    engine: { hostId },
    warn: (m: string) => warnings.push(m),
  } as unknown as RunContext;
  const session = {
    action: (a: string, _s?: string, d?: string) => actions.push(`${a}: ${d}`),
  } as unknown as ResultsSession;
  return { lists, calls, affinity, ctx, session, warnings, actions };
}

describe("withConfinedDaemons", () => {
  it("moves the daemons and twinbench to the load CPUs while fn runs, and puts them back after an error", async () => {
    const f = fakes(true);
    let during = "";
    await expect(
      withConfinedDaemons(
        f.ctx,
        f.session,
        async () => {
          during = `${f.lists.get(10)} ${f.lists.get(11)} ${f.lists.get(process.pid)}`;
          throw new Error("cell loop failed");
        },
        f.affinity,
      ),
    ).rejects.toThrow("cell loop failed");
    expect(during).toBe("0 0 0");
    expect(f.lists.get(10)).toBe("0-1");
    expect(f.lists.get(process.pid)).toBe("0,1");
    // pid 11 ended meanwhile: its restore failure is recorded, the others are still restored.
    expect(f.actions.at(-1)).toMatch(/restored except 11: no such process/);
    // pid 12 ended between pgrep and taskset: skipped with a warning, the others still moved.
    expect(f.warnings[0]).toMatch(/not moved: 12 \(No such process\)/);
    expect(f.calls.some((c) => c.startsWith("12="))).toBe(false);
  });
  it("does nothing when off, and warns on a remote engine", async () => {
    const off = fakes(undefined);
    expect(await withConfinedDaemons(off.ctx, off.session, async () => 7, off.affinity)).toBe(7);
    expect(off.calls).toEqual([]);
    const remote = fakes(true, "h2");
    await withConfinedDaemons(remote.ctx, remote.session, async () => 0, remote.affinity);
    expect(remote.calls).toEqual([]);
    expect(remote.warnings[0]).toMatch(/not on this machine/);
  });
});
