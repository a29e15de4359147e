/** The global storage state record (src/adapters/storage/state-file.ts): one writer each, never another's. */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Owner } from "../../../../src/core/base/labels.ts";
import { globalStatePath, StateWriter } from "../../../../src/adapters/storage/state-file.ts";
import type { StorageStateRecord } from "../../../../src/core/storage/state.ts";

const me: Owner = { pid: 100, hostname: "box", pidNs: "4026531836", bootId: "b1", startTime: "7" };
const other: Owner = { ...me, pid: 200, startTime: "9" };

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tb-state-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

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

describe("path of a state record", () => {
  it("a state file of run `..` stays inside the state dir", () => {
    expect(globalStatePath("/var/lib/twinbench/state", "..", "..")).toBe("/var/lib/twinbench/state/__-__.json");
  });
});
