/**
 * Fault matrix: the results folder's filesystem fills up mid-run (a tiny tmpfs mounted by the test, filled once the
 * first cell is recorded). The run stops with a DISK_FULL error naming the results folder; the cells recorded
 * before stay whole, and run.json still parses (it is only ever replaced by rename).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { ensureLab, readCells, tinyScenario } from "../integration/support/lab.ts";
import { cleanAndCheck, RunProcess } from "./support.ts";

beforeAll(ensureLab, 1_800_000);

describe("results folder on a full filesystem", () => {
  let mnt = "";
  afterAll(async () => {
    if (!mnt) return;
    await execa("umount", [mnt], { reject: false });
    await rm(mnt, { recursive: true, force: true });
  });

  it("a clear error naming the folder; the cells already recorded are intact", { timeout: 600_000 }, async () => {
    mnt = await mkdtemp(join(tmpdir(), "tb-full-"));
    await execa("mount", ["-t", "tmpfs", "-o", "size=16m", "tb-faults-full", mnt]);
    const { file } = await tinyScenario({}, { threads: [1, 2], duration: "3s", repeats: 1 });
    const out = join(mnt, "out");
    const p = new RunProcess(["run", file, "--out", out]);
    const runId = await p.runId();
    const first = await p.waitFor((e) => e.type === "cell-finished");
    // Fill the filesystem: dd stops at ENOSPC.
    await execa("dd", ["if=/dev/zero", `of=${join(mnt, "filler")}`, "bs=64k"], { reject: false });
    const r = await p.child;
    expect(r.exitCode, r.all).toBe(1);
    expect(r.stderr).toContain("DISK_FULL");
    expect(r.stderr).toContain(`results folder ${out}: the filesystem is full (ENOSPC)`);
    expect(r.stderr).toContain(`twinbench run --resume ${out}`);
    expect(r.stderr).not.toContain("internal error");
    const cells = await readCells(out); // every line parses
    const key = (first.record as { key: string }).key;
    expect(cells.find((c) => c.key === key && c.phase === "measure")?.status).toBe("ok");
    expect(JSON.parse(await readFile(join(out, "run.json"), "utf8")).runId).toBe(runId);
    await rm(join(mnt, "filler"));
    await cleanAndCheck(runId);
  });
});
