/** The text report on the repeats fixture against its golden, and the execution summary. */
import { describe, expect, it } from "vitest";
import { buildRunReport } from "../../../src/core/report/model.ts";
import { buildRatioTable } from "../../../src/core/stats/ratio.ts";
import { renderText } from "../../../src/core/report/text.ts";
import { renderMarkdown } from "../../../src/core/report/markdown.ts";
import { buildSummary } from "../../../src/core/report/summary.ts";
import { renderSummaryText } from "../../../src/core/report/summary-render.ts";
import { golden, load } from "../../support/results-fixture.ts";

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
