/** The results session on a temporary folder: a new run's manifest, a resume of the same scenario only, the events. */
import { appendFile, mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ResultsSession, newRunId } from "../../../../src/app/run/session.ts";
import { TWINBENCH_VERSION } from "../../../../src/app/run/types.ts";
import type { Cell, RunManifest, ServerManifest } from "../../../../src/core/model/results.ts";
import type { Plan } from "../../../../src/core/plan/plan.ts";
import { cellRecord } from "../../../support/record.ts";
import { STAGE_NOW, stageContext } from "../../../support/run-context.ts";
import { scenario } from "../../../support/scenario.ts";

const cell: Cell = {
  index: 0,
  key: "a/oltp_point_select/t1/r1",
  server: "a",
  test: "oltp_point_select",
  script: "oltp_point_select",
  threads: 1,
  repeat: 1,
};
const plan = { cells: [cell], estimate: { totalSeconds: 42 } } as unknown as Plan;
const outDir = async () => join(await mkdtemp(join(tmpdir(), "tb-session-")), "out");
/** A run id of the form twinbench makes (a resume accepts no other). */
const RID = "20200102-030405-abcd";
const readManifest = async (dir: string) => JSON.parse(await readFile(join(dir, "run.json"), "utf8")) as RunManifest;

describe("newRunId", () => {
  it.each([
    ["2020-01-02T03:04:05.678Z", /^20200102-030405-[0-9a-f]{4}$/],
    ["1999-12-31T23:59:59.000Z", /^19991231-235959-[0-9a-f]{4}$/],
  ])("%s", (at, want) => {
    expect(newRunId(new Date(at))).toMatch(want);
  });
});

describe("ResultsSession", () => {
  it("a new run: run.json written at once with the plan, the fingerprint and the run id the context then uses", async () => {
    const dir = await outDir();
    const { ctx } = stageContext({ opts: { outDir: dir, runId: "run-1", overrides: ["workload.duration=5s"] }, plan });
    const s = await ResultsSession.open(ctx);
    expect([s.runId, ctx.runId, s.dir, s.previous]).toEqual(["run-1", "run-1", dir, []]);
    expect(await readManifest(dir)).toMatchObject({
      runId: "run-1",
      twinbenchVersion: TWINBENCH_VERSION,
      overrides: ["workload.duration=5s"],
      cells: [cell],
      estimateSeconds: 42,
      startedAt: STAGE_NOW,
      status: "running",
      actions: [],
      fingerprint: expect.any(String),
    });
  });

  it("actions and servers are kept; a server's facts replace its earlier entry", async () => {
    const dir = await outDir();
    const { ctx } = stageContext({ opts: { outDir: dir, runId: "r" }, plan });
    const s = await ResultsSession.open(ctx);
    s.action("restore", "a", "per-test snapshot");
    await s.addServer({ id: "a", image: "x1" } as unknown as ServerManifest);
    await s.addServer({ id: "b", image: "y" } as unknown as ServerManifest);
    await s.addServer({ id: "a", image: "x2" } as unknown as ServerManifest);
    const m = await readManifest(dir);
    expect(m.servers.map((x) => `${x.id}:${x.image}`)).toEqual(["b:y", "a:x2"]);
    expect(m.actions).toEqual([{ at: STAGE_NOW, server: "a", action: "restore", detail: "per-test snapshot" }]);
  });

  it("resume: the same scenario reopens the folder with its records, announced again; a torn line is set aside", async () => {
    const dir = await outDir();
    const first = stageContext({ opts: { outDir: dir, runId: RID }, plan });
    const s1 = await ResultsSession.open(first.ctx);
    const rec = cellRecord({ key: cell.key, server: "a", test: "oltp_point_select", threads: 1, repeat: 1 });
    await s1.appendCell(rec);
    await appendFile(join(dir, "cells.jsonl"), '{"key":"torn');
    await s1.store.release(); // the first run is over: its lock is given back
    const again = stageContext({ opts: { outDir: dir, resume: true }, plan });
    const s2 = await ResultsSession.open(again.ctx);
    expect([s2.runId, again.ctx.runId, s2.previous.length]).toEqual([RID, RID, 1]);
    s2.announce();
    expect(again.events.map((e) => e.type)).toEqual(["plan-ready", "warning", "cell-finished"]);
    expect(again.events[0]).toMatchObject({ runId: RID, dir, cells: [cell], estimateSeconds: 42, marginPct: 5 });
    expect(again.warnings()[0]).toMatch(/^cells\.jsonl ended in a torn line \(a crash mid-write\): moved it to /);
    expect(again.events[2]).toMatchObject({ cell, record: rec });
  });

  it("resume refuses a changed scenario, before touching the folder", async () => {
    const dir = await outDir();
    const first = await ResultsSession.open(stageContext({ opts: { outDir: dir, runId: RID }, plan }).ctx);
    await first.store.release();
    const changed = scenario({ name: "other" });
    const { ctx } = stageContext({ scenario: changed, opts: { outDir: dir, resume: true }, plan });
    await expect(ResultsSession.open(ctx)).rejects.toMatchObject({ code: "RESUME_MISMATCH" });
    expect((await readManifest(dir)).status).toBe("running");
  });

  it("resume of a folder whose run still holds its lock is refused, naming that run", async () => {
    const dir = await outDir();
    await ResultsSession.open(stageContext({ opts: { outDir: dir, runId: "r" }, plan }).ctx);
    const { ctx } = stageContext({ opts: { outDir: dir, resume: true }, plan });
    await expect(ResultsSession.open(ctx)).rejects.toMatchObject({
      code: "RESULTS_LOCKED",
      message: expect.stringContaining(`pid ${process.pid}`),
    });
  });
});
