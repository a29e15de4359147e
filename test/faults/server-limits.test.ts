/**
 * Fault matrix: a server that reaches a limit mid-cell. One run of two servers, one write test, one 4 s cell each:
 *  - mariadb's data dir (a 1 GiB tmpfs) is filled from the host at its cell's first interval: the cell fails once
 *    with the server's "table is full", named as a full data dir (SERVER_DATA_DIR_FULL, the server, its tmpfs and a
 *    hint), and is not retried: a full data dir is not transient;
 *  - mysql is OOM-killed at its cell's first interval (its memory cgroup's limit brought down to just above its use,
 *    then a process in that cgroup allocates past it): the cell fails once, named as OOM-killed (with the limit the
 *    run gave it), and is not retried.
 * The run ends with exit 1, nothing of it is left on the engine or the host, and `--resume` completes the plan.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { execa } from "execa";
import { open, readFile, statfs, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { docker, ensureLab, readCells, tinyScenario } from "../integration/support/lab.ts";
import { expectNothingLeft, resumeToTheEnd, RunProcess, type Ev } from "./support.ts";

beforeAll(ensureLab, 1_800_000);

/** The first interval of a measured cell of `server`: sysbench is writing to it. */
const measuring = (server: string) => (e: Ev) =>
  e.type === "interval" && e.phase === "measure" && (e.cell as { server: string }).server === server;

/** Fill the filesystem at `dir` to the last byte; returns the bytes written. */
async function fill(dir: string): Promise<number> {
  const fh = await open(join(dir, "tb-fault-fill"), "w");
  const chunk = Buffer.alloc(16 * 2 ** 20, 1);
  let written = 0;
  try {
    for (;;) {
      const { bytesWritten } = await fh.write(chunk);
      written += bytesWritten;
      if (bytesWritten < chunk.length) break;
    }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOSPC") throw e;
  } finally {
    await fh.close();
  }
  return written;
}

/** The memory cgroup folder of `pid` (cgroup v1's memory hierarchy, or the unified one) and its file names. */
async function memoryCgroupOf(pid: number): Promise<{ dir: string; limit: string; usage: string }> {
  const lines = (await readFile(`/proc/${pid}/cgroup`, "utf8")).trim().split("\n");
  const v1 = lines.find((l) => l.split(":")[1]?.split(",").includes("memory"));
  if (v1)
    return {
      dir: join("/sys/fs/cgroup/memory", v1.split(":")[2]!),
      limit: "memory.limit_in_bytes",
      usage: "memory.usage_in_bytes",
    };
  const v2 = lines.find((l) => l.startsWith("0::"))!;
  return { dir: join("/sys/fs/cgroup", v2.slice(3)), limit: "memory.max", usage: "memory.current" };
}

/**
 * OOM-kill the server in `container`: its mysqld is made the OOM killer's first choice, its memory cgroup's limit is
 * brought down to 48 MiB above what it uses (as `docker update --memory` would; the engine's record keeps 2 GiB, and
 * a restarted container gets that again), and a process of this host joins the cgroup and allocates 112 MiB. The
 * kernel kills mysqld first; the allocator then ends, or is killed too (the data dir's tmpfs pages stay charged).
 */
async function oomKill(container: string): Promise<string> {
  const { State } = await docker.getContainer(container).inspect();
  const cg = await memoryCgroupOf(State.Pid);
  const procs = (await readFile(join(cg.dir, "cgroup.procs"), "utf8")).trim().split("\n").map(Number);
  const comms = await Promise.all(procs.map(async (p) => (await readFile(`/proc/${p}/comm`, "utf8")).trim()));
  const mysqld = procs.find((_, i) => /^(mysqld|mariadbd)$/.test(comms[i]!));
  expect(mysqld, comms.join(" ")).toBeDefined();
  await writeFile(`/proc/${mysqld}/oom_score_adj`, "1000");
  expect(Number(await readFile(join(cg.dir, cg.limit), "utf8"))).toBe(2 * 2 ** 30); // resources.server.memory
  const usage = Number(await readFile(join(cg.dir, cg.usage), "utf8"));
  await writeFile(join(cg.dir, cg.limit), String(usage + 48 * 2 ** 20));
  const script = 'echo $$ > "$1/cgroup.procs" && exec dd if=/dev/zero of=/dev/null bs=112M count=1';
  const r = await execa("sh", ["-c", script, "sh", cg.dir], { reject: false, all: true });
  return `allocator: exit ${r.exitCode} ${r.signal ?? ""} ${r.all}`;
}

describe("a server at its limits mid-cell", () => {
  it(
    "a full data dir fails its cell once, named so; an OOM-killed server fails its cell once, named so; nothing left, --resume completes",
    { timeout: 900_000 },
    async () => {
      const t0 = Date.now();
      const { file, dir } = await tinyScenario(
        {},
        { tests: ["oltp_insert"], tables: 1, threads: [1], duration: "4s", repeats: 1 },
      );
      const out = join(dir, "out");
      const p = new RunProcess(["run", file, "--out", out]);
      const runId = await p.runId();

      await p.waitFor(measuring("mariadb"));
      const vol = await docker.getVolume(`twinbench-${runId}-mariadb-tmpfs`).inspect();
      const filled = await fill(vol.Mountpoint);
      expect(filled).toBeGreaterThan(0);
      expect((await statfs(vol.Mountpoint)).bavail).toBe(0);

      await p.waitFor(measuring("mysql"));
      const allocator = await oomKill(`tb-${runId}-mysql`);

      const r = await p.child;
      expect(r.exitCode, r.all).toBe(1);
      expect(r.all).not.toContain("internal error");
      const measured = (await readCells(out)).filter((c) => c.phase === "measure");
      // The full data dir: one attempt, failed, named as such (the server, its data dir) with a hint, no retry.
      const full = measured.filter((c) => c.server === "mariadb");
      expect(full).toHaveLength(1);
      expect(full[0]).toMatchObject({ status: "failed", errorCode: "SERVER_DATA_DIR_FULL" });
      expect(full[0]!.error).toMatch(/^server mariadb's data dir \(a tmpfs of 1g\) is full: /);
      expect(full[0]!.error).toMatch(/is full|no space left|errno: 28|disk full/i);
      expect(full[0]!.hint).toMatch(/^enlarge the tmpfs \(storage\.size, now 1g/);
      const fullFailed = p.events.filter(
        (e) => e.type === "cell-failed" && (e.cell as { server: string }).server === "mariadb",
      );
      expect(fullFailed).toHaveLength(1);
      expect(fullFailed[0]!.retry).toBeUndefined();
      // The OOM kill: one attempt, failed, named as such, no retry.
      const oom = measured.filter((c) => c.server === "mysql");
      expect(oom).toHaveLength(1);
      expect(oom[0], allocator).toMatchObject({ status: "failed", serverOomKilled: true });
      expect(oom[0]!.error).toMatch(/^server mysql was OOM-killed at its memory limit of 2 GiB: /);
      const failed = p.events.filter(
        (e) => e.type === "cell-failed" && (e.cell as { server: string }).server === "mysql",
      );
      expect(failed).toHaveLength(1);
      expect(failed[0]!.retry).toBeUndefined();

      await expectNothingLeft(runId);
      await resumeToTheEnd(out);
      await expectNothingLeft(runId);
      console.log(`[faults] full data dir + OOM kill + resume: ${((Date.now() - t0) / 1000).toFixed(0)} s`);
    },
  );
});
