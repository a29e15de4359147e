/**
 * Reports of real runs: a tiny two-repeat run reported in every format, its report.html rendered in headless
 * Chromium with table and charts, and `twinbench compare` of two real runs (ratio table + host-facts diff, and
 * `--summary`: both runs' execution summaries side by side with the derived lines).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { VERDICTS, verdictOf } from "../../src/core/model/verdict.ts";
import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { ensureLab, tinyScenario, twinbench } from "./support/lab.ts";
import type { CellRecord } from "../../src/core/model/results.ts";

beforeAll(ensureLab, 1_800_000);

let runA = "";
let runB = "";

describe("reports of real runs", () => {
  beforeAll(async () => {
    const { file, dir } = await tinyScenario(
      {},
      { tests: ["oltp_point_select", "oltp_read_only"], threads: [1], repeats: 2 },
    );
    runA = join(dir, "a");
    runB = join(dir, "b");
    for (const out of [runA, runB]) {
      const r = await twinbench(["run", file, "--out", out, "--no-tui"]);
      expect(r.exitCode, r.all).toBe(0);
    }
  }, 900_000);

  // Seven CLI processes in a row: on a loaded machine that takes longer than the default 20 s.
  it("prints the seed-layout table with intervals and verdicts, and every format", { timeout: 180_000 }, async () => {
    const text = await twinbench(["report", runA, "--details"]);
    expect(text.exitCode, text.all).toBe(0);
    // A pair that outside work disturbed (in both attempts) is left out: the cells with 2 clean pairs have intervals.
    const records = (await readFile(join(runA, "cells.jsonl"), "utf8"))
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as CellRecord)
      .filter((r) => r.phase === "measure");
    const last = new Map(records.map((r) => [r.key, r])); // each key's last attempt
    const cleanPairs = (test: string) =>
      [1, 2].filter((rep) =>
        [...last.values()].every((r) => r.test !== test || r.repeat !== rep || !r.interference?.disturbed),
      ).length;
    expect(text.stdout).toMatch(/Number of threads/);
    expect(text.stdout).toMatch(/\(MariaDB q\/s \/ MySQL q\/s \* 100\)/);
    expect(text.stdout).toMatch(
      cleanPairs("oltp_point_select") === 2
        ? /oltp_point_select +1 +\d+\.\d+ +\d+\.\d+–\d+\.\d+ +(faster|slower|same within ±5%|unclear)\n/
        : /oltp_point_select +1 +.*unclear\n/,
    );
    const withInterval = ["oltp_point_select", "oltp_read_only"].filter((t) => cleanPairs(t) === 2).length;
    if (withInterval > 0)
      expect(text.stdout).toContain(
        `Over ${withInterval} cell${withInterval === 1 ? "" : "s"} at 95%, chance alone would call about ${(withInterval * 0.05).toFixed(1)} of them faster or slower`,
      );
    expect(text.stdout).toMatch(/Config identity: identical/);
    // The latency section of the details: p50, p95 and p99 of every cell from the histograms, the reading's direction
    // and the control over all latency readings in words.
    expect(text.stdout).toContain("Latency percentiles (p50, p95, p99 of each repeat, read from sysbench's latency");
    expect(text.stdout).toMatch(/lower is better/);
    expect(text.stdout).toMatch(/Benjamini–Hochberg over all \d+ latency readings? of this report/);
    expect(text.stdout).toMatch(/oltp_point_select +1 +p50 +\d+\.\d+ +\d+\.\d+ +\d\.\d{3} /);
    expect(text.stdout).toMatch(/\n +p99 +\d+\.\d+ +\d+\.\d+ +\d\.\d{3} /);
    const first = await twinbench(["report", runA]);
    expect(first.stdout).not.toContain("Latency percentiles");

    const json = JSON.parse((await twinbench(["report", runA, "--format", "json"])).stdout);
    expect(json).toMatchObject({ metric: "qps", numerator: "mariadb", denominator: "mysql", threads: [1] });
    expect(json.rows.map((r: { test: string }) => r.test)).toEqual(["oltp_point_select", "oltp_read_only"]);
    for (const row of json.rows)
      for (const c of row.cells) {
        expect(c).toMatchObject({ threads: 1, n: cleanPairs(row.test) });
        if (c.n < 2) {
          expect([c.low, c.high, c.verdict]).toEqual([null, null, "unknown"]);
          continue;
        }
        expect(VERDICTS.filter((v) => v !== "unknown")).toContain(c.verdict); // an interval: a direction and an equivalence reading
        expect(c.verdict).toBe(verdictOf(c.low, c.high, json.marginPct));
        expect(c.estimate).toBeGreaterThan(c.low);
        expect(c.estimate).toBeLessThan(c.high);
        expect(c.low).toBeLessThanOrEqual(c.high);
      }
    // report.json's latency: the three percentiles of the one pair, every reading with each side's ms and a ratio.
    // (A pair disturbed by outside work is left out: a cell may then have one pair and no interval.)
    expect(json.latency).toMatchObject({ withoutHistogram: 0, fdr: { method: "benjamini-hochberg" } });
    expect(json.latency.tables.map((t: { percentile: string }) => t.percentile)).toEqual(["p50", "p95", "p99"]);
    const readings = json.latency.tables.flatMap((t: { cells: Array<{ low: number | null }> }) =>
      t.cells.filter((c) => c.low !== null),
    );
    expect(readings.length).toBe(json.latency.readings);
    expect(text.stdout).toContain(`Benjamini–Hochberg over all ${readings.length} latency reading`);
    for (const t of json.latency.tables)
      for (const c of t.cells) {
        expect(c.numeratorMs).toBeGreaterThan(0);
        expect(c.denominatorMs).toBeGreaterThan(0);
        expect(c.ratio).toBeGreaterThan(0);
        if (c.low !== null) expect([c.low <= c.ratio, c.ratio <= c.high]).toEqual([true, true]);
        expect(VERDICTS).toContain(c.verdict);
      }
    expect(json.nopm).toEqual([]);
    const md = (await twinbench(["report", runA, "--format", "markdown"])).stdout;
    expect(md).toMatch(/\| oltp_point_select \|/);
    const csv = (await twinbench(["report", runA, "--format", "csv"])).stdout;
    expect(csv.split("\n")[0]).toMatch(/^test,threads,metric,.*,p50_numerator_ms,.*,nopm_fdr$/);
    const summary = await twinbench(["report", runA, "--summary"]);
    expect(summary.exitCode, summary.all).toBe(0);
    expect(summary.stdout).toMatch(/per sec/);
    for (const f of ["report.md", "report.html", "report.json", "comparison.csv"])
      expect((await readFile(join(runA, f), "utf8")).length).toBeGreaterThan(50);
  });

  it("report.html renders in headless Chromium with its table and charts", { timeout: 180_000 }, async () => {
    const profile = await mkdtemp(join(tmpdir(), "tb-chromium-"));
    const { stdout } = await execa(
      "chromium",
      [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        `--user-data-dir=${profile}`,
        "--virtual-time-budget=5000",
        "--dump-dom",
        `file://${join(runA, "report.html")}`,
      ],
      { timeout: 120_000 },
    );
    expect(stdout).toContain('<table class="ratio">');
    expect(stdout).not.toMatch(/data-charts-error=/);
    const ready = Number(/data-charts-ready="(\d+)"/.exec(stdout)?.[1] ?? 0);
    expect(ready).toBeGreaterThanOrEqual(4);
    await execa(
      "chromium",
      [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--no-first-run",
        `--user-data-dir=${profile}`,
        "--virtual-time-budget=5000",
        "--window-size=1280,2400",
        `--screenshot=${join(runA, "report.png")}`,
        `file://${join(runA, "report.html")}`,
      ],
      { timeout: 120_000 },
    );
    expect((await readFile(join(runA, "report.png"))).length).toBeGreaterThan(10_000);
  });

  it("compare of two real runs prints the host-facts diff and the ratio table", { timeout: 180_000 }, async () => {
    const r = await twinbench(["compare", runA, runB]);
    expect(r.exitCode, r.all).toBe(0);
    expect(r.stdout).toMatch(/Number of threads/);
    expect(r.stdout).toMatch(/oltp_point_select/);
    expect(r.stdout).toMatch(/host|Host/);
    expect(r.stdout).toContain("Fewer than 2 runs a side");
    const gate = await twinbench(["compare", runA, runB, "--fail-below", "1000"]);
    expect(gate.exitCode).toBe(1);
    expect(gate.all).toMatch(/REGRESSION|below/);
  });

  it(
    "compare --summary puts both runs' execution summaries side by side with the derived lines",
    { timeout: 120_000 },
    async () => {
      const r = await twinbench(["compare", runA, runB, "--summary"]);
      expect(r.exitCode, r.all).toBe(0);
      expect(r.stdout).toContain(`read BASE: ${runA}: single run `);
      expect(r.stdout).toContain("Test execution summary, side by side: A, B, and B/A × 100.");
      for (const server of ["mariadb", "mysql"])
        for (const test of ["oltp_point_select", "oltp_read_only"])
          expect(r.stdout).toContain(
            `${server}: ${test} @ 1 threads (median over repeats; A: 2 repeats, B: 2 repeats)`,
          );
      expect(r.stdout).toMatch(/transactions\s+\d+\s+\d+\s+\d+\.\d/);
      expect(r.stdout).toMatch(/total time taken by event execution \(s\)\s+\d+\.\d{4}\s+\d+\.\d{4}/);
      // One thread in a closed loop is busy nearly all the time: effective concurrency about 1 on both sides.
      const conc = [
        ...r.stdout.matchAll(/effective concurrency \(event execution time \/ total time\)\s+(\d+\.\d)\s+(\d+\.\d)/g),
      ];
      expect(conc).toHaveLength(4);
      for (const m of conc) for (const v of [m[1], m[2]]) expect(Number(v)).toBeGreaterThan(0.8);
      expect(r.stdout).toMatch(/configured threads\s+1\s+1\s+100\.0/);
      expect(r.stdout).toMatch(/Host and server facts/);
      // The host facts of a single-host run carry the kernel facts the probe read (or "unknown").
      const manifest = JSON.parse(await readFile(join(runA, "run.json"), "utf8"));
      expect(manifest.hosts[0]).toMatchObject({
        ioScheduler: expect.any(String),
        thp: expect.any(String),
        clocksource: expect.any(String),
        kernelCmdline: expect.any(String),
        dataDevice: expect.any(String),
      });
      expect(Object.keys(manifest.hosts[0].mitigations ?? {}).length).toBeGreaterThan(0);
    },
  );
});
