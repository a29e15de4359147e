/**
 * Fault matrix: dockerd hung (SIGSTOP) in the middle of a measured cell, rather than restarted. A single-host run
 * watches its engine: once pings go unanswered the run ends with HOST_LOST (a clear error, no internal one) instead
 * of waiting for ever; after SIGCONT, `clean --run ID` leaves nothing and `--resume` completes the plan.
 *
 * Stopping dockerd stalls every client of the engine: CI runs this file alone, and elsewhere the heavy lock keeps
 * other Docker users out.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { ensureLab, tinyScenario } from "../integration/support/lab.ts";
import { cleanAndCheck, resumeToTheEnd, RunProcess, type Ev } from "./support.ts";

beforeAll(ensureLab, 1_800_000);

async function dockerdPid(): Promise<number> {
  const pid = Number((await readFile("/var/run/docker.pid", "utf8")).trim());
  if (!(pid > 0 && existsSync(`/proc/${pid}`))) throw new Error("no running dockerd in /var/run/docker.pid");
  return pid;
}

describe("dockerd hung mid-cell", () => {
  it("the run ends with HOST_LOST; after SIGCONT, clean and --resume complete", { timeout: 900_000 }, async () => {
    const { file, dir } = await tinyScenario({}, { threads: [1], duration: "20s", repeats: 1 });
    const out = join(dir, "out");
    const p = new RunProcess(["run", file, "--out", out]);
    const runId = await p.runId();
    await p.waitFor((e: Ev) => e.type === "interval" && e.phase === "measure");
    const pid = await dockerdPid();
    const stoppedAt = Date.now();
    process.kill(pid, "SIGSTOP");
    let tookMs = 0;
    try {
      const r = await p.child;
      tookMs = Date.now() - stoppedAt;
      expect(r.exitCode, r.all).toBe(1);
      expect(r.all).toContain("HOST_LOST");
      expect(r.all).not.toContain("internal error");
    } finally {
      process.kill(pid, "SIGCONT");
    }
    // Three pings 5 s apart, each with 5 s to answer, then the teardown's calls fail at once.
    expect(tookMs).toBeLessThan(90_000);
    await cleanAndCheck(runId);
    await resumeToTheEnd(out);
  });
});
