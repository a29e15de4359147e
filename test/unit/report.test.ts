import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseCellsJsonl } from "../../src/adapters/report-files.ts";
import { InputError } from "../../src/core/base/errors.ts";
import type { CellRecord, RunManifest } from "../../src/core/model/results.ts";
import { buildRunReport } from "../../src/core/report/model.ts";
import { buildRatioTable, parseMetric, ratioTableJson } from "../../src/core/stats/ratio.ts";
import { renderText, seedTable, plainCell } from "../../src/core/report/text.ts";
import { renderMarkdown } from "../../src/core/report/markdown.ts";
import { renderCsv } from "../../src/core/report/csv.ts";
import { reportJson } from "../../src/core/report/json.ts";
import { buildSummary, renderSummaryText } from "../../src/core/report/summary.ts";

const FIX = join(import.meta.dirname, "../fixtures/results");

function load(name: string): { manifest: RunManifest; cells: CellRecord[] } {
  const manifest = JSON.parse(readFileSync(join(FIX, name, "run.json"), "utf8")) as RunManifest;
  const { cells } = parseCellsJsonl(readFileSync(join(FIX, name, "cells.jsonl"), "utf8"));
  return { manifest, cells };
}
const golden = (f: string) => readFileSync(join(FIX, "golden", f), "utf8");

describe("seed 000 reproduced from cells built from its numbers", () => {
  it("the text renderer prints the seed's table byte for byte", () => {
    const { manifest, cells } = load("seed-000");
    const text = renderText(buildRunReport(manifest, cells));
    const seed = readFileSync(join(FIX, "seed-000", "seed-000-table.txt"), "utf8").split("\n");
    // seed lines 3..13: "Number of threads" header, thread counts, " sysbench test", the 8 rows
    const seedTableLines = seed.slice(2, 13);
    const lines = text.split("\n");
    const start = lines.indexOf(seedTableLines[0]);
    expect(start).toBeGreaterThan(0);
    expect(lines.slice(start, start + 11)).toEqual(seedTableLines);
    // then the legend, as in the seed
    expect(lines[start + 12]).toBe("(MariaDB q/s / MySQL q/s * 100)");
    expect(seed[14]).toBe("(MariaDB q/s / MySQL q/s * 100)");
    expect(lines[0]).toBe("MariaDB/MySQL sysbench benchmark comparison in % Each test was run for 5 minutes.");
  });

  it("has one row per legacy test and columns 1..128; one repeat -> no verdict", () => {
    const { manifest, cells } = load("seed-000");
    const t = buildRatioTable(manifest, cells)!;
    expect(t.threads).toEqual([1, 4, 8, 16, 32, 64, 128]);
    expect(t.rows.map((r) => r.test)).toEqual([
      "delete",
      "insert",
      "oltp_complex_ro",
      "oltp_complex_rw",
      "oltp_simple",
      "select",
      "update_index",
      "update_non_index",
    ]);
    expect(t.rows[2].cells[0]).toMatchObject({
      threads: 1,
      ratio: 104.21,
      low: null,
      high: null,
      verdict: "unknown",
      n: 1,
    });
    expect(seedTable(t, plainCell)[3]).toBe(
      "  delete            103.72  101.84  106.56  102.80   94.19   86.23   65.13",
    );
  });
});

