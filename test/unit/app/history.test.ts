import { cp, mkdir, mkdtemp, readFile, writeFile, appendFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { addFoldersToHistory, readHistory, runHistoryEntry, thisHost } from "../../../src/app/history.ts";
import { localHostFacts } from "../../../src/adapters/calibration-store.ts";
import { hostKey } from "../../../src/core/plan/calibration/host-key.ts";
import { TwinbenchError } from "../../../src/core/base/errors.ts";
import { FakeEngine } from "../../support/fake-engine.ts";
import { readResultsFolder } from "../../../src/adapters/report-files.ts";
import { historyView } from "../../../src/core/stats/history-view.ts";
import { parseHistoryLine } from "../../../src/core/stats/history.ts";
import { NO_LEVEL_YET, renderHistory } from "../../../src/core/report/history.ts";

const FIXTURE = new URL("../../fixtures/results/repeats", import.meta.url).pathname;

/** A copy of the fixture run as another run (its id and start moved), optionally with its manifest edited. */
async function copyRun(root: string, id: string, day: number, edit?: (m: Record<string, any>) => void) {
  const dir = join(root, id);
  await cp(FIXTURE, dir, { recursive: true });
  const m = JSON.parse(await readFile(join(dir, "run.json"), "utf8"));
  m.runId = id;
  m.startedAt = `2025-01-0${day}T10:00:00.000Z`;
  edit?.(m);
  await writeFile(join(dir, "run.json"), JSON.stringify(m));
  return dir;
}

describe("a host's run history", () => {
  it("a run's entry holds each cell with an interval, with a comparability key that tracks what the cell measured", async () => {
    const f = await readResultsFolder(FIXTURE);
    const e = runHistoryEntry(f.manifest, f.cells)!;
    expect(e.cells.map((c) => `${c.test}@${c.threads}`)).toEqual([
      "oltp_read_only@1",
      "oltp_read_only@4",
      "oltp_read_only@8",
      "oltp_point_select@1",
    ]);
    const c = e.cells[1];
    expect(Math.exp(c.y) * 100).toBeCloseTo(c.estimate, 6);
    expect(c.se).toBeGreaterThan(0);
    const bigger = {
      ...f.manifest,
      scenario: { ...f.manifest.scenario, workload: { ...f.manifest.scenario.workload, tableSize: 999 } },
    };
    expect(runHistoryEntry(bigger, f.cells)!.cells[1].key).not.toBe(c.key);
    expect(runHistoryEntry({ ...f.manifest, runId: "other" }, f.cells)!.cells[1].key).toBe(c.key);
    expect(parseHistoryLine(JSON.stringify(e))).toEqual({ entry: e });
  });

  it("history add imports folders once each, names and skips a damaged one, and the view measures the level", async () => {
    const root = await mkdtemp(join(tmpdir(), "tb-history-"));
    const store = join(root, "history");
    const a = await copyRun(root, "run-a", 1);
    const b = await copyRun(root, "run-b", 2);
    const c = await copyRun(root, "run-c", 3);
    const broken = await copyRun(root, "run-broken", 4);
    await writeFile(join(broken, "run.json"), "{ not json");
    const r = await addFoldersToHistory([a, b, broken, c, a], store);
    expect(r.added.map((x) => x.runId)).toEqual(["run-a", "run-b", "run-c"]);
    expect(r.skipped.map((x) => x.dir)).toEqual([broken, a]);
    expect(r.skipped[1].why).toContain("already in the history");
    // A damaged line in the history file is named and skipped; the others are still read.
    await appendFile(r.added[0].file, "{ torn line\n");
    const read = await readHistory([store]);
    expect(read.entries).toHaveLength(3);
    expect(read.skipped).toEqual([expect.objectContaining({ file: r.added[0].file, line: 4 })]);
    const v = historyView(read);
    expect(v.cells).toHaveLength(4);
    const cell = v.cells.find((x) => x.name === "oltp_read_only @ 4")!;
    expect(cell.level.k).toBe(3);
    // Three identical runs: no level between runs.
    expect(cell.level.tau).toBe(0);
    expect(cell.runs.map((x) => x.runId)).toEqual(["run-a", "run-b", "run-c"]);
    const text = renderHistory(v).join("\n");
    expect(text).toContain("History on Intel(R) Xeon(R) CPU @ 2.20GHz: 3 runs, 4 cells.");
    expect(text).toContain("next run lands in (95%)");
    expect(text).toContain(`skipped line 4 of ${r.added[0].file}:`);
    for (const l of renderHistory(v)) expect(l.length).toBeLessThanOrEqual(120);
  });

  it("a host with fewer than two runs says so in one plain sentence", async () => {
    const root = await mkdtemp(join(tmpdir(), "tb-history-"));
    const store = join(root, "history");
    await addFoldersToHistory([await copyRun(root, "only", 1)], store);
    const lines = renderHistory(historyView(await readHistory([store])));
    expect(lines).toContain(NO_LEVEL_YET);
    await mkdir(join(root, "empty"));
    expect(renderHistory(historyView(await readHistory([join(root, "empty")])))).toEqual([
      "No runs in the history.",
      NO_LEVEL_YET,
    ]);
  });

  it("a named folder that is not there is an error naming it, not an empty history", async () => {
    const root = await mkdtemp(join(tmpdir(), "tb-history-"));
    const missing = join(root, "quick");
    await expect(readHistory([missing])).rejects.toMatchObject({
      code: "HISTORY_NOT_FOUND",
      message: expect.stringContaining(missing),
      hint: expect.stringContaining("a scenario goes before --hosts"),
    });
  });
});

describe("thisHost: the host `twinbench history` shows when none is named", () => {
  it("is this machine's key, as its runs are filed", async () => {
    const engine = new FakeEngine();
    expect(await thisHost(engine)).toEqual({ key: hostKey(await localHostFacts(engine)) });
  });
  it("says why when no engine answers, rather than picking a host silently", async () => {
    const engine = new FakeEngine();
    engine.facts = () =>
      Promise.reject(new TwinbenchError("no Docker engine answers", { code: "ENGINE_UNREACHABLE", hint: "start it" }));
    const r = await thisHost(engine);
    expect(r).toEqual({ why: expect.stringContaining("did not answer (no Docker engine answers)") });
  });
  it("says why when the engine does not answer within its deadline, rather than hanging", async () => {
    const engine = new FakeEngine();
    engine.facts = () => new Promise(() => undefined);
    expect(await thisHost(engine, 20)).toEqual({ why: expect.stringContaining("no answer within 0.02 s") });
  });
  it("lets any other failure through", async () => {
    const engine = new FakeEngine();
    engine.facts = () => Promise.reject(new Error("boom"));
    await expect(thisHost(engine)).rejects.toThrow("boom");
  });
});
