/**
 * A run whose load container is starved (a CPU quota of 0.1 core for sysbench, resources.load.cpus) is
 * marked load-bound, from the containers' cgroup CPU against their cores, and its cells get no verdict; `plan`
 * warns before the run. Real Docker, real servers, real sysbench.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { CellRecord } from "../../src/core/model/results.ts";
import { ensureLab, leftovers, tinyScenario, twinbench } from "./support/lab.ts";

beforeAll(ensureLab, 1_800_000);

describe("a starved load container", () => {
  it(
    "is load-bound in every measured cell, the ratio has no verdict, and plan warned",
    { timeout: 600_000 },
    async () => {
      // 4 threads of point selects on 0.1 core: sysbench, not the server, sets the pace.
      const { file, dir } = await tinyScenario(
        { resources: { server: { cpuset: "1", memory: "2g" }, load: { cpuset: "0", cpus: 0.1 } } },
        { threads: [4], repeats: 2, duration: "3s" },
      );
      const plan = await twinbench(["plan", file]);
      expect(plan.exitCode, plan.all).toBe(0);
      // The plan's summary wraps its lines at 120 characters: read it as one text.
      const planText = plan.all.replace(/\s+/g, " ");
      expect(planText).toMatch(
        /warning: likely load-bound: the load's CPU quota \(resources\.load\.cpus\) gives it 0\.1 cores for up to 4 sysbench threads/,
      );
      expect(planText).toContain("the load's CPU quota (resources.load.cpus) is 0.1 cores");

      const out = join(dir, "out");
      const r = await twinbench(["run", file, "--out", out, "--no-tui"]);
      expect(r.exitCode, r.all).toBe(0);

      const cells = (await readFile(join(out, "cells.jsonl"), "utf8"))
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as CellRecord);
      const measured = cells.filter((c) => c.phase === "measure" && c.status === "ok");
      expect(measured.length).toBe(4); // 2 servers × 2 repeats
      for (const c of measured) {
        const st = c.state!;
        expect(st.cpu, c.key).toMatchObject({ serverCpusetCores: 1, loadCpusetCores: 0.1 });
        // The load used its quota (≥ 90% of 0.1 core), the server far less than its core.
        expect(st.bottleneck, c.key).toMatchObject({ kind: "load" });
        expect(st.bottleneck!.serverUtilPct, c.key).toBeLessThan(90);
        // CPU per query × q/s is the cores used: at most the quota (2% for the counters' and clock's rounding).
        const used = (st.perQuery!.clientCpuUs! * c.metrics!.qps!) / 1e6;
        expect(used, c.key).toBeLessThanOrEqual(0.1 * 1.02);
        expect(used, c.key).toBeGreaterThan(0);
      }

      const report = JSON.parse(await readFile(join(out, "report.json"), "utf8")) as {
        rows: Array<{ cells: Array<{ loadBound: boolean; verdict: string; reason?: string }> }>;
      };
      const cell = report.rows[0]!.cells[0]!;
      expect(cell).toMatchObject({ loadBound: true, verdict: "unknown", reason: "load-bound" });
      const md = await readFile(join(out, "report.md"), "utf8");
      expect(md).toMatch(/Load-bound: 4 cells where sysbench used ≥ 90% of its cores/);
      expect((await leftovers()).containers).toEqual([]);
    },
  );
});