describe("ratio table on synthetic repeats", () => {
  const { manifest, cells } = load("repeats");

  it("has exactly the JSON shape of the issue (plus extra fields)", () => {
    const j = ratioTableJson(buildRatioTable(manifest, cells)!) as any;
    expect(Object.keys(j).slice(0, 5)).toEqual(["metric", "numerator", "denominator", "threads", "rows"]);
    expect(j).toMatchObject({ metric: "qps", numerator: "mariadb", denominator: "mysql", threads: [1, 4, 8] });
    expect(j.rows[0].test).toBe("oltp_read_only");
    for (const k of ["threads", "estimate", "ratio", "low", "high", "verdict", "n"])
      expect(j.rows[0].cells[0]).toHaveProperty(k);
    // estimate = exp(mean ln(1.1, 1.2, 1.0)) = 109.696, the centre of the interval; ratio = median / median = 110.
    // Reference from scipy 1.17.1, the robust() snippet of test/unit/estimate.test.ts on the fixture's pair ratios
    // (qps mariadb / mysql per repeat): the cell is noisier than the table's prior, so it keeps its own variance and
    // 2 df: the plain paired t interval.
    //   robust([[1.1, 1.2, 1.0], [1020/1000, 1030/1010, 1010/990], [1.0, 1.5, 0.8], [0.9, 0.91, 0.89]])
    //   -> d0 0.32022423365414454; cell 1: 109.69613104865236 [87.45986371595586, 137.58586688545014], df 2
    const c = j.rows[0].cells[0];
    expect(c).toMatchObject({
      threads: 1,
      ratio: 110,
      verdict: "inconclusive",
      direction: "none",
      equivalence: "undetermined",
      fdr: null,
      n: 3,
      df: 2,
    });
    // The JSON rounds to 4 decimals: compare within half a unit of the last printed digit.
    expect(Math.abs(c.estimate - 109.69613104865236)).toBeLessThanOrEqual(0.00005);
    expect(Math.abs(c.low - 87.45986371595586)).toBeLessThanOrEqual(0.00005);
    expect(Math.abs(c.high - 137.58586688545014)).toBeLessThanOrEqual(0.00005);
    expect(j.method).toMatchObject({ intervals: 4, verdicts: 2, verdictsAtFdr: 2, instanceCells: 0, unit: "repeats" });
    expect(j.method.expectedFalse).toBeCloseTo(0.2, 12);
  });

  it.each([
    // test, threads, status, verdict, ratio, n
    ["oltp_read_only", 1, "ok", "inconclusive", 110, 3],
    ["oltp_read_only", 4, "ok", "faster-within", 102, 3], // [101.8, 102.2]: faster, and within ±5%
    // pair ratios 100, 150, 80: a side's CV of 33% no longer withholds the verdict; the interval does
    ["oltp_read_only", 8, "ok", "inconclusive", 100, 3],
    ["oltp_point_select", 1, "ok", "slower-beyond", 90, 3], // [88.0, 92.1]: slower by more than 5%
    ["oltp_point_select", 4, "failed", "unknown", null, 0],
    ["oltp_point_select", 8, "missing", "unknown", null, 0],
  ] as const)("%s @ %i: %s %s", (test, threads, status, verdict, ratio, n) => {
    const t = buildRatioTable(manifest, cells)!;
    const c = t.rows.find((r) => r.test === test)!.cells.find((x) => x.threads === threads)!;
    expect(c).toMatchObject({ status, verdict, ratio, n });
    if (status !== "ok") expect([c.low, c.high]).toEqual([null, null]);
  });

  it("warm-up records never count (their q/s would change the medians)", () => {
    // warm-up: mariadb 1000, mysql 900 q/s. Removing the measure records leaves the cell missing, not 111.11.
    const onlyWarmup = cells.filter((c) => c.phase === "warmup");
    const t = buildRatioTable(manifest, onlyWarmup)!;
    expect(t.rows[0].cells[0]).toMatchObject({ status: "missing", ratio: null });
  });

  it("latency metrics are inverted: above 100 still means the numerator is better", () => {
    // fixture: p95 = 1.5 * 1000 * threads / tps, tps = qps / 20 -> p95 ∝ 1/qps, so the inverted ratio equals the qps ratio
    const t = buildRatioTable(manifest, cells, { metric: "p95" })!;
    expect(t.inverted).toBe(true);
    expect(t.rows[0].cells[1].ratio!).toBeCloseTo(102, 0);
    // p95 is rounded to sysbench's histogram buckets: the quantisation floor widens [101.8, 102.2] to [99.8, 104.2]
    // Reference, scipy 1.17.1: estimate.test.ts's limma() on ln(mysql p95 / mariadb p95) per repeat, each cell's
    // s² floored at floor² with floor = np.log(1e8) / 1024 / np.sqrt(6) (a rounding a side):
    //   cells [30/27.27, 30/25, 30/30], [120/117.65, 118.81/116.5, 121.21/118.81], [240/240, 240/160, 240/300],
    //   [30/33.33, 30/32.97, 30/33.71] -> d0 0.6353267156872321; cell 2: [99.82010046679535, 104.2277168072314]
    const p95 = t.rows[0].cells[1];
    expect(p95.verdict).toBe("equivalent");
    expect(Math.abs(p95.low! - 99.82010046679535)).toBeLessThanOrEqual(0.00005); // rounded to 4 decimals
    expect(Math.abs(p95.high! - 104.2277168072314)).toBeLessThanOrEqual(0.00005);
    expect(t.rows[1].cells[0].verdict).toBe("slower-beyond");
    const text = renderText(buildRunReport(manifest, cells, { metric: "p95" }));
    expect(text).toContain(
      "(MySQL p95 latency / MariaDB p95 latency * 100: latency is inverted, above 100 means MariaDB is faster)",
    );
    expect(text.split("\n")[0]).toContain("(p95 latency, inverted)");
  });

  it("the scenario's compare key picks numerator and denominator", () => {
    const m = {
      ...manifest,
      scenario: { ...manifest.scenario, compare: { numerator: "mysql", denominator: "mariadb" } },
    };
    const t = buildRatioTable(m, cells)!;
    expect([t.numerator, t.denominator, t.numeratorLabel]).toEqual(["mysql", "mariadb", "MySQL"]);
    expect(t.rows[0].cells[0].ratio!).toBeCloseTo((1000 / 1100) * 100, 3);
  });

  it("an unknown server or metric is an InputError naming the value", () => {
    expect(() => buildRatioTable(manifest, cells, { numerator: "percona" })).toThrow(/unknown server "percona"/);
    expect(() => parseMetric("iops")).toThrow(InputError);
  });

  it("a single-server run has no table but still reports", () => {
    const m = {
      ...manifest,
      scenario: { ...manifest.scenario, servers: manifest.scenario.servers.slice(0, 1) },
      servers: manifest.servers.slice(0, 1),
    };
    const r = buildRunReport(m, cells);
    expect(r.table).toBeNull();
    expect(renderText(r)).toContain("Only one server");
    expect((reportJson(r) as any).rows).toEqual([]);
  });
});

