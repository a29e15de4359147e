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
import { execFileSync } from "node:child_process";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { ensureLab, tinyScenario, twinbench } from "../integration/support/lab.ts";
import { cleanAndCheck, killWhen, phaseIs, resumeToTheEnd } from "./support.ts";

beforeAll(ensureLab, 1_800_000);

/** A daemon's pid and its CPU list now (`taskset -c -p`). */
async function daemon(name: "dockerd" | "containerd"): Promise<{ pid: string; cpus: string }> {
  const pid = (await execa("pgrep", ["-x", "-o", name])).stdout.trim();
  const out = (await execa("taskset", ["-c", "-p", pid])).stdout;
  return { pid, cpus: /affinity list:\s*(\S+)/.exec(out)![1]! };
}
const dockerd = () => daemon("dockerd");

const ledger = async (runId: string) =>
  (await readdir("/var/lib/twinbench/state/affinity").catch(() => [] as string[])).filter((f) => f.includes(runId));

/** Both daemons' CPU lists before anything ran: what they get back whatever happens. */
let originals: Array<{ pid: string; cpus: string }> = [];
let original: { pid: string; cpus: string } | undefined;
let runId = "";

/**
 * Put every thread of both daemons back on its CPU list (synchronous, so that it also runs from a signal handler).
 * Other tests and engineers share this engine: a daemon left on one CPU slows everything after it.
 */
function restoreDaemons(): void {
  for (const d of originals) {
    try {
      execFileSync("taskset", ["-a", "-c", "-p", d.cpus, d.pid], { stdio: "ignore" });
    } catch {
      // the daemon restarted meanwhile (a new process has its default CPU list): nothing of ours to put back
    }
  }
}

/** Cut off (SIGTERM, SIGINT from a CI timeout or a user): restore, then end as the signal would have. */
const onSignal = (sig: NodeJS.Signals) => {
  restoreDaemons();
  process.kill(process.pid, sig);
};

beforeAll(async () => {
  originals = [await daemon("dockerd"), await daemon("containerd")];
  original = originals[0];
  process.once("SIGTERM", onSignal);
  process.once("SIGINT", onSignal);
});

afterAll(async () => {
  process.off("SIGTERM", onSignal);
  process.off("SIGINT", onSignal);
  try {
    // What the run left (containers, storage, the affinity ledger) goes through twinbench's own clean first.
    if (runId) await twinbench(["clean", "--run", runId]);
  } finally {
    restoreDaemons();
  }
});

describe("kill -9 during snapshot and restore, with the daemons confined", () => {
  let out = "";

  it("snapshot: nothing of the run is left after clean", { timeout: 600_000 }, async () => {
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
      // A write test's restore (it names the test) comes from the cell loop, which runs with the daemons confined.
      expect(k.events.some((e) => e.type === "phase" && e.phase === "restore" && typeof e.test === "string")).toBe(
        true,
      );
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
