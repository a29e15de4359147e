/**
 * Markdown renderer: report.md. The first screen (first-screen.ts) as Markdown: the title, the seeds' table, the
 * answer table with each cell's verdict word, the sentences and the legend; then, after a rule, the details.
 */
import { costPointText, costSummary, costSummaryHead } from "./cost-summary.ts";
import { firstScreen, secondRunDetails } from "./first-screen.ts";
import { wrap } from "./answer.ts";
import type { RunReport } from "./model.ts";
import { type RatioTable } from "../stats/ratio-model.ts";
import { markdownLadder, markdownLadderMedians } from "./ladder-render.ts";
import {
  TABLE_TEXT,
  VERDICT_HEAD,
  cellNotes,
  configIdentityLine,
  legend,
  methodLines,
  partialLine,
  plainCell,
  runLine,
  uncertainCell,
  verdictLegend,
  verdictRows,
} from "./text.ts";
import { escapeMarkdownCell as escCell } from "./escape.ts";
import { latencyMarkdown, nopmMarkdown } from "./latency.ts";

/** A paragraph wrapped at 120 characters (Markdown joins the lines again). */
const para = (x: string) => wrap(x, undefined, "");

export function markdownRatioTable(t: RatioTable): string[] {
  const lines = [
    `| sysbench test | ${t.threads.map((n) => `${n}`).join(" | ")} |`,
    `|:--|${t.threads.map(() => "--:").join("|")}|`,
    ...t.rows.map((r) => `| ${escCell(r.test)} | ${r.cells.map((c) => escCell(uncertainCell(c))).join(" | ")} |`),
    "",
    `Number of threads across, ${legend(t)}.`,
    `Each cell: exp(mean ln ratio) * 100 [${Math.round(t.confidence * 100)}% interval] and verdict.`,
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

/** The first screen as Markdown: title, seeds' table, answer table, sentences, legend. */
function firstScreenMarkdown(report: RunReport): string[] {
  const t = report.table;
  const s = firstScreen(report, partialLine(report));
  const lines: string[] = [`# ${s.title}`, ""];
  if (s.partial) lines.push(...wrap(`> **${s.partial}**`, undefined, "> "), "");
  const nopm = nopmMarkdown(report.nopm, escCell);
  if (report.ladder)
    return [
      ...lines,
      ...markdownLadder(report.ladder, TABLE_TEXT),
      "",
      "### Median / median",
      "",
      ...markdownLadderMedians(report.ladder, TABLE_TEXT),
      "",
      ...nopm,
    ];
  if (!t) return [...lines, ...report.notes.flatMap((n) => [n, ""])];
  lines.push(
    `| sysbench test | ${t.threads.join(" | ")} |`,
    `|:--|${t.threads.map(() => "--:").join("|")}|`,
    ...t.rows.map((r) => `| ${escCell(r.test)} | ${r.cells.map((c) => escCell(plainCell(c))).join(" | ")} |`),
    "",
    `Number of threads across, ${legend(t)}.`,
    "",
    `| ${s.head.join(" | ")} |`,
    "|:--|--:|--:|--:|:--|",
    ...s.rows.map((r) => `| ${r.map(escCell).join(" | ")} |`),
    "",
  );
  if (s.sentences.length) lines.push(...s.sentences.flatMap((x) => wrap(`- ${x}`)), "");
  lines.push(...s.legend.map((l, i) => (i < s.legend.length - 1 ? `${l}  ` : l)), "");
  for (const l of [...(s.disturbance ? [s.disturbance] : []), ...(s.noHistory ? [s.noHistory] : []), ...s.level])
    lines.push(...para(l), "");
  lines.push(...nopm);
  return lines;
}

/** The details as Markdown: cost per query, where a second run lands, method, each cell's figures, notes. */
function detailsMarkdown(report: RunReport): string[] {
  const t = report.table;
  const lines: string[] = ["---", "", "## Details", ""];
  const cs = costSummary(report.costs);
  if (cs) {
    lines.push("### Cost per query", "", costSummaryHead(cs), "");
    lines.push(`| cell | ${cs.figures.map((f) => `${f.label} per query`).join(" | ")} |`);
    lines.push(`|:--|${cs.figures.map(() => "--:").join("|")}|`);
    for (const r of cs.rows)
      lines.push(`| ${escCell(`${r.test} @ ${r.threads}`)} | ${r.points.map(costPointText).join(" | ")} |`);
    lines.push("", "Every cost figure per query, with each side's median: costs.csv, report.json.", "");
  }
  const second = secondRunDetails(report);
  if (second.length) lines.push("```", ...second, "```", "");
  if (t && !report.ladder) {
    lines.push("### Method", "", ...methodLines(t).flatMap((l) => [...para(l), ""]));
    const vr = verdictRows(t);
    if (vr.length)
      lines.push(
        "### Each cell in figures",
        "",
        `| ${VERDICT_HEAD.join(" | ")} |`,
        `|${VERDICT_HEAD.map((_, i) => (i === 1 || i === 2 || (i >= 6 && i <= 7) || i === 10 ? "--:" : ":--")).join("|")}|`,
        ...vr.map((r) => `| ${r.map(escCell).join(" | ")} |`),
        "",
      );
    lines.push(...cellNotes(t).flatMap((n) => wrap(`- note: ${n}`)));
  }
  if (report.latency) lines.push("", "### Latency percentiles", "", ...latencyMarkdown(report.latency, escCell));
  lines.push("", "### Notes", "");
  for (const n of report.notes) lines.push(...para(n), "");
  return lines;
}

/** The report as Markdown (report.md): the first screen, then the details after a rule. */
export function renderMarkdown(report: RunReport): string {
  const lines: string[] = [...firstScreenMarkdown(report), ...detailsMarkdown(report)];
  if (report.durationText) lines.push(report.durationText, "");
  lines.push("## Servers", "", "| id | server | version | image | storage |", "|:--|:--|:--|:--|:--|");
  for (const s of report.servers) {
    lines.push(
      `| ${escCell(s.id)} | ${s.family} | ${escCell(s.version ?? "?")} | ${escCell(s.image)} | ${escCell(s.storage)} |`,
    );
  }
  lines.push("", ...para(configIdentityLine(report)));
  if (report.configIdentity.differing.length) {
    const ids = report.servers.map((s) => s.id);
    lines.push("", `| variable | ${ids.join(" | ")} | deliberate |`, `|:--|${ids.map(() => ":--").join("|")}|:--|`);
    for (const r of report.configIdentity.differing) {
      lines.push(
        `| ${escCell(r.variable)} | ${ids.map((id) => escCell(r.values[id] ?? "(unset)")).join(" | ")} | ${r.deliberate ? "yes" : "no"} |`,
      );
    }
  }
  lines.push("", ...para(runLine(report)), "");
  return lines.join("\n");
}
