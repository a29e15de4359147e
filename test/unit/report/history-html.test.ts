/** The history page: the summary table, then one static chart per cell, with no script. */
import { describe, expect, it } from "vitest";
import { cellChartSvg, renderHistoryHtml } from "../../../src/core/report/history-html.ts";
import { historyEntry } from "../../../src/core/stats/history.ts";
import { historyView } from "../../../src/core/stats/history-view.ts";
import { buildRunReport } from "../../../src/core/report/model.ts";
import { load } from "../../support/results-fixture.ts";

const { manifest, cells } = load("repeats");
const table = buildRunReport(manifest, cells).table!;
const entry = (runId: string, day: number, d: number) => {
  const e = historyEntry(manifest, table, { hostKey: "h1", cpuModel: "AMD EPYC" })!;
  return { ...e, runId, startedAt: `2025-01-0${day}T10:00:00.000Z`, cells: e.cells.map((c) => ({ ...c, y: c.y + d })) };
};

describe("history as HTML", () => {
  const v = historyView({
    entries: [entry("r1", 1, 0), entry("r2", 2, 0.01), entry("r3", 3, -0.01), entry("r4", 4, 0.6)],
    skipped: [],
  });

  it("one chart per cell, a policy that allows no script, and no script", () => {
    const html = renderHistoryHtml(v);
    expect(html.match(/<svg /g)).toHaveLength(v.cells.length);
    expect(html).toContain(`content="default-src 'none'; style-src 'unsafe-inline'"`);
    expect(html).not.toMatch(/<script/i);
    // The summary table is there; each cell's run list is drawn, not printed.
    expect(html).toContain("next run lands in (95%)");
    expect(html).not.toContain(`${v.cells[0].name}:\n  2025-01-01`);
  });

  it("a run named outside the interval the others give it is drawn red, the others not", () => {
    const c = v.cells[0];
    const svg = cellChartSvg(c, new Set(["r4"]));
    expect(svg.match(/class="out"/g)).toHaveLength(1);
    expect(svg.match(/class="dot"/g)).toHaveLength(3);
    expect(svg).toContain("<title>r4 ");
  });

  it("escapes what it prints", () => {
    const c = { ...v.cells[0], name: "<b>x</b>", runs: v.cells[0].runs.map((r) => ({ ...r, runId: "<i>" })) };
    const svg = cellChartSvg(c);
    expect(svg).not.toContain("<i>");
    expect(svg).toContain("&lt;i&gt;");
  });
});
