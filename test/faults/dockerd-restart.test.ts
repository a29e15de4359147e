/**
 * Fault matrix: dockerd restarted in the middle of a measured cell. The run ends with a clear error (no internal
 * error), the cells finished before stay in cells.jsonl; once the engine is back (started the way
 * `twinbench doctor --fix` starts it), `clean --run ID` and `--resume` complete the plan.
 *
 * Restarting the engine stops every container on it. CI runs this file alone; elsewhere (a shared machine) it waits,
 * before the run and again before the restart, until no container other than this run's is running.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { execa } from "execa";
import { docker, ensureLab, readCells, tinyScenario, twinbench } from "../integration/support/lab.ts";
import { cleanAndCheck, manifestStatus, okKeys, resumeToTheEnd, RunProcess } from "./support.ts";

beforeAll(ensureLab, 1_800_000);

const IDLE_DEADLINE_MS = 40 * 60_000;

/** Running containers that are not `runId`'s. */
async function othersRunning(runId?: string): Promise<string[]> {
  const running = await docker.listContainers();
  return running.filter((c) => !runId || c.Labels["twinbench.run"] !== runId).map((c) => c.Names[0] ?? c.Id);
}

/** Wait until every running container belongs to `runId` (or none runs). */
async function waitForEngineToOurselves(runId?: string): Promise<void> {
  const until = Date.now() + IDLE_DEADLINE_MS;
  let said = "";
  for (;;) {
    const others = await othersRunning(runId);
    if (others.length === 0) return;
    if (Date.now() > until)
      throw new Error(
        `other containers kept running for ${IDLE_DEADLINE_MS / 60_000} min: ${others.join(", ")}; restarting dockerd would stop them`,
      );
    const now = `waiting for other containers to stop before restarting dockerd: ${others.join(", ")}`;
    if (now !== said) console.log(`[faults] ${(said = now)}`);
    await new Promise((r) => setTimeout(r, 5000));
  }
}

async function dockerdPid(): Promise<number | undefined> {
  const t = await readFile("/var/run/docker.pid", "utf8").catch(() => "");
  const pid = Number(t.trim());
  return pid > 0 && existsSync(`/proc/${pid}`) ? pid : undefined;
}

/** Stop dockerd (systemd's unit when it runs one), then start it as `twinbench doctor --fix` does. */
async function restartDockerd(): Promise<void> {
  const systemd = (await execa("systemctl", ["is-active", "--quiet", "docker"], { reject: false })).exitCode === 0;
  if (systemd) await execa("systemctl", ["stop", "docker.socket", "docker"]);
  else {
    const pid = await dockerdPid();
    if (!pid) throw new Error("no dockerd pid in /var/run/docker.pid");
    process.kill(pid, "SIGTERM");
    const until = Date.now() + 180_000;
    while (existsSync(`/proc/${pid}`)) {
      if (Date.now() > until) throw new Error(`dockerd (pid ${pid}) did not stop within 180 s`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  await startEngine();
}

async function startEngine(): Promise<void> {
  const r = await twinbench(["doctor", "--fix"]);
  expect(r.exitCode, r.all).toBe(0);
  await docker.ping();
}

describe("dockerd restarted mid-cell", () => {
  afterAll(async () => {
    // Whatever happened above, leave the engine running for whatever comes next.
    if (
      !(await docker.ping().then(
        () => true,
        () => false,
      ))
    )
      await startEngine();
  }, 300_000);

  it(
    "a clear error, finished cells kept; after the engine is back, --resume completes the plan",
    { timeout: 3_600_000 },
    async () => {
      await waitForEngineToOurselves();
      // Four 4 s cells: the restart lands in the second, and two more are left to restart the engine in should
      // other containers run then (CI runs this file alone). The cut cell and those after it run in the resume.
      const { file, dir } = await tinyScenario({}, { threads: [1], duration: "4s", repeats: 2 });
      const out = join(dir, "out");
      const p = new RunProcess(["run", file, "--out", out]);
      const runId = await p.runId();
      await p.waitFor((e) => e.type === "cell-finished");
      // Restart while one of our measured cells runs and no other container does; else try again at the next cell.
      for (;;) {
        await waitForEngineToOurselves(runId);
        const mark = p.events.length;
        const started = await p.waitFor(
          (e) => e.type === "cell-started" && e.phase === "measure" && p.events.indexOf(e) >= mark,
        );
        await new Promise((r) => setTimeout(r, 1500)); // well inside the 4 s cell
        const stillInCell = !p.events
          .slice(p.events.indexOf(started))
          .some((e) => e.type === "cell-finished" || e.type === "cell-failed");
        if (stillInCell && (await othersRunning(runId)).length === 0) break;
      }
      const t0 = Date.now();
      await restartDockerd();
      console.log(`[faults] dockerd restarted in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
      const r = await p.child;
      expect(r.exitCode, r.all).toBe(1);
      expect(r.all).not.toContain("internal error");
      // The connection drops (stopped answering) or dockerd, shutting down, refuses the next request.
      expect(r.stderr).toMatch(/^error \[ENGINE\]: the Docker engine (stopped answering|refused a request): /m);
      expect(r.stderr).toContain(out);
      const fin = p.events.at(-1);
      if (fin?.type === "run-finished") expect(fin.status).not.toBe("ok");
      const kept = await okKeys(out); // every line parses
      expect(kept.size).toBeGreaterThanOrEqual(1);
      expect(await manifestStatus(out)).not.toBe("running");

      await cleanAndCheck(runId);
      await resumeToTheEnd(out);
      expect((await readCells(out)).filter((c) => kept.has(c.key) && c.status === "ok").length).toBeGreaterThanOrEqual(
        kept.size,
      );
      await cleanAndCheck(runId);
    },
  );
});
