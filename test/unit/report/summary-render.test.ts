/** The execution summary in text, Markdown and HTML: seed 002's two kernels, and a hand-made summary for the edges. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseSysbenchFile } from "../../../src/core/model/sysbench/parse.ts";
import { buildParsedSummary, type ExecutionSummary } from "../../../src/core/report/summary.ts";
import {
  renderSummaryHtml,
  renderSummaryMarkdown,
  renderSummaryText,
} from "../../../src/core/report/summary-render.ts";

const seedText = readFileSync(join(import.meta.dirname, "../../fixtures/sysbench/legacy/seed-002.txt"), "utf8");
const [k26, k24] = parseSysbenchFile(seedText);
const s = buildParsedSummary([
  { label: "2.6", result: k26!, threads: 300 },
  { label: "2.4", result: k24!, threads: 300 },
]);

/** Two sides named with characters that need escaping, one block with a plain, an indented and a derived row. */
const made: ExecutionSummary = {
  sides: ["a<b", "c|d"],
  legend: ["A = run <1>"],
  percentile: 95,
  blocks: [
    {
      title: "oltp_read_only @ 4 threads",
      test: "oltp_read_only",
      threads: [4, 4],
      repeats: [3, 1],
      status: ["ok", "ok"],
      rows: [
        { label: "transactions", indent: 0, values: [100, 110], decimals: 0, ratio: 110 },
        { label: "per sec.", indent: 1, values: [10, null], decimals: 2, ratio: null },
        { label: "busy share", indent: 0, values: [99.5, 98], decimals: 1, ratio: 98.5, derived: true },
      ],
      notes: ["c|d: <uneven>"],
    },
  ],
};

describe("renderSummaryText", () => {
  it("renders the derived lines and the notes of seed 002", () => {
    const text = renderSummaryText(s);
    expect(text).toMatch(/effective concurrency \(event execution time \/ total time\)\s+271\.9\s+5\.7\s+2\.1/);
    expect(text).toMatch(/tps × avg latency \(Little's law cross-check\)\s+271\.9\s+5\.7/);
    expect(text).toContain("note: 2.4: effective concurrency 5.7 of 300 threads");
  });
  it("the intro names the sides and the ratio column; a missing value is --; repeats per side", () => {
    const text = renderSummaryText(made);
    expect(text.split("\n")[0]).toBe("Test execution summary, side by side: A = a<b, B = c|d, and B/A × 100.");
    expect(text).toContain("oltp_read_only @ 4 threads (median over repeats; a<b: 3 repeats, c|d: 1 repeat)");
    expect(text).toMatch(/ {4}per sec\.\s+10\.00\s+--\n/);
    expect(text).toMatch(/ {2}derived:\n {4}busy share\s+99\.5\s+98\.0\s+98\.5/);
  });
  it("no blocks: says so", () => {
    expect(renderSummaryText({ ...made, blocks: [] })).toContain("No measured cells.");
  });
});

describe("renderSummaryMarkdown", () => {
  it("one table per block, the derived lines marked", () => {
    expect(renderSummaryMarkdown(s)).toContain(
      "| *derived:* effective concurrency (event execution time / total time) | 271.9 | 5.7 | 2.1 |",
    );
  });
  it("escapes pipes, sets the heading level, and can leave out the title", () => {
    const md = renderSummaryMarkdown(made, { level: 3 });
    expect(md.split("\n")[0]).toBe("## Test execution summary");
    expect(md).toContain("### oltp_read_only @ 4 threads");
    expect(md).toContain("| figure | a<b | c\\|d | c\\|d/a<b×100 |");
    expect(md).toContain("- **note:** c\\|d: <uneven>");
    expect(renderSummaryMarkdown(made, { title: false })).not.toContain("Test execution summary\n");
  });
});

describe("renderSummaryHtml", () => {
  it("escapes every text, marks derived rows, and keeps the figures in number cells", () => {
    const html = renderSummaryHtml(made);
    expect(html).toContain("<th>a&lt;b</th><th>c|d</th><th>c|d/a&lt;b×100</th>");
    expect(html).toContain("<p>A = run &lt;1&gt;</p>");
    expect(html).toContain(
      '<tr class="derived"><td><em>derived:</em> busy share</td><td class="num">99.5</td><td class="num">98.0</td><td class="num">98.5</td></tr>',
    );
    expect(html).toContain("<td>&nbsp;&nbsp;per sec.</td>");
    expect(html).toContain("<li><strong>note:</strong> c|d: &lt;uneven&gt;</li>");
    expect(html).not.toContain("<uneven>");
  });
  it("no blocks: says so", () => {
    expect(renderSummaryHtml({ ...made, blocks: [] })).toContain("<p>No measured cells.</p>");
  });
});
