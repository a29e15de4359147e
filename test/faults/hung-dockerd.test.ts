/**
 * Fault matrix: dockerd hung (SIGSTOP) in the middle of a measured cell, rather than restarted. A single-host run
 * watches its engine: once pings go unanswered the run ends with HOST_LOST (a clear error, no internal one) instead
 * of waiting for ever, and gives its results folder's lock back; after SIGCONT, `clean --run ID` leaves nothing and
 * `--resume` completes the plan.
 *
 * Stopping dockerd stalls every client of the engine: the fault matrix runs its files one at a time, and elsewhere
 * the heavy lock keeps other Docker users out. One 4 s cell per server: dockerd is stopped at the first interval.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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

/** The stopped dockerd, continued whatever happens: every other user of this engine waits on it. */
let stopped: number | undefined;
function continueDockerd(): void {
  if (stopped === undefined) return;
  try {
    process.kill(stopped, "SIGCONT");
  } catch {
    // dockerd is gone (restarted by its service manager): nothing stopped is left
  }
  stopped = undefined;
}
const onSignal = (sig: NodeJS.Signals) => {
  continueDockerd();
  process.kill(process.pid, sig);
};
beforeAll(() => {
  process.once("SIGTERM", onSignal);
  process.once("SIGINT", onSignal);
});
afterAll(() => {
  continueDockerd();
  process.off("SIGTERM", onSignal);
  process.off("SIGINT", onSignal);
});

describe("dockerd hung mid-cell", () => {
  it("the run ends with HOST_LOST; after SIGCONT, clean and --resume complete", { timeout: 900_000 }, async () => {
    const { file, dir } = await tinyScenario({}, { threads: [1], duration: "4s", repeats: 1 });
    const out = join(dir, "out");
    const p = new RunProcess(["run", file, "--out", out]);
    const runId = await p.runId();
    await p.waitFor((e: Ev) => e.type === "interval" && e.phase === "measure");
    const pid = await dockerdPid();
    const stoppedAt = Date.now();
    stopped = pid;
    process.kill(pid, "SIGSTOP");
    // Should the run never end, dockerd is continued after two minutes all the same (the test then fails on the
    // run's outcome or its time, never leaving the engine stopped).
    const guard = setTimeout(continueDockerd, 120_000);
    let tookMs: number;
    try {
      const r = await p.child;
      tookMs = Date.now() - stoppedAt;
      expect(r.exitCode, r.all).toBe(1);
      expect(r.all).toContain("HOST_LOST");
      expect(r.all).toContain('host "local" was lost: its engine stopped answering');
      expect(r.all).not.toContain("internal error");
      // Whether the teardown's calls failed fast or the grace ended the run with a call still waiting on the stopped
      // engine, the folder's lock is given back (the next --resume needs no takeover). The grace path itself is
      // pinned by test/unit/app/run.test.ts (this run usually ends before the grace).
      expect(existsSync(join(out, ".twinbench.lock"))).toBe(false);
    } finally {
      clearTimeout(guard);
      continueDockerd();
    }
    // Three pings 5 s apart, each with 5 s to answer; then the teardown's calls (storage included) fail at once, and
    // the process exits though requests still wait on the stopped engine. Well within the cell's deadline + 60 s.
    expect(tookMs).toBeLessThan(90_000);
    await cleanAndCheck(runId);
    await resumeToTheEnd(out);
    console.log(`[faults] dockerd stopped mid-cell: the run ended in ${(tookMs / 1000).toFixed(0)} s`);
  });
});
