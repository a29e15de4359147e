/**
 * Fault tests against the real engine: Ctrl-C and SIGTERM during a measured cell, a server killed mid-cell (then
 * retried). twinbench itself killed with SIGKILL at each phase (then `clean` and `--resume`) is in the fault
 * matrix: test/faults/.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { CellRecord } from "../../src/core/model/results.ts";
import { readResultsFolder } from "../../src/adapters/report-files.ts";
import { buildRunReport } from "../../src/core/report/model.ts";
import { renderText } from "../../src/core/report/text.ts";
import { docker, ensureLab, events, leftovers, readCells, start, tinyScenario, waitForEvent } from "./support/lab.ts";

beforeAll(ensureLab, 1_800_000);

describe("faults", () => {
  // SIGTERM behaves like the first Ctrl-C. The SIGINT run has both servers (the idle one is frozen while the other is
  // measured, so the cancel tears down a paused container); the SIGTERM runs, which check the signal's path, have one
  // (a one-server scenario compares runs).
  const oneServer = { servers: [{ id: "mariadb", image: "mariadb-11.8" }], compare: "runs" };
  it.each([
    ["SIGINT", {}],
    ["SIGTERM", oneServer],
  ] as const)(
    "%s during a measured cell (--json-events): exit 130 within 20 s, finished cells intact, nothing left",
    { timeout: 600_000 },
    async (signal, over) => {
      const { file, dir } = await tinyScenario(over, { threads: [1, 2], duration: "4s", repeats: 2 });
      const out = join(dir, "out");
      const child = start(["run", file, "--out", out, "--json-events"]);
      const plan = await waitForEvent(child, (e) => e.type === "plan-ready");
      await waitForEvent(child, (e) => e.type === "cell-finished");
      await waitForEvent(child, (e) => e.type === "cell-started" && e.phase === "measure");
      await new Promise((r) => setTimeout(r, 1000));
      const t0 = Date.now();
      child.kill(signal);
      const r = await child;
      expect((Date.now() - t0) / 1000).toBeLessThan(20);
      expect(r.exitCode, r.all).toBe(130);
      expect(events(r.stdout).at(-1)).toMatchObject({ type: "run-finished", status: "cancelled", exitCode: 130 });
      const cells = await readCells(out);
      expect(cells.filter((c) => c.status === "ok").length).toBeGreaterThanOrEqual(1);
      for (const c of cells.filter((x) => x.status === "ok")) expect(c.metrics?.status).toBe("ok");
      const manifest = JSON.parse(await readFile(join(out, "run.json"), "utf8"));
      expect(manifest.status).toBe("cancelled");
      expect(await leftovers(String(plan.runId))).toEqual({ containers: [], networks: [], volumes: [] });
    },
  );

  it(
    "SIGTERM in plain mode: the cancel message, exit 130, finished cells kept, nothing left",
    { timeout: 600_000 },
    async () => {
      const { file, dir } = await tinyScenario(oneServer, { threads: [1, 2], duration: "4s", repeats: 2 });
      const out = join(dir, "out");
      const child = start(["run", file, "--out", out, "--no-tui"]);
      // A finished cell prints "  ok: qps ..." in plain mode; signal during the next one.
      await new Promise<void>((resolve, reject) => {
        let seen = "";
        child.stdout!.on("data", (d: Buffer) => {
          seen += d.toString();
          if (/^ {2}ok: qps/m.test(seen)) resolve();
        });
        child.on("exit", () => reject(new Error("twinbench exited before a cell finished")));
      });
      await new Promise((r) => setTimeout(r, 1500));
      child.kill("SIGTERM");
      const r = await child;
      expect(r.exitCode, r.all).toBe(130);
      expect(r.stderr).toContain("cancelling: stopping sysbench and cleaning up");
      const manifest = JSON.parse(await readFile(join(out, "run.json"), "utf8"));
      expect(manifest.status).toBe("cancelled");
      expect(
        (await readCells(out)).filter((c) => c.phase === "measure" && c.status === "ok").length,
      ).toBeGreaterThanOrEqual(1);
      expect(await leftovers(String(manifest.runId))).toEqual({ containers: [], networks: [], volumes: [] });
    },
  );

  it(
    "docker kill of the server mid-cell: that attempt fails with the lost connection, the server restarts, the cell is retried and the table shows a number",
    { timeout: 600_000 },
    async () => {
      const { file, dir } = await tinyScenario({}, { threads: [1], duration: "4s", repeats: 2 });
      const out = join(dir, "out");
      const child = start(["run", file, "--out", out, "--json-events"]);
      const plan = await waitForEvent(child, (e) => e.type === "plan-ready");
      const runId = String(plan.runId);
      await waitForEvent(
        child,
        (e) =>
          e.type === "cell-started" && e.phase === "measure" && (e.cell as { server: string }).server === "mariadb",
      );
      await new Promise((r) => setTimeout(r, 1500));
      await docker.getContainer(`tb-${runId}-mariadb`).kill();
      const r = await child;
      const ev = events(r.stdout);
      expect(r.exitCode, r.all).toBe(0);
      const failed = ev.filter((e) => e.type === "cell-failed");
      expect(failed).toHaveLength(1);
      const rec = failed[0]!.record as CellRecord;
      expect(rec.server).toBe("mariadb");
      expect(rec.attempt).toBe(1);
      expect(failed[0]!.retry).toBe(2);
      expect(rec.error).toMatch(/Lost connection|server has gone away|Can't connect|connection/i);
      const restartAt = ev.findIndex((e) => e.type === "server-restarted" && e.server === "mariadb");
      expect(restartAt).toBeGreaterThan(ev.indexOf(failed[0]!));
      // Both attempts are in cells.jsonl; the retry, after the restart, is ok, and so is every other planned cell.
      const cells = (await readCells(out)).filter((c) => c.phase === "measure");
      expect(cells.filter((c) => c.key === rec.key).map((c) => [c.attempt, c.status])).toEqual([
        [1, "failed"],
        [2, "ok"],
      ]);
      expect(new Set(cells.filter((c) => c.status === "ok").map((c) => c.key)).size).toBe(
        (plan.cells as unknown[]).length,
      );
      const fin = ev.at(-1)!;
      expect(fin.type).toBe("run-finished");
      expect(fin.status).toBe("ok");
      // The report uses the last attempt: a number in every cell of the table, one retry counted.
      const folder = await readResultsFolder(out);
      const report = buildRunReport(folder.manifest, folder.cells);
      expect(report.retries).toBe(1);
      expect(report.table!.rows.flatMap((row) => row.cells).map((c) => [c.status, c.failedRepeats])).toEqual([
        ["ok", 0],
      ]);
      expect(renderText(report, { details: true })).toContain("Retries: 1 measured attempt");
      expect(await leftovers(runId)).toEqual({ containers: [], networks: [], volumes: [] });
    },
  );
});
