/**
 * A run's latency percentiles and NOPM in the report model and every renderer: the two-server run, a ladder (one
 * family over every pair), a comparison of runs and the host comparison (`--metric p99|nopm`).
 */
import { describe, expect, it } from "vitest";
import { buildRunReport } from "../../../src/core/report/model.ts";
import { renderText } from "../../../src/core/report/text.ts";
import { renderMarkdown } from "../../../src/core/report/markdown.ts";
import { renderCsv, CSV_HEADER } from "../../../src/core/report/csv.ts";
import { reportJson } from "../../../src/core/report/json.ts";
import { renderHtml } from "../../../src/core/report/html.ts";
import { buildHtmlData } from "../../../src/core/report/html-data.ts";
import { LATENCY_CSV_HEADER } from "../../../src/core/report/latency.ts";
import { compareRuns } from "../../../src/core/stats/compare.ts";
import { comparisonJson, renderComparisonCsv, renderComparisonText } from "../../../src/core/report/compare.ts";
import { compareHosts } from "../../../src/core/report/hosts.ts";
import { benjaminiHochberg } from "../../../src/core/stats/fdr.ts";
import type { CellRecord, RunManifest } from "../../../src/core/model/results.ts";
import { load } from "../../support/results-fixture.ts";
import { latencyRecord } from "../../support/latency.ts";

const { manifest } = load("repeats");
const wobble = [1, 1.03, 0.98, 1.02];

/** mariadb at `factor` × mysql's latency in every cell, and a TPC-C-like NOPM on oltp_point_select. */
function cells(factor: number, servers: Record<string, number> = { mariadb: factor, mysql: 1 }): CellRecord[] {
  const out: CellRecord[] = [];
  for (const test of ["oltp_read_only", "oltp_point_select"])
    for (const threads of [1, 4, 8])
      for (let r = 1; r <= 4; r++)
        for (const [server, f] of Object.entries(servers)) {
          const w = f === 1 ? 1 : wobble[r - 1]!;
          const p: [number, number, number] = [threads * f * w, 2 * threads * f * w, (4 * threads * f) / w];
          const tpcc = test === "oltp_point_select" ? { nopm: Math.round(1000 / (f * w)) } : undefined;
          out.push(latencyRecord(server, r, p, { test, threads, ...(tpcc ? { tpcc } : {}) }));
        }
  return out;
}

describe("a two-server run", () => {
  const report = buildRunReport(manifest, cells(0.8));

  it("has three latency tables and NOPM for the TPC-C-like test only", () => {
    expect(report.latency!.tables.map((t) => t.percentile)).toEqual(["p50", "p95", "p99"]);
    expect(report.latency!.readings).toBe(18);
    expect(report.nopm).toHaveLength(1);
    expect(report.nopm[0]!.rows.map((r) => r.test)).toEqual(["oltp_point_select"]);
    expect(report.nopm[0]!.rows[0]!.cells.every((c) => c.direction === "faster")).toBe(true);
  });

  it("text: NOPM beside the q/s answer on the first screen; the latency section in the details only", () => {
    const short = renderText(report);
    expect(short).toContain("New-orders per minute of the TPC-C-like cells (NOPM, higher is better)");
    expect(short).not.toContain("Latency percentiles");
    const full = renderText(report, { details: true });
    expect(full).toContain("Latency percentiles (p50, p95, p99");
    expect(full).toContain("Benjamini–Hochberg over all 18 latency readings of this report");
    for (const l of full.split("\n")) expect(l.length).toBeLessThanOrEqual(120);
  });

  it("markdown, CSV, JSON and HTML carry them", () => {
    const md = renderMarkdown(report);
    expect(md).toContain("### Latency percentiles");
    expect(md).toContain("NOPM, higher is better");
    const csv = renderCsv(report).trim().split("\n");
    // the table's columns stay where they were; the latency and NOPM columns come after them
    expect(csv[0]).toBe([...CSV_HEADER, ...LATENCY_CSV_HEADER].join(","));
    expect(csv.slice(1).every((l) => l.split(",").length === CSV_HEADER.length + LATENCY_CSV_HEADER.length)).toBe(true);
    const j = reportJson(report) as { latency: { tables: unknown[] }; nopm: unknown[]; rows: unknown[] };
    expect(j.latency.tables).toHaveLength(3);
    expect(j.nopm).toHaveLength(1);
    const html = renderHtml(buildHtmlData(manifest, cells(0.8), report), "/* chart.js */");
    expect(html).toContain('<canvas id="latency-0"></canvas>');
    expect(html).toContain("<h3>Latency percentiles</h3>");
    expect(html).toContain("NOPM, higher is better");
  });

  it("without histograms the details say there are none", () => {
    const plain = cells(0.8).map((c) => ({ ...c, metrics: { ...c.metrics!, histogram: null } }));
    const r = buildRunReport(manifest, plain);
    expect(r.latency!.tables).toEqual([]);
    expect(renderText(r, { details: true })).toContain("No measured cell recorded sysbench's latency histogram");
  });
});

