/**
 * The lock of a results folder (src/adapters/results/lock.ts): held for the whole run and every resume, it records
 * the pid, the start time and the namespace; a second run or resume is refused naming the first.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Owner, ProcessProbe } from "../../../../src/core/base/labels.ts";
import { LOCK_FILE, lockResultsFolder } from "../../../../src/adapters/results/lock.ts";

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
