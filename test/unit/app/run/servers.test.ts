/**
 * The servers stage's work between cells, on fake lab servers and sidecar: freezing idle servers, restoring the
 * snapshot, a new instance, and recovering a server that died or lost its connection.
 */
import { describe, expect, it } from "vitest";
import { Servers } from "../../../../src/app/run/servers.ts";
import type { Sidecar } from "../../../../src/app/run/sidecar.ts";
import type { LabServer } from "../../../../src/app/lab-server.ts";
import type { Cell } from "../../../../src/core/model/results.ts";
import { memorySession, stageContext } from "../../../support/run-context.ts";
import { scenario } from "../../../support/scenario.ts";

/** A lab server that logs what is done to it; `pauses` false: the freezer refuses. */
function labServer(id: string, log: string[], o: { pauses?: boolean; running?: boolean } = {}) {
  return {
    id,
    paused: false,
    async pause() {
      log.push(`pause ${id}`);
      if (o.pauses === false) return false;
      this.paused = true;
      return true;
    },
    async unpause() {
      log.push(`unpause ${id}`);
      this.paused = false;
    },
    stopAndRemove: async () => void log.push(`remove ${id}`),
    restore: async () => void log.push(`restore ${id}`),
    start: async () => (log.push(`start ${id}`), 1.5),
    restart: async () => void log.push(`restart ${id}`),
    isRunning: async () => o.running ?? true,
    logs: async () => `${id}'s last lines`,
  };
}

/** Servers a and b over an in-memory session; `prewarm` makes every restart prewarm through the fake sidecar. */
function setup(o: { pauseIdle?: boolean; prewarm?: boolean; a?: object; prewarmFails?: boolean } = {}) {
  const s = scenario({
    resources: o.pauseIdle === false ? { pauseIdle: false } : {},
    workload: { tests: ["oltp_insert"], threads: [1], duration: "2s", prewarm: o.prewarm ?? false },
  });
  const sc = stageContext({ scenario: s });
  const mem = memorySession();
  const log: string[] = [];
  const servers = new Servers(sc.ctx, mem.session);
  const a = labServer("a", log, o.a);
  const b = labServer("b", log);
  servers.byId.set("a", a as unknown as LabServer);
  servers.byId.set("b", b as unknown as LabServer);
  const sidecar = {
    command: async (server: { id: string }) => {
      log.push(`prewarm ${server.id}`);
      if (o.prewarmFails) throw new Error("table missing");
    },
  } as unknown as Sidecar;
  return { ...sc, ...mem, log, servers, a: a as unknown as LabServer, b: b as unknown as LabServer, sidecar };
}

const actions = (state: ReturnType<typeof memorySession>["state"]) =>
  (state.manifest.actions ?? []).map((x) => `${x.action} ${x.server}: ${x.detail}`);

describe("focus and pauseIdle", () => {
  it.each([
    [
      "frozen, said once per server",
      {},
      ["pause b", "unpause a", "pause b", "unpause a", "pause a", "unpause b"],
      [
        "pause b: idle servers are frozen (docker pause) while another server is measured",
        "pause a: idle servers are frozen (docker pause) while another server is measured",
      ],
      [],
    ],
    [
      "resources.pauseIdle: false: kept running, said once per server",
      { pauseIdle: false },
      ["unpause a", "unpause a", "unpause b"],
      [
        "no-pause b: idle servers keep running while another server is measured (resources.pauseIdle: false)",
        "no-pause a: idle servers keep running while another server is measured (resources.pauseIdle: false)",
      ],
      [],
    ],
    [
      "a freezer that refuses: kept running, a warning once",
      { a: { pauses: false } },
      ["pause b", "unpause a", "pause b", "unpause a", "pause a", "unpause b"],
      [
        "pause b: idle servers are frozen (docker pause) while another server is measured",
        "pause-failed a: could not freeze idle server a (the cgroup freezer refused, e.g. tasks in uninterruptible I/O); it keeps running while other servers are measured",
      ],
      [
        "could not freeze idle server a (the cgroup freezer refused, e.g. tasks in uninterruptible I/O); it keeps running while other servers are measured",
      ],
    ],
  ])("%s", async (_, o, wantLog, wantActions, wantWarnings) => {
    const { servers, a, b, log, state, warnings } = setup(o);
    await servers.focus(a);
    await servers.focus(a);
    await servers.focus(b);
    expect(log).toEqual(wantLog);
    expect(actions(state)).toEqual(wantActions);
    expect(warnings()).toEqual(wantWarnings);
  });
});

