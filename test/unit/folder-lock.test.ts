/**
 * One writer per results folder and per storage record: the folder's lock, the non-recursive create of the run
 * folder, and the global state record that another process never overwrites or removes. Also what /proc says
 * about a pid: only ENOENT is "gone".
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Owner, ProcessProbe } from "../../src/core/base/labels.ts";
import { LOCK_FILE, lockResultsFolder } from "../../src/adapters/results/lock.ts";
import { ResultsStore } from "../../src/adapters/results/store.ts";
import { StateWriter } from "../../src/adapters/storage/state-file.ts";
import { probeProcess, readBootId, readPidNamespace, selfOwner } from "../../src/adapters/host/process-identity.ts";
import type { StorageStateRecord } from "../../src/core/storage/state.ts";

const me: Owner = { pid: 100, hostname: "box", pidNs: "4026531836", bootId: "b1", startTime: "7" };
const other: Owner = { ...me, pid: 200, startTime: "9" };
const probeOf =
  (states: Record<number, ProcessProbe>) =>
  (pid: number): ProcessProbe =>
    states[pid] ?? { state: "gone" };

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tb-lock-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("the lock of a results folder", () => {
  it("a second run or resume of a locked folder is refused, naming the first", async () => {
    const first = await lockResultsFolder(dir, "run", { self: other, probe: probeOf({}) });
    const running = probeOf({ 200: { state: "running", startTime: "9" } });
    const second = lockResultsFolder(dir, "resume", { self: me, probe: running });
    await expect(second).rejects.toMatchObject({ code: "RESULTS_LOCKED" });
    await expect(second).rejects.toThrow(/in use by twinbench pid 200 on box .*run since/);
    await first.release();
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
    const third = await lockResultsFolder(dir, "resume", { self: me, probe: running });
    expect(JSON.parse(readFileSync(join(dir, LOCK_FILE), "utf8"))).toMatchObject({
      pid: 100,
      pidNs: "4026531836",
      bootId: "b1",
      startTime: "7",
      purpose: "resume",
    });
    await third.release();
  });

  it("a lock whose owner is provably gone (this namespace and boot, no such pid) is taken over", async () => {
    await lockResultsFolder(dir, "run", { self: other }); // never released: a kill -9
    const taken = await lockResultsFolder(dir, "resume", { self: me, probe: probeOf({}) });
    expect(JSON.parse(readFileSync(join(dir, LOCK_FILE), "utf8")).pid).toBe(100);
    expect(readdirSync(dir)).toEqual([LOCK_FILE]); // the stale one moved aside and removed
    await taken.release();
  });

  it.each([
    ["another pid namespace", { ...other, pidNs: "4026532999" }, { state: "gone" }],
    ["another boot", { ...other, bootId: "b0" }, { state: "gone" }],
    ["an unreadable /proc entry", other, { state: "unreadable", reason: "EACCES" }],
  ] as const)("a lock of %s is never taken over", async (_what, holder, probe) => {
    await lockResultsFolder(dir, "run", { self: holder });
    await expect(
      lockResultsFolder(dir, "resume", { self: me, probe: () => probe as ProcessProbe }),
    ).rejects.toMatchObject({ code: "RESULTS_LOCKED", hint: expect.stringContaining("cannot tell") });
  });

  it("a damaged lock file is refused, not read as no lock", async () => {
    writeFileSync(join(dir, LOCK_FILE), "{tor");
    await expect(lockResultsFolder(dir, "run", { self: me })).rejects.toMatchObject({ code: "RESULTS_LOCKED" });
  });

  it("release leaves a lock that is not its own any more", async () => {
    const l = await lockResultsFolder(dir, "run", { self: me });
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ version: 1, ...other, lockedAt: "x", purpose: "run" }));
    await l.release();
    expect(existsSync(join(dir, LOCK_FILE))).toBe(true);
  });
});

describe("ResultsStore", () => {
  it("create makes the run folder itself without -p and holds its lock until release", async () => {
    const out = join(dir, "results", "r1");
    const store = await ResultsStore.create(out);
    expect(readdirSync(out).sort()).toEqual([LOCK_FILE, "raw"]);
    // A second run given the folder while the first writes it: refused naming the first.
    await expect(ResultsStore.create(out)).rejects.toMatchObject({
      code: "RESULTS_LOCKED",
      message: expect.stringContaining(`pid ${process.pid}`),
    });
    await store.release();
    await expect(ResultsStore.create(out)).rejects.toMatchObject({ code: "RESULTS_EXISTS" });
    expect(readdirSync(out)).toEqual(["raw"]);
  });

  it("two runs given the same empty folder: one gets it, the other is refused naming it", async () => {
    const out = join(dir, "same");
    mkdirSync(out);
    const results = await Promise.allSettled([ResultsStore.create(out), ResultsStore.create(out)]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const refused = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
    expect(["RESULTS_LOCKED", "RESULTS_EXISTS"]).toContain((refused.reason as { code: string }).code);
    expect(existsSync(out)).toBe(true); // the winner's folder stays
  });

  it("open with the lock (resume) is refused while a run holds the folder", async () => {
    const out = join(dir, "r2");
    const run = await ResultsStore.create(out);
    writeFileSync(join(out, "run.json"), "{}");
    await expect(ResultsStore.open(out, { lock: true })).rejects.toMatchObject({
      code: "RESULTS_LOCKED",
      message: expect.stringContaining(`pid ${process.pid}`),
    });
    await run.release();
    const resumed = await ResultsStore.open(out, { lock: true });
    await resumed.release();
  });
});

describe("storage state records: one writer each", () => {
  const rec = (owner: Owner, serverId = "s1"): StorageStateRecord => ({
    version: 1,
    runId: "20261206-170000-ab12",
    serverId,
    sessionId: "sess",
    kind: "tmpfs",
    owner,
    createdAt: "2026-12-06T17:00:00.000Z",
    entries: [],
  });

  it("another process's record of the same run and server is neither overwritten nor removed", async () => {
    const stateDir = join(dir, "state");
    const live = new StateWriter(rec(other), undefined, stateDir);
    await live.flush();
    const file = live.globalFile;
    const intruder = new StateWriter(rec(me), undefined, stateDir);
    await expect(intruder.flush()).rejects.toMatchObject({
      code: "STORAGE_STATE_OWNED",
      message: expect.stringContaining("pid 200"),
    });
    await intruder.drop(); // a failed provision undoes what it made: never the other process's record
    expect(JSON.parse(readFileSync(file, "utf8")).owner.pid).toBe(200);
    await live.setEntries([]); // the owner itself removes its record
    expect(existsSync(file)).toBe(false);
  });

  it("two writers racing for a new record: exactly one wins", async () => {
    const stateDir = join(dir, "state");
    const results = await Promise.allSettled(
      [me, other].map((o) => new StateWriter(rec(o), undefined, stateDir).flush()),
    );
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
  });
});

describe("/proc", () => {
  it("only a missing /proc entry is a gone process; any other error is unreadable", () => {
    const proc = join(dir, "proc");
    mkdirSync(join(proc, "7"), { recursive: true });
    writeFileSync(join(proc, "7", "stat"), "7 (a b) S 1 7 7 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 12345 0 0");
    expect(probeProcess(7, proc)).toEqual({ state: "running", startTime: "12345" });
    expect(probeProcess(8, proc)).toEqual({ state: "gone" });
    mkdirSync(join(proc, "9", "stat"), { recursive: true }); // EISDIR: the entry is there but cannot be read
    expect(probeProcess(9, proc)).toMatchObject({ state: "unreadable" });
    if (process.getuid?.() !== 0) {
      mkdirSync(join(proc, "10"));
      chmodSync(join(proc, "10"), 0);
      expect(probeProcess(10, proc)).toMatchObject({ state: "unreadable" });
    }
  });

  it("this process names its pid namespace and boot", () => {
    expect(readPidNamespace()).toMatch(/^\d+$/);
    expect(readBootId()).toMatch(/^[0-9a-f-]{36}$/);
    expect(selfOwner()).toMatchObject({ pid: process.pid, pidNs: readPidNamespace(), bootId: readBootId() });
    expect(readPidNamespace(join(dir, "none"))).toBeUndefined();
  });
});
