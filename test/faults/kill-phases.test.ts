/**
 * Fault matrix: `kill -9` of twinbench at each phase of a run on tmpfs (images, storage, start, prepare, warm-up,
 * measure, teardown), and a torn last line of cells.jsonl. The phases share one results folder, so the servers'
 * set-up is not paid once per phase for nothing: each kill is followed by `clean --run ID` (nothing of the run left)
 * and a `--resume` of the same folder, which is killed at the next phase; the last resume must complete the plan
 * with the full cell count, every cells.jsonl line parsing and the report holding every cell.
 *
 * "images": the images are already built (cache hits), so the kill lands while the run checks its images, not
 * during a base-image build.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { appendFile, readFile } from "node:fs/promises";
import { join } from "node:path";
import { ensureLab, readCells, tinyScenario, twinbench } from "../integration/support/lab.ts";
import { cleanAndCheck, killWhen, okKeys, phaseIs, resumeToTheEnd, type Ev } from "./support.ts";

beforeAll(ensureLab, 1_800_000);

describe("kill -9 at each phase (tmpfs), then clean and --resume", () => {
  let out = "";
  let runId = "";
  const t0 = Date.now();
  const resume = () => ["run", "--resume", out];

  it("images", { timeout: 600_000 }, async () => {
    const { file, dir } = await tinyScenario({}, { threads: [1, 2], duration: "2s", warmup: "1s", repeats: 1 });
    out = join(dir, "out");
    const k = await killWhen(["run", file, "--out", out], phaseIs("images"));
    runId = k.runId;
    expect(k.events.some((e) => e.type === "server-starting")).toBe(false);
    await cleanAndCheck(runId);
  });

  it.each([
    ["storage", phaseIs("storage", { server: "mariadb" })],
    ["start", phaseIs("start", { server: "mysql" })],
    ["prepare", phaseIs("prepare", { server: "mysql" })],
    ["warm-up", phaseIs("warmup")],
  ] as Array<[string, (e: Ev) => boolean]>)("%s", { timeout: 600_000 }, async (_phase, when) => {
    const k = await killWhen(resume(), when);
    expect(k.runId).toBe(runId);
    await cleanAndCheck(runId);
    await readCells(out); // every line parses
  });

  it("measure (after a cell was recorded: it is kept)", { timeout: 600_000 }, async () => {
    const k = await killWhen(resume(), phaseIs("measure", { nth: 2 }));
    expect(k.events.filter((e) => e.type === "cell-finished").length).toBeGreaterThanOrEqual(1);
    await cleanAndCheck(runId);
    expect((await okKeys(out)).size).toBeGreaterThanOrEqual(1);
  });

  it(
    "a torn last line of cells.jsonl: --resume moves it to cells.jsonl.torn and says so; then kill -9 at teardown",
    { timeout: 600_000 },
    async () => {
      const torn = `{"key":"mariadb/oltp_point_select/2/1","server":"mariadb","test":"oltp_po`;
      await appendFile(join(out, "cells.jsonl"), torn);
      const k = await killWhen(resume(), phaseIs("teardown"));
      const warning = k.events.find((e) => e.type === "warning" && String(e.message).includes("torn"));
      expect(String(warning?.message)).toContain(join(out, "cells.jsonl.torn"));
      expect(await readFile(join(out, "cells.jsonl.torn"), "utf8")).toBe(torn + "\n");
      await cleanAndCheck(runId);
      await readCells(out); // the records appended after the torn line are whole
    },
  );

  it("the last --resume completes the plan; the report holds every cell", { timeout: 600_000 }, async () => {
    const ev = await resumeToTheEnd(out);
    const planned = (ev.find((e) => e.type === "plan-ready")!.cells as unknown[]).length;
    const r = await twinbench(["report", out]);
    expect(r.exitCode, r.all).toBe(0);
    expect(r.all).not.toMatch(/cells\.jsonl:\d+|invalid JSON/); // no line of cells.jsonl skipped
    const report = JSON.parse(await readFile(join(out, "report.json"), "utf8")) as {
      run: { planned: number; recorded: number; failed: number; partial: boolean };
    };
    expect(report.run).toMatchObject({ planned, recorded: planned, failed: 0, partial: false });
    await cleanAndCheck(runId);
    console.log(`[faults] kill -9 at 7 phases + torn line + resume: ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  });
});