describe("renderers (golden)", () => {
  const { manifest, cells } = load("repeats");
  const report = buildRunReport(manifest, cells);

  it("text", () => expect(renderText(report)).toBe(golden("repeats.txt")));
  it("text: the seed's first table (median / median) and its legend are unchanged (a missing cell is the vocabulary's ·)", () => {
    const lines = renderText(report).split("\n");
    expect(lines.slice(4, 12)).toEqual([
      "                    Number of threads",
      "                      1       4       8",
      " sysbench test",
      "  oltp_read_only     110.00  102.00  100.00",
      "  oltp_point_select   90.00    fail       ·",
      "",
      "(MariaDB q/s / MySQL q/s * 100)",
      "Above: median / median over repeats, as in the seed tables. Below: the geometric mean of the ratios of paired repeats, exp(mean ln ratio) * 100, with its 95% interval.",
    ]);
  });
  it("text: the reader is told what chance alone gives and what the intervals leave out", () => {
    const text = renderText(report);
    expect(text).toContain("4 cells at 95%: about 0.2 false faster/slower verdicts expected by chance alone");
    expect(text).toContain("not the level between server restarts");
  });
  it("unstable cells: a stalled per-second series is flagged with its reason and a ! mark", () => {
    const m = structuredClone(cells);
    const rec = m.find(
      (c) =>
        c.server === "mysql" &&
        c.test === "oltp_point_select" &&
        c.threads === 1 &&
        c.repeat === 2 &&
        c.phase !== "warmup",
    )!;
    rec.metrics!.intervals = [{ ...(rec.metrics!.intervals?.[0] ?? ({} as never)), t: 1, qps: 0, tps: 0 }];
    const t = buildRatioTable(manifest, m)!;
    expect(t.rows[1].cells[0].unstable).toEqual(["mysql repeat 2 stalled: 1 second with no throughput"]);
    const text = renderText(buildRunReport(manifest, m));
    expect(text).toMatch(/90\.0 \[87\.5–92\.5\] --!/);
    expect(text).toContain(
      "note: oltp_point_select @ 1 threads: unstable: mysql repeat 2 stalled: 1 second with no throughput",
    );
  });
  it("markdown", () => expect(renderMarkdown(report)).toBe(golden("repeats.md")));
  it("text shows failed and missing cells as such, never as numbers", () => {
    const row = renderText(report)
      .split("\n")
      .filter((l) => l.startsWith("  oltp_point_select"));
    expect(row[0]).toMatch(/90\.00\s+fail\s+·$/);
    expect(row[1]).toMatch(/90\.0 \[87\.5–92\.5\] --\s+fail\s+·$/);
  });
  it("says the run is partial", () => {
    expect(renderText(report)).toContain("PARTIAL RUN (status partial): 29 of 36 cells recorded");
    expect(renderMarkdown(report)).toContain("PARTIAL RUN");
  });
  it("csv: one line per cell, empty fields for failed/missing", () => {
    const lines = renderCsv(report).trim().split("\n");
    expect(lines[0]).toBe(
      "test,threads,metric,numerator,denominator,status,estimate,low,high,verdict,n,ratio,cv_numerator_pct,cv_denominator_pct,numerator_median,denominator_median,failed_repeats,instances,df,p,q,unstable,direction,equivalence,fdr",
    );
    expect(lines).toHaveLength(1 + 6);
    expect(lines[1]).toBe(
      "oltp_read_only,1,qps,mariadb,mysql,ok,109.6961,87.4599,137.5859,inconclusive,3,110,9.091,0,1100,1000,0,1,2,0.220872,0.294495,,none,undetermined,",
    );
    expect(lines[2]).toMatch(/^oltp_read_only,4,.*,faster-within,.*,faster,within,holds$/);
    expect(lines[5]).toBe(
      "oltp_point_select,4,qps,mariadb,mysql,failed,,,,unknown,0,,,,2000,,3,1,,,,,unknown,unknown,",
    );
  });
  it("config identity verdict: a non-deliberate difference is flagged", () => {
    const m = structuredClone(manifest);
    m.mustMatch!.push({
      variable: "innodb_doublewrite",
      values: { mariadb: "ON", mysql: "OFF" },
      equal: false,
      deliberate: false,
    });
    expect(renderText(buildRunReport(m, cells))).toContain("Config identity: DIFFERS in innodb_doublewrite");
  });
});

