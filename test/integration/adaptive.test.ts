/**
 * Adaptive repeats and server instances against the real engine, real servers and real sysbench: an A/A run that
 * restarts both servers between rounds, stops on its precision rule, and resumes after a Ctrl-C.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { VERDICTS } from "../../src/core/model/verdict.ts";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { CellRecord, RunManifest } from "../../src/core/model/results.ts";
import { readResultsFolder } from "../../src/adapters/report-files.ts";
import { buildRunReport } from "../../src/core/report/model.ts";
import { renderText } from "../../src/core/report/text.ts";
import {
  ensureLab,
  events,
  leftovers,
  readCells,
  start,
  tinyScenario,
  twinbench,
  waitForEvent,
} from "./support/lab.ts";

beforeAll(ensureLab, 1_800_000);

// A/A: the same image twice. 2 s cells, 1 table × 1000 rows, one test at 1 thread, no prewarm (1000 rows are read in
// the first second; every new instance would prewarm both servers again); a new instance every round. No
// precision stop comes before 4 replication units (estimate.ts, MIN_UNITS_FOR_PRECISION_STOP): with max 3 the rule
// ends the run at max, after 3 rounds on 3 instances; the resumed run needs only its second round (max 2).
const aa = (max: number) =>
  tinyScenario(
    {
      servers: [
        { id: "a", image: "mariadb-11.8" },
        { id: "b", image: "mariadb-11.8" },
      ],
    },
    {
      tables: 1,
      tableSize: 1000,
      tests: ["oltp_point_select"],
      threads: [1],
      duration: "2s",
      repeats: { min: 2, max, precision: "60%" },
      instances: 2,
      prewarm: false,
    },
  );

const measured = (cells: CellRecord[]) => cells.filter((c) => c.phase === "measure" && c.status === "ok");

/** Every pair (repeat) has both servers on one instance; returns the instance per repeat. */
function pairInstances(cells: CellRecord[]): Map<number, number> {
  const last = new Map<string, CellRecord>();
  for (const c of measured(cells)) last.set(c.key, c);
  const byRepeat = new Map<number, CellRecord[]>();
  for (const c of last.values()) byRepeat.set(c.repeat, [...(byRepeat.get(c.repeat) ?? []), c]);
  const out = new Map<number, number>();
  for (const [r, cs] of byRepeat) {
    expect(cs.map((c) => c.server).sort()).toEqual(["a", "b"]);
    expect(cs[0].instance).toBeTypeOf("number");
    expect(cs[1].instance).toBe(cs[0].instance);
    out.set(r, cs[0].instance!);
  }
  return out;
}

