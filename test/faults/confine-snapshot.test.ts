/**
 * Fault matrix: kill -9 during the snapshot after prepare, and during a restore while the daemons are confined
 * (resources.confineDaemons). After each, `clean --run ID` leaves nothing of the run, and puts dockerd's and
 * containerd's CPU lists back from the affinity ledger; the last --resume completes the plan.
 *
 * Two write tests with fresh data per test: prepare is followed by a snapshot, and the second test's first cell on
 * a server by a restore of it (inside the cell loop, so with the daemons confined). 2 s cells.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execa } from "execa";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { ensureLab, tinyScenario } from "../integration/support/lab.ts";
import { cleanAndCheck, killWhen, phaseIs, resumeToTheEnd } from "./support.ts";

beforeAll(ensureLab, 1_800_000);

/** dockerd's pid and its CPU list now (`taskset -c -p`). */
async function dockerd(): Promise<{ pid: string; cpus: string }> {
  const pid = (await execa("pgrep", ["-x", "-o", "dockerd"])).stdout.trim();
  const out = (await execa("taskset", ["-c", "-p", pid])).stdout;
  return { pid, cpus: /affinity list:\s*(\S+)/.exec(out)![1]! };
}

const ledger = async (runId: string) =>
  (await readdir("/var/lib/twinbench/state/affinity").catch(() => [] as string[])).filter((f) => f.includes(runId));

let original: { pid: string; cpus: string } | undefined;
afterAll(async () => {
  // Whatever happened above, dockerd gets its own CPU list back (other tests and engineers share this engine).
  if (original) await execa("taskset", ["-a", "-c", "-p", original.cpus, original.pid], { reject: false });
});

describe("kill -9 during snapshot and restore, with the daemons confined", () => {
  let out = "";
  let runId = "";

  it("snapshot: nothing of the run is left after clean", { timeout: 600_000 }, async () => {
    original = await dockerd();
    const { file, dir } = await tinyScenario(
      { resources: { server: { cpuset: "1", memory: "2g" }, load: { cpuset: "0" }, confineDaemons: true } },
      { tests: ["oltp_update_non_index", "oltp_update_index"], fresh: "per-test" },
    );
    out = join(dir, "out");
    const k = await killWhen(["run", file, "--out", out], phaseIs("snapshot", { server: "mysql" }));
    runId = k.runId;
    await cleanAndCheck(runId);
  });

  it(
    "restore while confined: dockerd stays pinned after the kill, and clean puts its CPU list back",
    { timeout: 600_000 },
    async () => {
      const k = await killWhen(["run", "--resume", out], phaseIs("restore"));
      expect(k.runId).toBe(runId);
      expect(k.events.some((e) => e.type === "cell-finished")).toBe(true);
      expect((await dockerd()).cpus).toBe("0"); // left confined by the killed run
      expect(await ledger(runId)).toHaveLength(1); // and recorded, with its original list
      await cleanAndCheck(runId);
      expect((await dockerd()).cpus).toBe(original!.cpus);
      expect(await ledger(runId)).toEqual([]);
    },
  );

  it("the last --resume completes the plan and leaves the CPU lists as they were", { timeout: 600_000 }, async () => {
    await resumeToTheEnd(out);
    expect((await dockerd()).cpus).toBe(original!.cpus);
    expect(await ledger(runId)).toEqual([]);
    await cleanAndCheck(runId);
  });
});