describe("restoreSnapshot and newInstance", () => {
  it.each([
    [false, ["remove a", "restore a", "start a"], "restore a: snapshot restored before oltp_insert"],
    [
      true,
      ["remove a", "restore a", "start a", "prewarm a"],
      "restore a: snapshot restored before oltp_insert, then prewarmed",
    ],
  ])("prewarm %s: the snapshot back, a new process, then the prewarm", async (prewarm, wantLog, action) => {
    const { servers, a, log, state, sidecar, ctx } = setup({ prewarm });
    await servers.restoreSnapshot(a, "oltp_insert", sidecar);
    expect(log).toEqual(wantLog);
    expect(actions(state)).toEqual([action]);
    expect(Object.keys(ctx.timings)).toContain("restore");
  });

  it("a new instance restarts every server from the snapshot and freezes it again", async () => {
    const { servers, log, state, sidecar, events } = setup();
    await servers.newInstance(3, sidecar);
    expect(log).toEqual(["remove a", "restore a", "start a", "pause a", "remove b", "restore b", "start b", "pause b"]);
    expect(actions(state).filter((x) => x.startsWith("instance"))).toEqual([
      "instance a: instance 3: restarted fresh from the post-prepare snapshot",
      "instance b: instance 3: restarted fresh from the post-prepare snapshot",
    ]);
    expect(events.filter((e) => e.type === "phase").map((e) => e.type === "phase" && e.detail)).toEqual([
      "instance 3",
      "instance 3",
    ]);
    expect(state.saves).toBe(1);
  });
});

describe("recoverIfDead", () => {
  const cell = {
    index: 7,
    key: "a/oltp_insert/1/2",
    server: "a",
    test: "oltp_insert",
    script: "oltp_insert",
    threads: 1,
    repeat: 2,
  } as Cell;

  it.each([
    ["alive and connected: nothing", { running: true }, {}, false, [], undefined, undefined],
    [
      "dead: its log kept, restarted from the current data dir",
      { running: false },
      {},
      true,
      ["restart a"],
      "a.crash-7.log",
      "restart a: server died during a/oltp_insert/1/2; restarted from the current data dir",
    ],
    [
      "alive but the connection was lost, a retry's second attempt",
      { running: true },
      { lost: true, attempt: 2 },
      true,
      ["restart a"],
      "a.crash-7-a2.log",
      "restart a: sysbench lost its connection to the server during a/oltp_insert/1/2; restarted from the current data dir",
    ],
  ])("%s", async (_, a, o, restarted, wantLog, logFile, action) => {
    const { servers, log, state, sidecar, events } = setup({ a });
    expect(await servers.recoverIfDead(servers.get("a"), cell, sidecar, o)).toBe(restarted);
    expect(log).toEqual(wantLog);
    expect([...state.raw.keys()]).toEqual(logFile ? [logFile] : []);
    expect(actions(state)).toEqual(action ? [action] : []);
    expect(events.some((e) => e.type === "server-restarted")).toBe(restarted);
  });

  it("a prewarm that fails after the restart: a warning, and the action says it runs cold", async () => {
    const { servers, state, sidecar, warnings } = setup({ a: { running: false }, prewarm: true, prewarmFails: true });
    expect(await servers.recoverIfDead(servers.get("a"), cell, sidecar)).toBe(true);
    expect(warnings()).toEqual(["a: prewarm after the restart failed: table missing"]);
    expect(actions(state)).toEqual([
      "restart a: server died during a/oltp_insert/1/2; restarted from the current data dir; its prewarm failed (table missing), so it runs cold",
    ]);
  });
});