describe("a ladder", () => {
  const m: RunManifest = {
    ...manifest,
    scenario: {
      ...manifest.scenario,
      servers: [...manifest.scenario.servers, { ...manifest.scenario.servers[0]!, id: "mariadb-10" }],
      compare: { base: "mysql" },
    } as RunManifest["scenario"],
  };
  const report = buildRunReport(m, cells(0.8, { mariadb: 0.8, "mariadb-10": 1.1, mysql: 1 }));

  it("every pair's three percentiles, q over all of them together", () => {
    expect(report.ladder).not.toBeNull();
    const s = report.latency!;
    expect(s.tables.map((t) => `${t.table.numerator}/${t.table.denominator} ${t.percentile}`)).toEqual([
      "mariadb/mysql p50",
      "mariadb/mysql p95",
      "mariadb/mysql p99",
      "mariadb-10/mysql p50",
      "mariadb-10/mysql p95",
      "mariadb-10/mysql p99",
    ]);
    const all = s.tables.flatMap((t) => t.table.rows.flatMap((r) => r.cells));
    const qs = benjaminiHochberg(all.map((c) => c.p));
    all.forEach((c, i) => expect(c.q).toBeCloseTo(qs[i]!, 6));
    expect(report.nopm.map((t) => t.numerator)).toEqual(["mariadb", "mariadb-10"]);
    expect(renderText(report, { details: true })).toContain("mariadb-10 against mysql:");
  });
});

describe("compare of two runs", () => {
  const a = { manifest, cells: cells(1) };
  const b = { manifest: { ...manifest, runId: "b" }, cells: cells(0.8) };
  const cmp = compareRuns(a, b);

  it("NEW / BASE latency per server and NOPM, in text, CSV and JSON", () => {
    expect(cmp.latency!.tables.map((t) => `${t.table.numerator} ${t.percentile}`)).toEqual([
      "mariadb p50",
      "mariadb p95",
      "mariadb p99",
      "mysql p50",
      "mysql p95",
      "mysql p99",
    ]);
    const text = renderComparisonText(cmp).replace(/\s+/g, " ");
    expect(text).toContain("NEW mariadb's latency / BASE mariadb's");
    expect(text).toContain("leave out the level between runs");
    const csv = renderComparisonCsv(cmp).trim().split("\n");
    expect(csv[0]).toBe(["server", ...CSV_HEADER, ...LATENCY_CSV_HEADER].join(","));
    const j = comparisonJson(cmp) as { latency: { tables: unknown[] }; nopm: unknown[] };
    expect(j.latency.tables).toHaveLength(6);
    expect(j.nopm).toHaveLength(2);
  });
});

describe("the host comparison takes the new metrics", () => {
  const run = (id: string, cs: CellRecord[]) => ({ id, status: "ok" as const, manifest, cells: cs });
  it("p99 latency (inverted: above 100 = the first host faster) and NOPM (higher is better)", () => {
    const p99 = compareHosts([run("a", cells(0.8)), run("b", cells(1))], { metric: "p99" });
    const t = p99.tables.find((x) => x.server === "mariadb")!.table;
    expect(t).toMatchObject({ metric: "p99", inverted: true, percentile: 99 });
    expect(t.rows[0]!.cells[0]!.estimate!).toBeGreaterThan(115);
    const nopm = compareHosts([run("a", cells(0.8)), run("b", cells(1))], { metric: "nopm" });
    const n = nopm.tables.find((x) => x.server === "mariadb")!.table;
    expect(n).toMatchObject({ metric: "nopm", inverted: false });
    expect(n.rows.find((r) => r.test === "oltp_point_select")!.cells[0]!.direction).toBe("faster");
  });
});
