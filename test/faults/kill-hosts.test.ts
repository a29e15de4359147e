/**
 * Fault: `kill -9` of a multi-host run (hosts a and b: the local engine under two ids, compare: hosts) once its
 * first cell is recorded; then `clean --run ID` with the run's own id leaves nothing of any host's run, and
 * `run --resume DIR` completes every host's cells on its engine with every cells.jsonl line parsing and the cells
 * recorded before the kill kept.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureLab, tinyScenario, twinbench } from "../integration/support/lab.ts";
import { expectNothingLeft, okKeys, RunProcess } from "./support.ts";

const SOCK = "unix:///var/run/docker.sock";
let known = "";

beforeAll(async () => {
  await ensureLab();
  known = await mkdtemp(join(tmpdir(), "tb-known-"));
  process.env.TWINBENCH_HOSTS_FILE = join(known, "hosts.json"); // the child inherits it: the machine's file stays as it was
}, 1_800_000);

afterAll(async () => {
  delete process.env.TWINBENCH_HOSTS_FILE;
  await rm(known, { recursive: true, force: true });
});

describe("kill -9 of a multi-host run, then clean and --resume", () => {
  it("clean --run ID removes every host's resources; --resume completes every host", { timeout: 900_000 }, async () => {
    const t0 = Date.now();
    const { file, dir } = await tinyScenario(
      { servers: [{ id: "mariadb", image: "mariadb-10.11" }], compare: "hosts" },
      { tables: 1, repeats: 3 },
    );
    const out = join(dir, "out");
    const p = new RunProcess(["run", file, "--host", `a=${SOCK}`, "--host", `b=${SOCK}`, "--out", out]);
    const first = await p.waitFor((e) => e.type === "cell-finished");
    p.child.kill("SIGKILL");
    const r = await p.child;
    expect(r.signal, r.all).toBe("SIGKILL");
    const host = String(first.host);
    const { runId } = JSON.parse(await readFile(join(out, "hosts-run.json"), "utf8")) as { runId: string };
    expect(["a", "b"]).toContain(host);
    const before = await okKeys(join(out, "hosts", host));
    expect(before.size).toBeGreaterThanOrEqual(1);

    const c = await twinbench(["clean", "--run", runId]);
    expect(c.exitCode, c.all).toBe(0);
    for (const h of ["a", "b"]) await expectNothingLeft(`${runId}-${h}`);

    const resumed = new RunProcess(["run", "--resume", out]);
    const rr = await resumed.child;
    expect(rr.exitCode, rr.all).toBe(0);
    for (const h of ["a", "b"]) {
      const ok = await okKeys(join(out, "hosts", h)); // every line parses
      expect(ok.size).toBe(3);
      if (h === host) for (const k of before) expect(ok.has(k)).toBe(true);
      await expectNothingLeft(`${runId}-${h}`);
    }
    const report = await twinbench(["report", out]);
    expect(report.exitCode, report.all).toBe(0);
    expect(report.all).toContain("Server mariadb: host a / host b");
    console.log(`[faults] kill -9 of a multi-host run + clean + resume: ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  });
});
