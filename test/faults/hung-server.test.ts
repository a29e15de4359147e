/**
 * Fault matrix: a server that hangs, or is OOM-killed, in the middle of a measured cell.
 *  - hung (every process of the server container SIGSTOPped while sysbench runs): the run ends by itself within the
 *    cell's deadline (1.5 × its length + 60 s) plus 60 s, with SERVER_HUNG naming the server and its container,
 *    nothing of the run left on the engine or the host; after SIGCONT, `--resume` completes the plan.
 *  - OOM-killed (the kernel's OOM killer ends mysqld at its container's memory limit): the cell fails once, named as
 *    such, without a retry; the run goes on with a restarted server and `--resume` completes the plan.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { docker, ensureLab, readCells, tinyScenario } from "../integration/support/lab.ts";
import { expectNothingLeft, manifestStatus, resumeToTheEnd, RunProcess, type Ev } from "./support.ts";

beforeAll(ensureLab, 1_800_000);

const CELL_SECONDS = 5;
/** The cell's deadline as the sidecar sets it: 1.5 × its length plus a minute. */
const CELL_DEADLINE_MS = (CELL_SECONDS * 1.5 + 60) * 1000;

/** Host pids of every process in the container named `name`. */
async function pidsOf(name: string): Promise<number[]> {
  const top = (await docker.getContainer(name).top({ ps_args: "-eo pid" })) as { Processes: string[][] };
  return top.Processes.map((p) => Number(p[0])).filter((n) => n > 0);
}

/** The first interval of a measured cell of `server`: sysbench is running against it. */
const measuring = (server: string) => (e: Ev) =>
  e.type === "interval" && e.phase === "measure" && (e.cell as { server: string }).server === server;

describe("a server that hangs or is OOM-killed mid-cell", () => {
  it(
    "SIGSTOP: the run ends within the cell's deadline + 60 s with SERVER_HUNG, nothing left; --resume completes after SIGCONT",
    { timeout: 900_000 },
    async () => {
      const { file, dir } = await tinyScenario({}, { threads: [1], duration: `${CELL_SECONDS}s`, repeats: 1 });
      const out = join(dir, "out");
      const p = new RunProcess(["run", file, "--out", out]);
      const runId = await p.runId();
      await p.waitFor(measuring("mariadb"));
      const pids = await pidsOf(`tb-${runId}-mariadb`);
      expect(pids.length).toBeGreaterThan(0);
      const stoppedAt = Date.now();
      for (const pid of pids) process.kill(pid, "SIGSTOP");
      try {
        const r = await p.child;
        const tookMs = Date.now() - stoppedAt;
        expect(r.exitCode, r.all).toBe(1);
        expect(r.all).toContain("SERVER_HUNG");
        expect(r.all).toMatch(
          new RegExp(`server "mariadb" \\(container tb-${runId}-mariadb\\) did not answer SELECT 1 within 15 s`),
        );
        expect(tookMs).toBeLessThan(CELL_DEADLINE_MS + 60_000);
      } finally {
        for (const pid of pids)
          try {
            process.kill(pid, "SIGCONT");
          } catch {
            // The teardown removed the container, which killed the stopped process: nothing left to continue.
          }
      }
      expect(await manifestStatus(out)).toMatch(/^(failed|partial)$/);
      await expectNothingLeft(runId);
      await resumeToTheEnd(out);
    },
  );

  it(
    "SIGSTOP of sysbench: its cell is stopped at its deadline, the server still answers, the retry completes the run",
    { timeout: 900_000 },
    async () => {
      const { file, dir } = await tinyScenario({}, { threads: [1], duration: `${CELL_SECONDS}s`, repeats: 1 });
      const out = join(dir, "out");
      const p = new RunProcess(["run", file, "--out", out]);
      const runId = await p.runId();
      await p.waitFor(measuring("mariadb"));
      const f = JSON.stringify({ label: [`twinbench.run=${runId}`, "twinbench.role=load"] });
      const [load] = await docker.listContainers({ filters: f });
      expect(load).toBeDefined();
      const stoppedAt = Date.now();
      for (const pid of await pidsOf(load!.Id)) process.kill(pid, "SIGSTOP");
      const failed = await p.waitFor((e) => e.type === "cell-failed");
      expect(Date.now() - stoppedAt).toBeLessThan(CELL_DEADLINE_MS + 10_000);
      expect((failed.record as { error: string }).error).toMatch(/^cell ran past its limit of 68 s and was stopped/);
      expect(failed.retry).toBe(2);
      const r = await p.child;
      expect(r.exitCode, r.all).toBe(0);
      await expectNothingLeft(runId);
    },
  );
  it(
    "OOM-killed: the cell fails once, named as such, not retried; the run goes on and --resume completes",
    { timeout: 900_000 },
    async () => {
      const { file, dir } = await tinyScenario({}, { threads: [1], duration: `${CELL_SECONDS}s`, repeats: 1 });
      const out = join(dir, "out");
      const p = new RunProcess(["run", file, "--out", out]);
      const runId = await p.runId();
      await p.waitFor(measuring("mariadb"));
      const name = `tb-${runId}-mariadb`;
      // mysqld first in the OOM killer's choice, then a process in the container that takes memory until the
      // container's limit is reached.
      for (const pid of await pidsOf(name)) await writeFile(`/proc/${pid}/oom_score_adj`, "1000");
      const hog = await docker.getContainer(name).exec({ Cmd: ["sh", "-c", "tail /dev/zero"], AttachStdout: false });
      await hog.start({ Detach: true });
      const r = await p.child;
      expect(r.exitCode, r.all).toBe(1);
      const cells = await readCells(out);
      const oom = cells.filter((c) => c.serverOomKilled);
      expect(oom).toHaveLength(1);
      expect(oom[0]!.error).toMatch(/^server mariadb was OOM-killed at its memory limit of 2 GiB/);
      // No retry of that cell, and the restarted server measured the rest.
      expect(cells.filter((c) => c.phase === "measure" && c.key === oom[0]!.key)).toHaveLength(1);
      expect(p.events.some((e) => e.type === "server-restarted" && e.server === "mariadb")).toBe(true);
      expect(cells.some((c) => c.phase === "measure" && c.server === "mysql" && c.status === "ok")).toBe(true);
      await expectNothingLeft(runId);
      await resumeToTheEnd(out);
    },
  );
});
