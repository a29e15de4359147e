/**
 * Fault tests against the real engine: Ctrl-C during a measured cell, a server killed mid-cell, and twinbench
 * itself killed with SIGKILL (then `clean` and `--resume`).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { execa } from "execa";
import type { CellRecord } from "../../src/core/results.ts";
import { BIN, ROOT, docker, ensureLab, events, leftovers, tinyScenario, twinbench } from "./support/lab.ts";

beforeAll(ensureLab, 1_800_000);

function start(args: string[]) {
  return execa("node", [BIN, ...args], { cwd: ROOT, reject: false, all: true, buffer: true, env: { NO_COLOR: "1" } });
}

/** Resolve when a line of the child's NDJSON stdout satisfies `pred`. */
function waitForEvent(child: ReturnType<typeof start>, pred: (e: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    let buf = "";
    child.stdout!.on("data", (d: Buffer) => {
      buf += d.toString();
      const lines = buf.split("\n");
      buf = lines.pop() ?? "";
      for (const l of lines) {
        if (!l.startsWith("{")) continue;
        const e = JSON.parse(l) as Record<string, unknown>;
        if (pred(e)) resolve(e);
      }
    });
    child.on("exit", () => reject(new Error("twinbench exited before the awaited event")));
  });
}

const readCells = async (dir: string) =>
  (await readFile(join(dir, "cells.jsonl"), "utf8").catch(() => ""))
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as CellRecord);

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

  it("kill -9 of twinbench: clean removes everything, --resume completes the run with the same cell count", { timeout: 900_000 }, async () => {
    const { file, dir } = await tinyScenario({}, { threads: [1, 2], duration: "3s", repeats: 1 });
    const out = join(dir, "out");
    const child = start(["run", file, "--out", out, "--json-events"]);
    const plan = await waitForEvent(child, (e) => e.type === "plan-ready");
    const runId = String(plan.runId);
    const planned = (plan.cells as unknown[]).length;
    await waitForEvent(child, (e) => e.type === "cell-finished");
    child.kill("SIGKILL");
    await child;
    const left = await leftovers(runId);
    expect(left.containers.length + left.volumes.length + left.networks.length).toBeGreaterThan(0);
    const c = await twinbench(["clean", "--run", runId]);
    expect(c.exitCode, c.all).toBe(0);
    expect(await leftovers(runId)).toEqual({ containers: [], networks: [], volumes: [] });
    const before = (await readCells(out)).filter((x) => x.phase === "measure" && x.status === "ok").length;
    expect(before).toBeGreaterThanOrEqual(1);
    expect(before).toBeLessThan(planned);

    const r = await twinbench(["run", "--resume", out, "--json-events"]);
    expect(r.exitCode, r.all).toBe(0);
    const okKeys = new Set((await readCells(out)).filter((x) => x.phase === "measure" && x.status === "ok").map((x) => x.key));
    expect(okKeys.size).toBe(planned);
    expect(await leftovers(runId)).toEqual({ containers: [], networks: [], volumes: [] });
  });
});
