/** The ladder in report.html: its chart (inline SVG, one point per server and cell) and its tables. */
import { describe, expect, it } from "vitest";
import { buildRunReport } from "../../../src/core/report/model.ts";
import { ladderChartSvg, ladderHtml } from "../../../src/core/report/ladder-html.ts";
import { TABLE_TEXT } from "../../../src/core/report/text.ts";
import { renderHtml } from "../../../src/core/report/html.ts";
import { buildHtmlData } from "../../../src/core/report/html-data.ts";
import { PAIRS, ladderRun } from "../../support/ladder-fixture.ts";

const { manifest, cells } = ladderRun("ladder");
const report = buildRunReport(manifest, cells, { pairs: PAIRS });
const ladder = report.ladder!;

describe("ladderChartSvg", () => {
  it("one point per server and cell with an estimate, each with its server and verdict", () => {
    const svg = ladderChartSvg(ladder, TABLE_TEXT);
    const withEstimate = ladder.blocks
      .flatMap((b) => b.rows.flatMap((r) => r.cells))
      .filter((c) => c.estimate !== null).length;
    expect(svg.match(/<circle cx="[\d.]+" cy="[\d.]+" r="3.5"/g)?.length).toBe(withEstimate);
    expect(svg).toContain('data-server="mariadb-10" data-verdict="slower');
    expect(svg.startsWith('<svg class="ladder-chart"')).toBe(true);
    expect(svg.endsWith("</svg>")).toBe(true);
  });

  it("a row per test × threads, labelled; the axis always shows 100", () => {
    const svg = ladderChartSvg(ladder, TABLE_TEXT);
    for (const test of ladder.tests) for (const th of ladder.threads) expect(svg).toContain(`>${test} @ ${th}</text>`);
    expect(svg).toMatch(/text-anchor="middle">100<\/text>/);
  });
});

describe("ladderHtml", () => {
  it("the table with a column block per server, the chart, the verdicts and the medians", () => {
    const html = ladderHtml(ladder, TABLE_TEXT).join("\n");
    expect(html).toContain("<h2>Ladder table</h2>");
    expect(html).toContain('<table class="ratio ladder">');
    expect(html).toContain('<table class="ratio medians">');
    expect(html).toContain(ladderChartSvg(ladder, TABLE_TEXT));
    expect(html).toMatch(/<th>mariadb-10 \/ mysql[^<]*<\/th>/);
  });

  it("a failed cell shows its state, not a figure", () => {
    const html = ladderHtml(ladder, TABLE_TEXT).join("\n");
    expect(html).toMatch(/<span class="cell status-failed" data-verdict="failed">/);
  });

  it("report.html holds the ladder in place of the ratio table", () => {
    const html = renderHtml(buildHtmlData(manifest, cells, report), "/* chart.js */");
    expect(html).toContain("<h2>Ladder table</h2>");
    expect(html).not.toContain("<h2>Ratio table</h2>");
    expect(html).toContain(ladderChartSvg(ladder, TABLE_TEXT));
  });
});
