/**
 * Markdown renderer: report.md. One table with the estimate (exp mean log ratio), its interval and the verdict per
 * cell, then the facts. The seed tables' median / median figure is in the text report and comparison.csv.
 */
import { replicationLines } from "./history.ts";
import { costLines } from "./costs.ts";
import type { RunReport } from "./model.ts";
import { type RatioTable } from "../stats/ratio-model.ts";
import { metricLabel } from "../stats/metric.ts";
import { ladderTitle, markdownLadder, markdownLadderMedians } from "./ladder-render.ts";
import {
  TABLE_TEXT,
  VERDICT_HEAD,
  cellNotes,
  configIdentityLine,
  legend,
  partialLine,
  runLine,
  uncertainCell,
  verdictLegend,
  verdictRows,
} from "./text.ts";
import { escapeMarkdownCell as escCell } from "./escape.ts";

export function markdownRatioTable(t: RatioTable): string[] {
  const lines = [
    `| sysbench test | ${t.threads.map((n) => `${n}`).join(" | ")} |`,
    `|:--|${t.threads.map(() => "--:").join("|")}|`,
    ...t.rows.map((r) => `| ${escCell(r.test)} | ${r.cells.map((c) => escCell(uncertainCell(c))).join(" | ")} |`),
    "",
    `Number of threads across, ${legend(t)}.`,
    `Each cell: exp(mean ln ratio) * 100 [${Math.round(t.confidence * 100)}% interval] and verdict mark.`,
    "",
    ...verdictLegend(t).map((l) => `- ${l}`),
  ];
  const vr = verdictRows(t);
  if (vr.length) {
    lines.push(
      "",
      `Verdicts (BH q: Benjamini–Hochberg over the table's ${t.method.intervals} cell${t.method.intervals === 1 ? "" : "s"} with an interval):`,
      "",
      `| ${VERDICT_HEAD.join(" | ")} |`,
      `|${VERDICT_HEAD.map((_, i) => (i === 1 || i === 2 || (i >= 6 && i <= 7) || i === 10 ? "--:" : ":--")).join("|")}|`,
      ...vr.map((r) => `| ${r.map(escCell).join(" | ")} |`),
    );
  }
  const notes = cellNotes(t);
  if (notes.length) lines.push("", ...notes.map((n) => `- note: ${n}`));
  return lines;
}

/** The report as Markdown (report.md). */
export function renderMarkdown(report: RunReport): string {
  const t = report.table;
  const names = t ? `${t.numeratorLabel}/${t.denominatorLabel}` : report.servers.map((s) => s.family).join("/");
  const l = report.ladder;
  const lines: string[] = [
    l ? `# ${ladderTitle(l)}: ${report.scenarioName}` : `# ${names} sysbench comparison: ${report.scenarioName}`,
    "",
  ];
  if (l)
    lines.push(
      `Metric: ${metricLabel(l.metric, l.percentile)}${l.inverted ? " (inverted: above 100 means the server is faster than the base)" : ""}. ${report.durationText}`.trimEnd(),
      "",
    );
  else if (t)
    lines.push(
      `Metric: ${metricLabel(t.metric, t.percentile)}${t.inverted ? " (inverted: above 100 means the numerator is faster)" : ""}. ${report.durationText}`.trimEnd(),
      "",
    );
  const partial = partialLine(report);
  if (partial) lines.push(`> **${partial}**`, "");
  if (l)
    lines.push(
      ...markdownLadder(l, TABLE_TEXT),
      "",
      "### Median / median",
      "",
      ...markdownLadderMedians(l, TABLE_TEXT),
      "",
    );
  else if (t) lines.push(...markdownRatioTable(t), "");
  const second = replicationLines(report);
  if (second.length) lines.push("```", ...second, "```", "");
  const costs = costLines(report.costs);
  if (costs.length)
    lines.push("## Cost per query", "", costs[0]!, "", ...costs.slice(1, -1), "", costs[costs.length - 1]!, "");
  for (const n of report.notes) lines.push(n, "");
  lines.push("## Servers", "", "| id | server | version | image | storage |", "|:--|:--|:--|:--|:--|");
  for (const s of report.servers) {
    lines.push(
      `| ${escCell(s.id)} | ${s.family} | ${escCell(s.version ?? "?")} | ${escCell(s.image)} | ${escCell(s.storage)} |`,
    );
  }
  lines.push("", configIdentityLine(report));
  if (report.configIdentity.differing.length) {
    const ids = report.servers.map((s) => s.id);
    lines.push("", `| variable | ${ids.join(" | ")} | deliberate |`, `|:--|${ids.map(() => ":--").join("|")}|:--|`);
    for (const r of report.configIdentity.differing) {
      lines.push(
        `| ${escCell(r.variable)} | ${ids.map((id) => escCell(r.values[id] ?? "(unset)")).join(" | ")} | ${r.deliberate ? "yes" : "no"} |`,
      );
    }
  }
  lines.push("", runLine(report), "");
  return lines.join("\n");
}
