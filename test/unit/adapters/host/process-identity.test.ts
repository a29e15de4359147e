/** What /proc says about a pid (src/adapters/host/process-identity.ts): only ENOENT is "gone". */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  probeProcess,
  readBootId,
  readPidNamespace,
  selfOwner,
} from "../../../../src/adapters/host/process-identity.ts";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tb-proc-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

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