describe("adaptive repeats with server instances", () => {
  it(
    "restarts the servers per instance, records instances, stops by its rule and reports verdicts",
    { timeout: 900_000 },
    async () => {
      const { file, dir } = await aa(3);
      const out = join(dir, "out");
      // A run never calibrates first: it starts with a forecast, or says why there is none.
      const r = await twinbench(["run", file, "--out", out, "--json-events"]);
      expect(r.exitCode, r.all).toBe(0);
      expect(r.all).not.toMatch(/calibrate: /);
      const ev = events(r.stdout);
      expect(ev.findIndex((e) => e.type === "forecast")).toBeLessThan(ev.findIndex((e) => e.type === "cell-started"));
      expect(ev.findIndex((e) => e.type === "forecast")).toBeGreaterThanOrEqual(0);
      const rounds = ev.filter((e) => e.type === "round-finished");
      expect(rounds.length).toBeGreaterThanOrEqual(2);
      expect(rounds.map((e) => e.round)).toEqual(rounds.map((_, i) => i + 1));
      const lastRound = rounds.at(-1) as unknown as { cells: Array<{ done?: string; n: number }> };
      expect(["precision", "max"]).toContain(lastRound.cells[0].done);

      const manifest = JSON.parse(await readFile(join(out, "run.json"), "utf8")) as RunManifest;
      const cells = await readCells(out);
      const inst = pairInstances(cells);
      expect([...inst.values()]).toContain(0);
      expect([...inst.values()]).toContain(1);
      // a new instance every ceil(min / instances) = 1 round: both servers restarted before rounds 2, 3, …
      const restarts = (manifest.actions ?? []).filter((a) => a.action === "instance");
      expect(restarts.length).toBe((inst.size - 1) * 2);
      expect(new Set(restarts.map((a) => a.server))).toEqual(new Set(["a", "b"]));
      expect(manifest.adaptive).toMatchObject({
        min: 2,
        max: 3,
        precisionPct: 60,
        instances: 2,
        roundsPerInstance: 1,
        rounds: inst.size,
      });
      expect(["precision", "max"]).toContain(manifest.adaptive!.cells[0].done);

      const folder = await readResultsFolder(out);
      const report = buildRunReport(folder.manifest, folder.cells);
      const cell = report.table!.rows[0].cells[0];
      // A pair whose last attempt outside work disturbed is left out of the estimate (its records stay): the cell
      // counts the clean pairs, and has an interval and a verdict when 2 or more are clean.
      const last = new Map<string, CellRecord>();
      for (const c of measured(cells)) last.set(c.key, c);
      const disturbedRepeats = new Set(
        [...last.values()].filter((c) => c.interference?.disturbed).map((c) => c.repeat),
      );
      expect(cell.n).toBe(inst.size - disturbedRepeats.size);
      if (cell.n >= 2) expect(VERDICTS.filter((v) => v !== "unknown")).toContain(cell.verdict); // an interval: a direction and an equivalence reading
      expect(renderText(report, { details: true })).toMatch(/Adaptive repeats: target ±60% per cell, 2 to 3 rounds/);
      expect(await leftovers(manifest.runId)).toEqual({ containers: [], networks: [], volumes: [] });

      // A run with an interval goes into the host's history (the tests' scratch folder), and its end says where a
      // second run lands or that no level between runs is measured yet, in the report's words. Without one (fewer
      // than 2 undisturbed pairs) there is nothing a later run could be held against: no entry, no such lines.
      const second = ev.find((e) => e.type === "second-run") as { lines: string[] } | undefined;
      const h = await twinbench(["history", "--json"]);
      expect(h.exitCode, h.all).toBe(0);
      const view = JSON.parse(h.stdout) as { cells: Array<{ runs: Array<{ runId: string }> }> };
      const inHistory = view.cells.flatMap((c) => c.runs.map((x) => x.runId)).includes(manifest.runId);
      if (cell.n >= 2) {
        expect(second?.lines.join("\n")).toMatch(
          /No level between runs has been measured|A second run on this host lands/,
        );
        expect(inHistory).toBe(true);
      } else {
        expect(second).toBeUndefined();
        expect(inHistory).toBe(false);
      }
    },
  );

  it(
    "a cancelled adaptive run resumes: the cut pair runs again on a new instance number, and the run completes",
    { timeout: 900_000 },
    async () => {
      const { file, dir } = await aa(2);
      const out = join(dir, "out");
      const child = start(["run", file, "--out", out, "--json-events"]);
      // Cancel inside round 2, after its first measured cell.
      await waitForEvent(child, (e) => e.type === "cell-finished" && (e.cell as { repeat: number }).repeat === 2);
      child.kill("SIGINT");
      const first = await child;
      expect(first.exitCode, first.all).toBe(130);
      const before = await readCells(out);
      const beforeMax = Math.max(...measured(before).map((c) => c.instance ?? 0));

      const r = await twinbench(["run", "--resume", out, "--json-events"]);
      expect(r.exitCode, r.all).toBe(0);
      const after = await readCells(out);
      const added = measured(after).slice(measured(before).length);
      expect(added.length).toBeGreaterThanOrEqual(2);
      // the resumed servers are new processes: no instance index of the cancelled run is reused
      for (const c of added) expect(c.instance!).toBeGreaterThan(beforeMax);
      const inst = pairInstances(after);
      expect(inst.size).toBeGreaterThanOrEqual(2);
      const manifest = JSON.parse(await readFile(join(out, "run.json"), "utf8")) as RunManifest;
      expect(manifest.status).toBe("ok");
      expect(["precision", "max"]).toContain(manifest.adaptive!.cells[0].done);
      expect(await leftovers(manifest.runId)).toEqual({ containers: [], networks: [], volumes: [] });
    },
  );
});