describe("execution summary", () => {
  const { manifest, cells } = load("repeats");
  it("medians per server side by side: A = the denominator, B = the numerator, and B/A", () => {
    const s = buildSummary(manifest, cells);
    expect(s.sides).toEqual(["mysql", "mariadb"]);
    const b = s.blocks.find((x) => x.test === "oltp_read_only" && x.threads[0] === 1)!;
    const tps = b.rows[1];
    expect(tps.label).toBe("per sec.");
    expect(tps.values).toEqual([50, 55]); // median q/s 1000 and 1100, tps = q/s / 20
    expect(tps.ratio).toBeCloseTo(110, 8);
    const conc = b.rows.find((r) => r.label.startsWith("effective concurrency"))!;
    expect(conc.derived).toBe(true);
    expect(conc.values[0]).toBeCloseTo(10 / 10.0012, 4); // 10 s of event execution in 10.0012 s: one busy thread
    const failed = s.blocks.find((x) => x.test === "oltp_point_select" && x.threads[0] === 4)!;
    expect(failed.status).toEqual(["failed", "ok"]);
  });
  it("renders (golden)", () =>
    expect(renderSummaryText(buildSummary(manifest, cells))).toBe(golden("repeats-summary.txt")));
});

describe("html renderer (pure)", () => {
  it("inlines the chart library, escapes names, loads nothing from the network", async () => {
    const { buildHtmlData, renderHtml } = await import("../../src/core/report/html.ts");
    const { manifest, cells } = load("repeats");
    const m = structuredClone(manifest);
    m.scenario.name = "<img src=x onerror=alert(1)>";
    const html = renderHtml(
      buildHtmlData(m, cells, buildRunReport(m, cells)),
      "/* fake chart.js </script> */ window.Chart=function(){};",
    );
    expect(html).toContain("&lt;img src=x onerror=alert(1)&gt;");
    expect(html).not.toContain("<img src=x");
    expect(html).toContain("/* fake chart.js <\\/script> */");
    expect(html).not.toMatch(/<script[^>]+src=|<link /);
    expect(html).toContain('<table class="ratio">');
  });
  it("shows both readings per cell and the per-cell Benjamini–Hochberg reading", async () => {
    const { buildHtmlData, renderHtml } = await import("../../src/core/report/html.ts");
    const { manifest, cells } = load("repeats");
    const html = renderHtml(buildHtmlData(manifest, cells, buildRunReport(manifest, cells)), "");
    // read_only @ 4: [101.8–102.2], faster and within ±5%
    expect(html).toMatch(
      /class="cell verdict-faster-within direction-faster equivalence-within" data-verdict="faster-within"/,
    );
    expect(html).toContain('title="faster (p 0.00018, BH q 0.00071: holds at 5% FDR); within ±5%; n=3;');
    expect(html).toContain('<table class="verdicts">');
    expect(html).toContain(
      "<td>oltp_point_select</td><td>1</td><td>90.0</td><td>[87.5–92.5]</td><td>--</td><td>slower</td><td>0.0037</td><td>0.0074</td><td>holds</td><td>not within ±5%</td><td>3</td>",
    );
  });
});
