/**
 * Fault matrix, storage: `kill -9` while a loop-backed RAID 0 is being set up, then a damaged storage state file.
 * One results folder: kill at the second server's storage phase (the first server's array is mounted, the second's
 * is being made) → `clean --run ID` undoes both → `--resume`, killed when the second server starts (both arrays
 * mounted) → its state file damaged → `clean` refuses and names the file → `clean --force` moves the file aside
 * and removes what the mount and loop tables show → `--resume` completes the plan.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ensureLab, hostState, readCells, tinyScenario, twinbench } from "../integration/support/lab.ts";
import { cleanAndCheck, expectNothingLeft, killWhen, phaseIs, resumeToTheEnd } from "./support.ts";

beforeAll(ensureLab, 1_800_000);

const STATE_DIR = "/var/lib/twinbench/state";

describe("storage faults (loop RAID 0)", () => {
  let out = "";
  let runId = "";
  const damaged = () => join(STATE_DIR, `${runId}-mariadb.json`);
  afterAll(async () => {
    if (runId) await rm(`${damaged()}.corrupt`, { force: true }); // the test's own damaged file, kept by clean --force
  });

  it(
    "kill -9 at storage (RAID 0 on loop devices): clean --run undoes the mounts, loops and files",
    { timeout: 600_000 },
    async () => {
      const { file, dir } = await tinyScenario(
        { storage: { kind: "raid0", loop: { members: 2, size: "1g" } } },
        { threads: [1], duration: "2s", repeats: 1 },
      );
      out = join(dir, "out");
      const k = await killWhen(["run", file, "--out", out], phaseIs("storage", { server: "mysql" }));
      runId = k.runId;
      expect((await hostState(runId)).mounts.length).toBeGreaterThan(0); // mariadb's array was mounted
      await cleanAndCheck(runId);
    },
  );

  it(
    "a damaged storage state file: clean refuses and names it; clean --force removes what the tables show",
    { timeout: 600_000 },
    async () => {
      await killWhen(["run", "--resume", out], phaseIs("start", { server: "mysql" }));
      const before = await hostState(runId);
      expect(before.mounts.length).toBeGreaterThanOrEqual(2);
      expect(before.loops.length).toBeGreaterThanOrEqual(4);
      const text = await readFile(damaged(), "utf8");
      await writeFile(damaged(), text.slice(0, Math.floor(text.length / 2))); // torn by a crash, say

      const refused = await twinbench(["clean", "--run", runId]);
      expect(refused.exitCode, refused.all).toBe(1);
      expect(refused.all).toContain("STORAGE_STATE_CORRUPT");
      expect(refused.all).toContain(damaged());
      expect(refused.all).toContain("twinbench clean --force");
      expect((await hostState(runId)).mounts.length).toBe(before.mounts.length); // nothing guessed without --force

      const forced = await twinbench(["clean", "--run", runId, "--force"]);
      expect(forced.exitCode, forced.all).toBe(0);
      expect(forced.all).toContain(`aside to ${damaged()}.corrupt`);
      expect(await readFile(`${damaged()}.corrupt`, "utf8")).toBe(text.slice(0, Math.floor(text.length / 2)));
      await expectNothingLeft(runId);
    },
  );

  it("--resume then completes the plan", { timeout: 600_000 }, async () => {
    await resumeToTheEnd(out);
    await readCells(out);
    await expectNothingLeft(runId);
  });
});
