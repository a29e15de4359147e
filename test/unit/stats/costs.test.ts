/**
 * The cost per query compared (src/core/stats/costs.ts) on the fixture run folders, with `state.perQuery` attached
 * to their records: the paired interval of a run and the unpaired one of `compare`, each checked against scipy's
 * closed form (paired / two-sample t on the logs), the pairs left out, the "not available" reasons, and the figures in
 * the text, JSON and CSV reports and in compare's "why it moved" lines.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseCellsJsonl } from "../../../src/adapters/report-files.ts";
import type { PerQuery } from "../../../src/core/model/cell.ts";
import type { CellRecord, RunManifest } from "../../../src/core/model/results.ts";
import { COST_FIGURES, HARDWARE_COUNTERS_NOTE } from "../../../src/core/stats/costs.ts";
import { costLines } from "../../../src/core/report/costs.ts";
import { hardwareCountersOf } from "../../../src/core/measure/taskcounters.ts";
import { COST_CSV_HEADER, renderCostCsv } from "../../../src/core/report/csv.ts";
import { buildRunReport } from "../../../src/core/report/model.ts";
import { reportJson } from "../../../src/core/report/json.ts";
import { renderText } from "../../../src/core/report/text.ts";
import { costChartData, renderHtml } from "../../../src/core/report/html.ts";
import { buildHtmlData } from "../../../src/core/report/html-data.ts";
import { comparisonJson, explanationLines, renderComparisonText } from "../../../src/core/report/compare.ts";
import { compareRuns } from "../../../src/core/stats/compare.ts";
import { cellRecord, sysbench } from "../../support/record.ts";

const FIX = join(import.meta.dirname, "../../fixtures/results");
function load(name: string): { manifest: RunManifest; cells: CellRecord[] } {
  const manifest = JSON.parse(readFileSync(join(FIX, name, "run.json"), "utf8")) as RunManifest;
  return { manifest, cells: parseCellsJsonl(readFileSync(join(FIX, name, "cells.jsonl"), "utf8")).cells };
}

const pq = (o: Partial<PerQuery>): PerQuery => ({
  queries: 1000,
  rowsRead: 1,
  pagesRead: 0,
  pagesWritten: 0.01,
  logBytes: 400,
  fsyncs: 0.002,
  counters: { rowsRead: "Innodb_rows_read", logBytes: "Innodb_os_log_written" },
  serverCpuUs: 40,
  clientCpuUs: 20,
  ...o,
});

/** Attach per-query figures to the measured records of one cell: `by(server, repeat)` gives them. */
function withCosts(
  cells: CellRecord[],
  test: string,
  threads: number,
  by: (server: string, repeat: number) => Partial<PerQuery> | null,
): CellRecord[] {
  return cells.map((c) => {
    if (c.phase === "warmup" || c.test !== test || c.threads !== threads) return c;
    const o = by(c.server, c.repeat);
    return o === null ? c : { ...c, state: { ...c.state, perQuery: pq(o) } };
  });
}

const close = (x: number | null, y: number, digits = 3) => expect(x).toBeCloseTo(y, digits);

