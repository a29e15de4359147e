/** The text report on the repeats fixture against its golden, and the execution summary. */
import { describe, expect, it } from "vitest";
import { buildRunReport } from "../../../src/core/report/model.ts";
import { buildRatioTable } from "../../../src/core/stats/ratio.ts";
import { partialLine, renderText } from "../../../src/core/report/text.ts";
import { DETAILS_HINT, DETAILS_RULE } from "../../../src/core/report/first-screen.ts";
import { renderMarkdown } from "../../../src/core/report/markdown.ts";
import { buildSummary } from "../../../src/core/report/summary.ts";
import { renderSummaryText } from "../../../src/core/report/summary-render.ts";
import { golden, load } from "../../support/results-fixture.ts";

describe("renderers (golden)", () => {
  const { manifest, cells } = load("repeats");
  const report = buildRunReport(manifest, cells);

  it("text, with the details (golden)", () =>
    expect(renderText(report, { details: true })).toBe(golden("repeats.txt")));
  it("text without details: the first screen, then the hint where the details are", () => {
    const full = renderText(report, { details: true });
    const short = renderText(report);
    expect(full.startsWith(short.slice(0, short.indexOf("More (method")))).toBe(true);
    expect(short.trimEnd().split("\n").at(-1)).toBe(DETAILS_HINT);
    expect(short).not.toContain("Config identity");
    expect(full).toContain(DETAILS_RULE);
  });
  it("text: the seed's first table (median / median) and its legend as the seeds print them (a failed cell says so, a missing one is ·)", () => {
    const lines = renderText(report).split("\n");
    expect(lines.slice(4, 10)).toEqual([
      "                    Number of threads",
      "                      1       4       8",
      " sysbench test",
      "  oltp_read_only     110.00  102.00  100.00",
      "  oltp_point_select   90.00  failed       ·",
      "(MariaDB q/s / MySQL q/s * 100)",
    ]);
  });
  it("text: the details tell what chance alone gives and what the intervals leave out, in plain words", () => {
    const text = renderText(report, { details: true });
    expect(text).toContain("Over 4 cells at 95%, chance alone would call about 0.2 of them faster or slower");
    expect(text).toContain("not the difference a server restart can make");
    for (const jargon of ["prior df", "moderated toward", "stop half"]) expect(text).not.toContain(jargon);
  });
  it("unstable cells: a stalled per-second series is flagged with its reason in the details", () => {
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
    const text = renderText(buildRunReport(manifest, m), { details: true });
    expect(text).toMatch(/oltp_point_select +1 +90\.0 +87\.5–92\.5 +slower/);
    expect(text).toContain(
      "note: oltp_point_select @ 1 threads: unstable: mysql repeat 2 stalled: 1 second with no throughput",
    );
  });
  it("text shows failed and missing cells as such, never as numbers", () => {
    const row = renderText(report)
      .split("\n")
      .filter((l) => l.startsWith("  oltp_point_select"));
    expect(row[0]).toMatch(/90\.00\s+failed\s+·$/);
    expect(row[1]).toMatch(/oltp_point_select +1 +90\.0 +87\.5–92\.5 +slower$/);
    expect(row[2]).toMatch(/oltp_point_select +4 +failed$/);
    expect(row[3]).toMatch(/oltp_point_select +8 +not measured$/);
  });
  it("says the run is partial", () => {
    expect(renderText(report)).toContain("PARTIAL RUN (status partial): 29 of 36 cells recorded");
    expect(renderMarkdown(report)).toContain("PARTIAL RUN");
    expect(renderText(report)).toContain("missing cells show as ·.");
  });
  it("a partial run with an estimate in every cell says so, not where missing cells would show", () => {
    const full = {
      ...report,
      table: {
        ...report.table!,
        rows: report.table!.rows.map((r) => ({ ...r, cells: r.cells.filter((c) => c.estimate !== null) })),
      },
    };
    expect(partialLine(full)).toBe(
      "PARTIAL RUN (status partial): 29 of 36 cells recorded; every cell of the table has an estimate.",
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
    expect(renderText(buildRunReport(m, cells), { details: true })).toContain(
      "Config identity: DIFFERS in innodb_doublewrite",
    );
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
