/**
 * Fault tests against the real engine: Ctrl-C during a measured cell, a server killed mid-cell. twinbench itself
 * killed with SIGKILL at each phase (then `clean` and `--resume`) is in the fault matrix: test/faults/.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { CellRecord } from "../../src/core/results.ts";
import { docker, ensureLab, events, leftovers, readCells, start, tinyScenario, twinbench, waitForEvent } from "./support/lab.ts";

beforeAll(ensureLab, 1_800_000);

describe("faults", () => {
  it("SIGINT during a measured cell: exit 130 within 20 s, finished cells intact, nothing left", { timeout: 600_000 }, async () => {
    const { file, dir } = await tinyScenario({}, { threads: [1, 2], duration: "4s", repeats: 2 });
    const out = join(dir, "out");
    const child = start(["run", file, "--out", out, "--json-events"]);
    const plan = await waitForEvent(child, (e) => e.type === "plan-ready");
    await waitForEvent(child, (e) => e.type === "cell-finished");
    await waitForEvent(child, (e) => e.type === "cell-started" && e.phase === "measure");
    await new Promise((r) => setTimeout(r, 1000));
    const t0 = Date.now();
    child.kill("SIGINT");
    const r = await child;
    expect((Date.now() - t0) / 1000).toBeLessThan(20);
    expect(r.exitCode, r.all).toBe(130);
    const cells = await readCells(out);
    expect(cells.filter((c) => c.status === "ok").length).toBeGreaterThanOrEqual(1);
    for (const c of cells.filter((x) => x.status === "ok")) expect(c.metrics?.status).toBe("ok");
    const manifest = JSON.parse(await readFile(join(out, "run.json"), "utf8"));
    expect(manifest.status).toBe("cancelled");
    expect(await leftovers(String(plan.runId))).toEqual({ containers: [], networks: [], volumes: [] });
  });

  it("docker kill of the server mid-cell: that cell fails with the lost connection, the server restarts, the run goes on", { timeout: 600_000 }, async () => {
    const { file, dir } = await tinyScenario({}, { threads: [1], duration: "4s", repeats: 2 });
    const out = join(dir, "out");
    const child = start(["run", file, "--out", out, "--json-events"]);
    const plan = await waitForEvent(child, (e) => e.type === "plan-ready");
    const runId = String(plan.runId);
    await waitForEvent(child, (e) => e.type === "cell-started" && e.phase === "measure" && (e.cell as { server: string }).server === "mariadb");
    await new Promise((r) => setTimeout(r, 1500));
    await docker.getContainer(`tb-${runId}-mariadb`).kill();
    const r = await child;
    const ev = events(r.stdout);
    expect(r.exitCode, r.all).toBe(1);
    const failed = ev.filter((e) => e.type === "cell-failed");
    expect(failed).toHaveLength(1);
    const rec = (failed[0]!.record as CellRecord);
    expect(rec.server).toBe("mariadb");
    expect(rec.error).toMatch(/Lost connection|server has gone away|Can't connect|connection/i);
    expect(ev.some((e) => e.type === "server-restarted" && e.server === "mariadb")).toBe(true);
    // The run went on: every other planned cell finished.
    const cells = (await readCells(out)).filter((c) => c.phase === "measure");
    expect(cells.filter((c) => c.status === "ok")).toHaveLength(plan.cells ? (plan.cells as unknown[]).length - 1 : 3);
    const fin = ev.at(-1)!;
    expect(fin.type).toBe("run-finished");
    expect(fin.status).toBe("partial");
    expect(await leftovers(runId)).toEqual({ containers: [], networks: [], volumes: [] });
  });
});
