/**
 * The TPC-C-like workload, reduced (1 warehouse, 1000 items, 30 customers per district, 2 threads, short cells),
 * for real on both servers: its Lua scripts load the nine tables, every measured cell keeps consistency conditions
 * 1-4 on its server and reports new-orders per minute, the transaction mix the threads print is within one point of
 * 45/43/4/4/4, and the ratio comes with an interval and a verdict. A pair that outside work disturbed is left out of
 * the estimate (its cells' interference flags in cells.jsonl say which): 3 repeats keep an interval with one left out;
 * with fewer than 2 clean pairs (heavy hypervisor steal flags most cells) the cell has no interval and says so.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureLab, leftovers, readCells, ROOT, twinbench } from "./support/lab.ts";
import { mixPercent } from "../../src/core/model/tpcc.ts";
import { VERDICTS } from "../../src/core/model/verdict.ts";

beforeAll(ensureLab, 1_800_000);

describe("the TPC-C-like workload", () => {
  it(
    "runs reduced on both servers: conditions 1-4 hold, NOPM, the mix, a ratio with an interval",
    { timeout: 300_000 },
    async () => {
      const out = join(await mkdtemp(join(tmpdir(), "tb-tpcc-")), "run");
      const r = await twinbench([
        "run",
        join(ROOT, "scenarios", "tpcc.yaml"),
        ...["--set", "workload.threads=[2]", "--set", "workload.repeats=3", "--set", "workload.duration=3s"],
        ...["--set", "workload.warmup=0s", "--set", "workload.sysbench={warehouses: 1, items: 1000, customers: 30}"],
        ...["--set", "config.set.innodb_buffer_pool_size=256M", "--set", "storage.size=1g"],
        ...["--set", "resources.server.memory=2g", "--set", "workload.rerunDisturbed=false"],
        ...["--out", out, "--no-tui"],
      ]);
      expect(r.exitCode, r.all).toBe(0);

      const cells = (await readCells(out)).filter((c) => c.phase === "measure");
      expect(cells).toHaveLength(6);
      const mix: Record<string, Record<string, number>> = {};
      for (const c of cells) {
        expect(c.status, c.error).toBe("ok");
        expect(c.tpcc?.conditions).toBe("pass");
        expect(c.tpcc?.nopm).toBeGreaterThan(0);
        expect(c.tpcc?.tpm).toBeGreaterThan(c.tpcc!.nopm!);
        const m = (mix[c.server] ??= {});
        for (const [k, v] of Object.entries(c.tpcc!.mix!)) m[k] = (m[k] ?? 0) + v;
      }
      const spec = { new_order: 45, payment: 43, order_status: 4, delivery: 4, stock_level: 4 };
      for (const server of ["mariadb", "mysql"]) {
        const pct = mixPercent(mix[server]!);
        for (const [k, want] of Object.entries(spec))
          expect(Math.abs(pct[k]! - want), `${server} ${k}`).toBeLessThanOrEqual(1);
        expect(mix[server]!.rollback).toBeGreaterThanOrEqual(0);
      }
      // The raw output holds the mix lines the threads printed.
      expect(await readFile(join(out, "raw", "mariadb", "tpcc_like-t2-r1.log"), "utf8")).toMatch(
        /^twinbench\.tpcc\.mix thread=\d+ new_order=\d+ payment=\d+/m,
      );

      const json = JSON.parse((await twinbench(["report", out, "--format", "json"])).stdout);
      const cell = json.rows.find((x: { test: string }) => x.test === "tpcc_like").cells[0];
      expect(cell.threads).toBe(2);
      const disturbed = new Set(cells.filter((c) => c.interference?.disturbed).map((c) => c.repeat));
      expect(cell.n, "the undisturbed pairs").toBe(3 - disturbed.size);
      // Two clean pairs or more: an interval and a verdict; fewer: neither.
      const readsLikeItsPairs = (c: { n: number; low: number | null; high: number | null; verdict: string }) => {
        if (c.n >= 2) {
          expect(c.low).toEqual(expect.any(Number));
          expect(c.high).toBeGreaterThan(c.low!);
          expect(VERDICTS.filter((v) => v !== "unknown")).toContain(c.verdict);
        } else {
          expect([c.low, c.high, c.verdict]).toEqual([null, null, "unknown"]);
        }
      };
      readsLikeItsPairs(cell);
      // NOPM (new orders per minute) read by the same estimator: the same pairs, its own interval and verdict.
      const nopm = json.nopm[0].rows.find((x: { test: string }) => x.test === "tpcc_like").cells[0];
      expect(nopm.threads).toBe(2);
      expect(nopm.n, "NOPM: the undisturbed pairs").toBe(cell.n);
      readsLikeItsPairs(nopm);
      const manifest = JSON.parse(await readFile(join(out, "run.json"), "utf8"));
      expect(Object.keys(manifest.customScripts)).toEqual(["tpcc_like"]);
      expect(await leftovers(manifest.runId)).toEqual({ containers: [], networks: [], volumes: [] });
    },
  );
});
