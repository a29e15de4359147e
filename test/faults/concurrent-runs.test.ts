/**
 * Fault matrix: runs side by side.
 *
 * - Two runs, and two resumes, of one results folder at once: the second is refused with RESULTS_LOCKED naming the
 *   first's pid; a lock left by a kill -9 is taken over by the next resume, which completes the plan.
 * - A run in another pid namespace (as in the compose container: `unshare --pid --fork --mount-proc`) started while
 *   a run on the host has its servers up: its start-up sweep cannot judge the host run's pids, so it leaves that
 *   run's containers, volumes and storage alone; both complete with every cell.
 *
 * Tiny scenarios (one test, 2 s cells): each case costs about one server set-up.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { execa } from "execa";
import { join } from "node:path";
import { BIN, ROOT, ensureLab, tinyScenario, twinbench } from "../integration/support/lab.ts";
import { cleanAndCheck, expectNothingLeft, okKeys, phaseIs, RunProcess, type Ev } from "./support.ts";

beforeAll(ensureLab, 1_800_000);

const pidOf = (p: RunProcess) => p.child.pid!;

describe("one results folder, two writers", () => {
  it(
    "a second run and a second resume of a folder a run writes are refused, naming it; after a kill -9 the next resume takes the lock over, and a resume beside it is refused",
    { timeout: 900_000 },
    async () => {
      const { file, dir } = await tinyScenario({}, { threads: [1] });
      const out = join(dir, "out");
      const first = new RunProcess(["run", file, "--out", out]);
      const runId = await first.runId();

      // While the first run writes the folder: a new run into it, and a resume of it, are both refused.
      for (const args of [
        ["run", file, "--out", out],
        ["run", "--resume", out],
      ]) {
        const r = await twinbench([...args, "--json-events"]);
        expect(r.exitCode, r.all).not.toBe(0);
        expect(r.all).toContain("RESULTS_LOCKED");
        expect(r.all).toContain(`pid ${pidOf(first)}`);
      }

      // kill -9 the first mid-cell: its lock stays behind, naming a pid that is gone.
      await first.waitFor(phaseIs("measure"));
      first.child.kill("SIGKILL");
      await first.child;
      await cleanAndCheck(runId);

      // The next resume takes the stale lock over; a second resume beside it is refused, naming the first resume.
      const resumed = new RunProcess(["run", "--resume", out]);
      expect(await resumed.runId()).toBe(runId);
      const second = await twinbench(["run", "--resume", out, "--json-events"]);
      expect(second.exitCode, second.all).not.toBe(0);
      expect(second.all).toContain("RESULTS_LOCKED");
      expect(second.all).toContain(`pid ${pidOf(resumed)}`);

      const r = await resumed.child;
      expect(r.exitCode, r.all).toBe(0);
      const planned = (resumed.events.find((e) => e.type === "plan-ready")!.cells as unknown[]).length;
      expect((await okKeys(out)).size).toBe(planned); // every cell once, none lost or duplicated by the refused ones
      await cleanAndCheck(runId);
    },
  );
});

describe("a run in another pid namespace beside a run on the host", () => {
  it("neither start-up sweep touches the other run: both complete with every cell", { timeout: 900_000 }, async () => {
    const host = await tinyScenario({}, { threads: [1, 2], duration: "3s" });
    const boxed = await tinyScenario({ name: "it-boxed" }, { threads: [1] });
    const hostRun = new RunProcess(["run", host.file, "--out", join(host.dir, "out")]);
    const hostId = await hostRun.runId();
    // The host run's servers are up and measuring when the other run starts (and sweeps).
    await hostRun.waitFor((e: Ev) => e.type === "cell-started");

    // As in a container without the host's pid namespace: the host run's pids do not exist there.
    const boxedRun = execa(
      "unshare",
      [
        "--pid",
        "--fork",
        "--mount-proc",
        "node",
        BIN,
        "run",
        boxed.file,
        "--out",
        join(boxed.dir, "out"),
        "--json-events",
      ],
      {
        cwd: ROOT,
        reject: false,
        all: true,
        env: { NO_COLOR: "1", TESTCONTAINERS_RYUK_DISABLED: "true" },
      },
    );
    const [h, b] = await Promise.all([hostRun.child, boxedRun]);
    expect(b.exitCode, b.all).toBe(0);
    expect(b.all).not.toMatch(/removed \d+ resources left by earlier runs/);
    expect(h.exitCode, h.all).toBe(0);
    expect(hostRun.events.filter((e) => e.type === "cell-failed")).toEqual([]);
    const planned = (hostRun.events.find((e) => e.type === "plan-ready")!.cells as unknown[]).length;
    expect((await okKeys(join(host.dir, "out"))).size).toBe(planned);
    expect((await okKeys(join(boxed.dir, "out"))).size).toBe(1 * 2); // one cell per server
    await expectNothingLeft(hostId);
    const boxedId = /"runId":"([^"]+)"/.exec(b.all)?.[1] ?? "";
    if (boxedId) await cleanAndCheck(boxedId);
  });
});