describe("cost per query in a run: paired like q/s", () => {
  const run = load("repeats");
  const cpu: Record<string, number[]> = { mariadb: [40, 44, 41], mysql: [50, 52, 55] };
  const redo: Record<string, Array<number | null>> = { mariadb: [400, null, 396], mysql: [380, 385, 390] };
  const cells = withCosts(run.cells, "oltp_point_select", 1, (s, r) => ({
    serverCpuUs: cpu[s]![r - 1]!,
    logBytes: redo[s]![r - 1]!,
    // MariaDB has no InnoDB row counter: its rows read come from Rows_read (cellstate.ts PER_QUERY_COUNTERS).
    counters: { rowsRead: s === "mariadb" ? "Rows_read" : "Innodb_rows_read", logBytes: "Innodb_os_log_written" },
    fsyncs: s === "mysql" ? null : 0.002,
    pagesRead: 0,
  }));
  const report = buildRunReport(run.manifest, cells);
  const costs = report.costs!;
  const cell = costs.cells.find((c) => c.test === "oltp_point_select" && c.threads === 1)!;
  const fig = (k: string) => cell.figures.find((f) => f.figure === k)!;

  it("server CPU per query: the paired t interval on ln(a/b), as scipy gives it", () => {
    // Only this cell has cost readings, so the figure's variance prior has nothing to pool (d0 = 0): the cell's own
    // paired t. Reference, scipy 1.17.1:
    //   a, b = np.array([40, 44, 41.]), np.array([50, 52, 55.]); r = stats.ttest_rel(np.log(a), np.log(b))
    //   ci = r.confidence_interval(0.95); np.exp(np.log(a / b).mean()) * 100, np.exp(ci.low) * 100, np.exp(ci.high) * 100
    //   → 79.6135, 67.9968, 93.2149; r.pvalue 0.02489
    const c = fig("serverCpuUs");
    expect(c).toMatchObject({ status: "ok", n: 3, df: 2, moved: "lower", numeratorMedian: 41, denominatorMedian: 52 });
    close(c.estimate, 79.6135);
    close(c.low, 67.9968);
    close(c.high, 93.2149);
    close(c.p, 0.02489, 4);
    expect(c.numeratorValues).toEqual([40, 44, 41]);
  });

  it("a figure null on one side in a repeat is left out of that pair", () => {
    // scipy: a, b = [400, 396.], [380, 390.] → ttest_rel on the logs: 103.384 [82.2345, 129.973]
    const c = fig("logBytes");
    expect(c).toMatchObject({ status: "ok", n: 2, df: 1, moved: "none", numeratorValues: [400, null, 396] });
    close(c.estimate, 103.384);
    close(c.low, 82.2345);
    close(c.high, 129.973);
  });

  it("no pairs: not available, with the reason; different counters are named", () => {
    expect(fig("fsyncs")).toMatchObject({
      status: "not-available",
      estimate: null,
      reason: "mysql: no fsyncs reading",
    });
    expect(fig("pagesRead")).toMatchObject({
      status: "not-available",
      reason: "mariadb: pages read is 0 in every repeat (no ratio)",
    });
    expect(fig("rowsRead").note).toBe("mariadb reads Rows_read, mysql reads Innodb_rows_read");
    // Identical values on both sides: a ratio of exactly 1 and no spread, so no interval.
    expect(fig("clientCpuUs")).toMatchObject({
      status: "ok",
      estimate: 100,
      low: null,
      reason: "zero-width",
      moved: "unknown",
    });
    const other = costs.cells.find((c) => c.test === "oltp_read_only" && c.threads === 1)!;
    expect(
      other.figures.every((f) => f.status === "not-available" && f.reason === "mariadb: no cost readings recorded"),
    ).toBe(true);
  });

  it("a side that reads 0 in most repeats: no ratio of its few others (a seed run read bytes 8.03× where MySQL's median was 0 B)", () => {
    const zeros = withCosts(run.cells, "oltp_point_select", 1, (srv, r) => ({
      readBytes: srv === "mysql" ? [0, 4096, 0][r - 1]! : [8192, 12288, 4096][r - 1]!,
    }));
    const c = buildRunReport(run.manifest, zeros)
      .costs!.cells.find((x) => x.test === "oltp_point_select" && x.threads === 1)!
      .figures.find((f) => f.figure === "readBytes")!;
    expect(c).toMatchObject({
      status: "not-available",
      estimate: null,
      denominatorMedian: 0,
      reason: "mysql: bytes read is 0 in 2 of 3 repeats (no ratio: it would stand for the others)",
    });
    // One zero in three: the two pairs with readings on both sides still give a ratio.
    const one = withCosts(run.cells, "oltp_point_select", 1, (srv, r) => ({
      readBytes: srv === "mysql" ? [0, 4096, 4096][r - 1]! : [8192, 12288, 4096][r - 1]!,
    }));
    const d = buildRunReport(run.manifest, one)
      .costs!.cells.find((x) => x.test === "oltp_point_select" && x.threads === 1)!
      .figures.find((f) => f.figure === "readBytes")!;
    expect(d).toMatchObject({ status: "ok", n: 2 });
  });

  it("the text report has a cost section: factor [interval] and each side's median; hardware counters not available", () => {
    // The details: the compact table, read like q/s (above 100: MariaDB costs less), then where every figure is.
    const text = renderText(report, { details: true });
    expect(text).toContain("Cost per query, MySQL / MariaDB × 100 (above 100: MariaDB does the same work for less):");
    const cpu = costs.cells.find((c) => c.test === "oltp_point_select" && c.threads === 1)!.figures[0]!;
    expect(cpu).toMatchObject({ figure: "serverCpuUs" });
    const flipped = `${(10000 / cpu.estimate!).toFixed(1)} [${(10000 / cpu.high!).toFixed(1)}–${(10000 / cpu.low!).toFixed(1)}]`;
    expect(text).toMatch(new RegExp(`oltp_point_select @ 1 +${flipped.replace(/[.[\]]/g, "\\$&")}`));
    expect(text).toContain("Every cost figure per query, with each side's median: costs.csv, report.json.");
    // A run recorded without the host check says so; one with it gives what the host showed.
    expect(text).toContain(HARDWARE_COUNTERS_NOTE);
    const checked = hardwareCountersOf({ pmu: false, perfOutput: null }).text;
    const manifest = {
      ...run.manifest,
      hosts: run.manifest.hosts.map((h, i) => (i === 0 ? { ...h, hardwareCounters: checked } : h)),
    };
    const withHost = renderText(buildRunReport(manifest, cells), { details: true });
    expect(withHost).toContain(checked);
    expect(withHost).toContain("not available on this host");
    expect(withHost).not.toContain(HARDWARE_COUNTERS_NOTE);
  });

  it("context switches and bytes per query are paired like the rest; tmpfs says no block device", () => {
    const cs: Record<string, number[]> = { mariadb: [2.0, 2.2, 2.1], mysql: [3.0, 3.1, 2.9] };
    const withTasks = withCosts(run.cells, "oltp_point_select", 1, (s, r) => ({
      serverCsVoluntary: cs[s]![r - 1]!,
      serverCsInvoluntary: 0.1,
      clientCsVoluntary: 1,
      clientCsInvoluntary: 0.01,
      readBytes: null,
      writeBytes: null,
      absent: { readBytes: "no block device (tmpfs)", writeBytes: "no block device (tmpfs)" },
    }));
    const t = buildRunReport(run.manifest, withTasks).costs!;
    const c = t.cells.find((x) => x.test === "oltp_point_select" && x.threads === 1)!;
    const f = (k: string) => c.figures.find((x) => x.figure === k)!;
    expect(f("serverCsVoluntary")).toMatchObject({
      status: "ok",
      n: 3,
      moved: "lower",
      numeratorMedian: 2.1,
      denominatorMedian: 3,
    });
    expect(f("readBytes")).toMatchObject({ status: "not-available", reason: "mariadb: no block device (tmpfs)" });
    const text = costLines(t).join("\n");
    expect(text).toContain("bytes read, bytes written not available (mariadb: no block device (tmpfs))");
    expect(text).toMatch(/server voluntary cs 0\.\d\d× \[/);
  });

  it("JSON carries the table; costs.csv one line per cell × figure", () => {
    const j = reportJson(report) as {
      run: { costs: { cells: unknown[]; pairing: string; figures: Array<{ key: string }> } };
    };
    expect(j.run.costs.pairing).toBe("paired");
    expect(j.run.costs.figures.map((f) => f.key)).toEqual(COST_FIGURES.map((f) => f.key));
    expect(JSON.stringify(j.run.costs.cells)).toContain('"figure":"serverCpuUs"');
    const lines = renderCostCsv(costs).trim().split("\n");
    expect(lines[0]).toBe(COST_CSV_HEADER.join(","));
    expect(lines.length).toBe(1 + costs.cells.length * COST_FIGURES.length);
    const cpuLine = lines.find((l) => l.startsWith("oltp_point_select,1,serverCpuUs,"))!.split(",");
    expect(cpuLine.slice(0, 10)).toEqual([
      "oltp_point_select",
      "1",
      "serverCpuUs",
      "mariadb",
      "mysql",
      "ok",
      "79.6135",
      "67.9968",
      "93.2149",
      "lower",
    ]);
  });

  it("report.html: the table, and one chart of the figures' intervals side by side", () => {
    const html = renderHtml(buildHtmlData(run.manifest, cells, report), "");
    expect(html).toContain("<h3>Cost per query</h3>");
    expect(html).toContain('<canvas id="costs-0">');
    expect(html).toMatch(/<td>oltp_point_select @ 1<\/td><td>1\d\d\.\d \[\d+\.\d–\d+\.\d\]/);
    const chart = costChartData(costs)!;
    expect(chart.labels).toEqual(["oltp_point_select @ 1"]);
    // The compact table's figures, read like q/s: server CPU first, its interval above 100 (MariaDB costs less).
    expect(chart.datasets[0]!.label).toBe("server CPU per query");
    expect(chart.datasets[0]!.data[0]![0]).toBeGreaterThan(100);
    const bare = buildRunReport(run.manifest, run.cells);
    expect(renderHtml(buildHtmlData(run.manifest, run.cells, bare), "")).not.toContain("Cost per query");
    expect(costChartData(bare.costs)).toBeNull();
  });

  it("a run without cost readings: no section, an empty costs.csv, null in JSON", () => {
    const bare = buildRunReport(run.manifest, run.cells);
    expect(costLines(bare.costs)).toEqual([]);
    expect(renderCostCsv(bare.costs)).toBe(COST_CSV_HEADER.join(",") + "\n");
    expect((reportJson(bare) as { run: { costs: unknown } }).run.costs).toBeNull();
  });

  it("an adaptive run estimates like q/s (sequential): the interval is not the full-sample one", () => {
    const six = [1, 2, 3, 4, 5, 6];
    const rec = (server: string, repeat: number, cpuUs: number): CellRecord =>
      cellRecord({
        server,
        test: "oltp_point_select",
        repeat,
        metrics: sysbench({ qps: 1000, tps: 50 }),
        startedAt: `2026-12-02T10:00:${String(repeat * 2 + (server === "mysql" ? 1 : 0)).padStart(2, "0")}Z`,
        state: { perQuery: pq({ serverCpuUs: cpuUs }) },
      });
    const recs = six.flatMap((r) => [rec("mariadb", r, 40 + ((r * 7) % 5)), rec("mysql", r, 50 + ((r * 3) % 4))]);
    const fixed = buildRunReport(run.manifest, recs).costs!.cells[0]!.figures[0]!;
    const adaptive = {
      ...run.manifest,
      scenario: {
        ...run.manifest.scenario,
        workload: { ...run.manifest.scenario.workload, repeats: { precision: "5%", min: 4, max: 10 } },
      },
    } as unknown as RunManifest;
    const seq = buildRunReport(adaptive, recs).costs!.cells.find(
      (c) => c.test === "oltp_point_select" && c.threads === 1,
    )!.figures[0]!;
    // Huber's centre where the fixed count takes the mean: the same within a fraction of a percent here.
    expect(Math.abs(seq.estimate! - fixed.estimate!)).toBeLessThan(0.5);
    expect(seq.low).not.toBe(fixed.low);
  });
});

describe("compare explains a change with the costs that moved", () => {
  const a = load("compare-a");
  const b = load("compare-b");
  // mariadb oltp_point_select at 1 thread got 1.10× faster from A to B (the fixtures); its CPU per query rose 1.6×,
  // its redo bytes per query did not move.
  const base = { cpu: [40, 41, 39], redo: [400, 404, 396] };
  const next = { cpu: [64, 65.6, 62.4], redo: [402, 398, 401] };
  const attach = (cells: CellRecord[], v: typeof base) =>
    withCosts(cells, "oltp_point_select", 1, (s, r) =>
      s === "mariadb" ? { serverCpuUs: v.cpu[r - 1]!, logBytes: v.redo[r - 1]! } : null,
    );
  const cmp = compareRuns({ ...a, cells: attach(a.cells, base) }, { ...b, cells: attach(b.cells, next) });
  const maria = cmp.costs[0]!;
  const cell = maria.cells.find((c) => c.test === "oltp_point_select" && c.threads === 1)!;
  const fig = (k: string) => cell.figures.find((f) => f.figure === k)!;

  it("unpaired NEW / BASE intervals, as scipy's two-sample t on the logs", () => {
    // scipy 1.17.1: r = stats.ttest_ind(np.log(new), np.log(base)); ci = r.confidence_interval(0.95)
    //   cpu  → 160.000 [151.182, 169.332];  redo → 100.0858 [98.2932, 101.911]
    expect(maria).toMatchObject({ pairing: "unpaired", numerator: "mariadb", denominator: "mariadb" });
    const c = fig("serverCpuUs");
    expect(c).toMatchObject({ n: 3, df: 4, moved: "higher" });
    close(c.estimate, 160);
    close(c.low, 151.1823);
    close(c.high, 169.332);
    const r = fig("logBytes");
    expect(r.moved).toBe("none");
    close(r.estimate, 100.0858);
    close(r.low, 98.2932);
    close(r.high, 101.911);
    expect(cmp.costs[1]!.recorded).toBe(false);
  });

  it("the moved cell's line names the costs that rose and those that did not", () => {
    const lines = explanationLines(cmp.tables[0]!, maria);
    expect(lines[0]).toBe("Why mariadb's cells moved (cost per query, NEW / BASE, unpaired 95% intervals):");
    const line = lines.find((l) => l.startsWith("- mariadb oltp_point_select at 1 thread got faster"))!;
    expect(line).toContain("(q/s 1.10× [");
    expect(line).toContain("server CPU per query rose 1.60× [1.51–1.69]");
    expect(line).toContain("redo bytes per query did not move (1.00× [0.98–1.02])");
    expect(renderComparisonText(cmp)).toContain(line);
    expect(explanationLines(cmp.tables[1]!, cmp.costs[1])).toEqual([]);
    expect(JSON.stringify(comparisonJson(cmp))).toContain('"moved":"higher"');
  });
});
