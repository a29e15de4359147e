/**
 * Fault matrix: a server, or its sysbench, that hangs in the middle of a measured cell.
 *  - hung (every process of the server container SIGSTOPped while sysbench runs): the run ends by itself within the
 *    cell's deadline (1.5 × its length + a margin) plus 60 s, with SERVER_HUNG naming the server and its container,
 *    nothing of the run left on the engine or the host; after SIGCONT, `--resume` completes the plan.
 *  - sysbench stopped (SIGSTOP): its cell is stopped at its deadline, the server still answers, the retry completes.
 * The margin is a minute in production; these runs set 10 s (TWINBENCH_CELL_MARGIN, which the children inherit), so
 * that each case waits 17.5 s for the deadline rather than 67.5 s.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { join } from "node:path";
import { docker, ensureLab, tinyScenario } from "../integration/support/lab.ts";
import { expectNothingLeft, manifestStatus, resumeToTheEnd, RunProcess, type Ev } from "./support.ts";

beforeAll(ensureLab, 1_800_000);

const CELL_SECONDS = 5;
const MARGIN_SECONDS = 10;
/** The cell's deadline as the sidecar sets it: 1.5 × its length plus the margin. */
const CELL_DEADLINE_MS = (CELL_SECONDS * 1.5 + MARGIN_SECONDS) * 1000;

const savedMargin = process.env.TWINBENCH_CELL_MARGIN;
beforeAll(() => {
  process.env.TWINBENCH_CELL_MARGIN = `${MARGIN_SECONDS}s`;
});
afterAll(() => {
  if (savedMargin === undefined) delete process.env.TWINBENCH_CELL_MARGIN;
  else process.env.TWINBENCH_CELL_MARGIN = savedMargin;
});

/** Host pids of every process in the container named `name`. */
async function pidsOf(name: string): Promise<number[]> {
  const top = (await docker.getContainer(name).top({ ps_args: "-eo pid" })) as { Processes: string[][] };
  return top.Processes.map((p) => Number(p[0])).filter((n) => n > 0);
}

/** The first interval of a measured cell of `server`: sysbench is running against it. */
const measuring = (server: string) => (e: Ev) =>
  e.type === "interval" && e.phase === "measure" && (e.cell as { server: string }).server === server;

describe("a server or sysbench that hangs mid-cell", () => {
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
      expect((failed.record as { error: string }).error).toMatch(
        new RegExp(`^cell ran past its limit of ${Math.round(CELL_DEADLINE_MS / 1000)} s and was stopped`),
      );
      expect(failed.retry).toBe(2);
      const r = await p.child;
      expect(r.exitCode, r.all).toBe(0);
      await expectNothingLeft(runId);
    },
  );
});
