import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { restoreLeftAffinity, withConfinedDaemons, type ConfineDeps } from "../../../../src/app/run/confine.ts";
import type { Affinity } from "../../../../src/adapters/host/affinity.ts";
import { affinityLedger } from "../../../../src/adapters/host/affinity-ledger.ts";
import type { Owner, ProcessProbe } from "../../../../src/core/base/labels.ts";
import type { RunContext } from "../../../../src/app/run/context.ts";
import type { ResultsSession } from "../../../../src/app/run/session.ts";

let ledgerDir: string;
beforeEach(() => {
  ledgerDir = mkdtempSync(join(tmpdir(), "tb-affinity-"));
});
afterEach(() => rmSync(ledgerDir, { recursive: true, force: true }));

const ME: Owner = { pid: 100, hostname: "box", pidNs: "4026531836", bootId: "b1", startTime: "1" };

function fakes(
  confineDaemons: boolean | undefined,
  hostId = "local",
  o: { lists?: Map<number, string>; self?: Owner; runId?: string; alive?: Set<number>; pids?: number[] } = {},
) {
  const lists =
    o.lists ??
    new Map<number, string>([
      [10, "0-1"],
      [11, "0-1"],
      [process.pid, "0,1"],
    ]);
  const calls: string[] = [];
  const affinity: Affinity = {
    pids: async () => o.pids ?? [10, 11, 12],
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
    runId: o.runId ?? "20261206-170000-ab12",
    warn: (m: string) => warnings.push(m),
  } as unknown as RunContext;
  const session = {
    action: (a: string, _s?: string, d?: string) => actions.push(`${a}: ${d}`),
  } as unknown as ResultsSession;
  // Processes of the fake: the listed pids run (with start time "s<pid>"); the owners in `alive` too.
  const probe = (pid: number): ProcessProbe =>
    o.alive?.has(pid)
      ? { state: "running" }
      : lists.has(pid)
        ? { state: "running", startTime: `s${pid}` }
        : { state: "gone" };
  const deps: ConfineDeps = { affinity, ledger: affinityLedger(ledgerDir), self: o.self ?? ME, probe };
  return { lists, calls, affinity, ctx, session, warnings, actions, deps };
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
        f.deps,
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
    // pid 11's failed restore stays in the ledger for `twinbench clean`.
    expect((await f.deps.ledger.readAll()).map((x) => x.rec.pids.map((p) => p.pid))).toEqual([[11]]);
  });
  it("does nothing when off, and warns on a remote engine", async () => {
    const off = fakes(undefined);
    expect(await withConfinedDaemons(off.ctx, off.session, async () => 7, off.deps)).toBe(7);
    expect(off.calls).toEqual([]);
    const remote = fakes(true, "h2");
    await withConfinedDaemons(remote.ctx, remote.session, async () => 0, remote.deps);
    expect(remote.calls).toEqual([]);
    expect(remote.warnings[0]).toMatch(/not on this machine/);
  });

  it("records every change before it is made: after a kill -9, clean puts the original lists back", async () => {
    const lists = new Map<number, string>([
      [10, "0-1"],
      [process.pid, "0,1"],
    ]);
    const f = fakes(true, "local", { lists, pids: [10] });
    // fn never returns: the process dies inside it.
    const ledgerDuring = await new Promise((entered) => {
      void withConfinedDaemons(
        f.ctx,
        f.session,
        async () => {
          entered((await f.deps.ledger.readAll()).map((x) => x.rec.pids));
          return new Promise<never>(() => undefined);
        },
        f.deps,
      );
    });
    expect(ledgerDuring).toEqual([
      [
        { pid: 10, startTime: "s10", original: "0-1" },
        { pid: process.pid, startTime: `s${process.pid}`, original: "0,1" },
      ],
    ]);
    expect(f.lists.get(10)).toBe("0");
    // The run's process is gone (pid 100 no longer runs): clean, run by another process, puts the lists back.
    const cleaner = { ...f.deps, self: { ...ME, pid: 300, startTime: "3" } };
    const out = await restoreLeftAffinity({}, cleaner);
    expect(f.lists.get(10)).toBe("0-1");
    expect(f.lists.get(process.pid)).toBe("0,1");
    expect(out.lines[0]).toMatch(/put back the CPU lists of pids .* that run 20261206-170000-ab12 confined/);
    expect(readdirSync(ledgerDir)).toEqual([]);
  });

  it("a run's record whose owner still runs, or cannot be judged, is left alone by clean", async () => {
    const lists = new Map<number, string>([
      [10, "0-1"],
      [process.pid, "0,1"],
    ]);
    const f = fakes(true, "local", { lists, pids: [10], alive: new Set([100]) });
    await new Promise<void>((entered) => {
      void withConfinedDaemons(
        f.ctx,
        f.session,
        () => {
          entered();
          return new Promise<never>(() => undefined);
        },
        f.deps,
      );
    });
    await restoreLeftAffinity({}, { ...f.deps, self: { ...ME, pid: 300 } });
    expect(f.lists.get(10)).toBe("0");
    const other = await restoreLeftAffinity({}, { ...f.deps, self: { ...ME, pid: 300, pidNs: "4026532999" } });
    expect(other.lines[0]).toMatch(/cannot be checked from here/);
    expect(f.lists.get(10)).toBe("0");
  });

  it("two runs confining at once never restore each other's lists: the original comes back when the last ends", async () => {
    const lists = new Map<number, string>([
      [10, "0-1"],
      [process.pid, "0,1"],
    ]);
    const alive = new Set([100, 200]);
    const a = fakes(true, "local", { lists, self: ME, runId: "20261206-170000-aaaa", alive, pids: [10] });
    const b = fakes(true, "local", {
      lists,
      self: { ...ME, pid: 200, startTime: "2" },
      runId: "20261206-170000-bbbb",
      alive,
      pids: [10],
    });
    a.ctx.scenario.resources.load.cpuset = "1";
    // Each run's fn says when it is entered (the daemons are confined) and ends when released.
    const start = (f: typeof a) => {
      let release!: () => void;
      let run!: Promise<void>;
      const entered = new Promise<void>((inside) => {
        run = withConfinedDaemons(
          f.ctx,
          f.session,
          () => {
            inside();
            return new Promise<void>((r) => (release = r));
          },
          f.deps,
        );
      });
      return { entered, release: () => release(), done: () => run };
    };
    const runA = start(a);
    await runA.entered;
    expect(lists.get(10)).toBe("1");
    const runB = start(b);
    await runB.entered;
    expect(lists.get(10)).toBe("0");
    runA.release();
    await runA.done();
    alive.delete(100);
    expect(lists.get(10)).toBe("0"); // B still confines it: A leaves it to B
    expect(a.actions.at(-1)).toMatch(/left to the runs that still confine them: .*10 \(run 20261206-170000-bbbb\)/);
    runB.release();
    await runB.done();
    expect(lists.get(10)).toBe("0-1"); // B puts back the original A recorded, not the list A had set
    expect(readdirSync(ledgerDir)).toEqual([]);
  });
});
