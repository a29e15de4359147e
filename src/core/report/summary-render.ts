/**
 * The execution summary for people: text, Markdown and HTML of an {@link ExecutionSummary} (summary.ts).
 */
import { textTable, type TextColumn, type TextRow } from "../base/text-table.ts";
import { escapeHtml, escapeMarkdownCell as mdEsc } from "./escape.ts";
import type { ExecutionSummary, SummaryBlock, SummaryRow } from "./summary.ts";

function cellText(r: SummaryRow, i: number): string {
  const d = r.display?.[i];
  if (d != null) return d;
  const v = r.values[i];
  return v == null ? "--" : v.toFixed(r.decimals);
}

const ratioText = (r: SummaryRow) => (r.ratio === null ? "" : r.ratio.toFixed(1));

/** The ratio column's heading: "B/A" in the sides' own labels. */
function ratioHeading(s: ExecutionSummary): string | null {
  return s.sides.length === 2 ? `${s.sides[1]}/${s.sides[0]}×100` : null;
}

function repeatsText(s: ExecutionSummary, blk: SummaryBlock): string {
  return blk.repeats
    .map((n, i) => `${s.sides[i]}: ${blk.status[i] === "ok" ? `${n} repeat${n === 1 ? "" : "s"}` : blk.status[i]}`)
    .join(", ");
}

function introLines(s: ExecutionSummary): string[] {
  const rh = ratioHeading(s);
  const named = s.sides[0] === "A" && s.sides[1] === "B" ? "A, B" : `A = ${s.sides[0]}, B = ${s.sides[1]}`;
  const head = rh
    ? `Test execution summary, side by side: ${named}, and B/A × 100.`
    : `Test execution summary: ${s.sides.join(", ")}.`;
  return [head, ...s.legend.map((l) => `  ${l}`)];
}

export function renderSummaryText(s: ExecutionSummary): string {
  const out: string[] = [...introLines(s), ""];
  const rh = ratioHeading(s);
  const labelW =
    Math.max(40, ...s.blocks.flatMap((b) => b.rows.map((r) => r.label.length + 2 * r.indent + (r.derived ? 4 : 2)))) +
    2;
  const colW = Math.max(14, ...s.sides.map((x) => x.length + 2));
  const columns: TextColumn[] = [
    { width: labelW },
    ...s.sides.map((): TextColumn => ({ width: colW, align: "right" })),
    ...(rh ? [{ width: Math.max(12, rh.length + 2), align: "right" } as const] : []),
  ];
  for (const blk of s.blocks) {
    out.push(`${blk.title} (median over repeats; ${repeatsText(s, blk)})`);
    out.push(...textTable([["", ...s.sides, ...(rh ? [rh] : [])]], { columns, gap: "", trimEnd: false }));
    const rows: TextRow[] = [];
    for (const r of blk.rows) {
      if (r.derived && !rows.includes("  derived:")) rows.push("  derived:");
      const label = "  " + "  ".repeat(r.indent + (r.derived ? 1 : 0)) + r.label;
      rows.push([label, ...s.sides.map((_, i) => cellText(r, i)), ...(rh ? [ratioText(r)] : [])]);
    }
    out.push(...textTable(rows, { columns, gap: "" }));
    for (const n of blk.notes) out.push(`  note: ${n}`);
    out.push("");
  }
  if (!s.blocks.length) out.push("No measured cells.", "");
  return out.join("\n");
}

/** Markdown: one table per block, notes as a list; `level` is the heading level of the blocks. */
export function renderSummaryMarkdown(s: ExecutionSummary, opts: { level?: number; title?: boolean } = {}): string {
  const h = "#".repeat(opts.level ?? 2);
  const out: string[] =
    opts.title === false ? [] : [`${"#".repeat(Math.max(1, (opts.level ?? 2) - 1))} Test execution summary`, ""];
  const rh = ratioHeading(s);
  out.push(...introLines(s).map((l) => mdEsc(l.trim())), "");
  for (const blk of s.blocks) {
    out.push(`${h} ${mdEsc(blk.title)}`, "", `Median over repeats; ${mdEsc(repeatsText(s, blk))}.`, "");
    out.push(`| figure | ${s.sides.map(mdEsc).join(" | ")} |${rh ? ` ${mdEsc(rh)} |` : ""}`);
    out.push(`|:--|${s.sides.map(() => "--:").join("|")}|${rh ? "--:|" : ""}`);
    for (const r of blk.rows) {
      const label = (r.derived ? "*derived:* " : "") + (r.indent ? "&nbsp;&nbsp;" : "") + mdEsc(r.label);
      out.push(
        `| ${label} | ${s.sides.map((_, i) => mdEsc(cellText(r, i))).join(" | ")} |${rh ? ` ${ratioText(r)} |` : ""}`,
      );
    }
    if (blk.notes.length) out.push("", ...blk.notes.map((n) => `- **note:** ${mdEsc(n)}`));
    out.push("");
  }
  if (!s.blocks.length) out.push("No measured cells.", "");
  return out.join("\n");
}

/** HTML: one table per block (no script, no style of its own: the page styles `table.summary`). */
export function renderSummaryHtml(s: ExecutionSummary): string {
  const rh = ratioHeading(s);
  const out: string[] = [
    `<h2>Test execution summary</h2>`,
    ...introLines(s).map((l) => `<p>${escapeHtml(l.trim())}</p>`),
  ];
  for (const blk of s.blocks) {
    out.push(
      `<h3>${escapeHtml(blk.title)}</h3>`,
      `<p class="muted">Median over repeats; ${escapeHtml(repeatsText(s, blk))}.</p>`,
    );
    out.push(
      `<table class="summary"><thead><tr><th>figure</th>${s.sides.map((x) => `<th>${escapeHtml(x)}</th>`).join("")}${rh ? `<th>${escapeHtml(rh)}</th>` : ""}</tr></thead><tbody>`,
    );
    for (const r of blk.rows) {
      const label = `${r.derived ? "<em>derived:</em> " : ""}${"&nbsp;&nbsp;".repeat(r.indent)}${escapeHtml(r.label)}`;
      out.push(
        `<tr${r.derived ? ' class="derived"' : ""}><td>${label}</td>${s.sides.map((_, i) => `<td class="num">${escapeHtml(cellText(r, i))}</td>`).join("")}${rh ? `<td class="num">${ratioText(r)}</td>` : ""}</tr>`,
      );
    }
    out.push(`</tbody></table>`);
    if (blk.notes.length)
      out.push(
        `<ul class="notes">${blk.notes.map((n) => `<li><strong>note:</strong> ${escapeHtml(n)}</li>`).join("")}</ul>`,
      );
  }
  if (!s.blocks.length) out.push("<p>No measured cells.</p>");
  return out.join("\n");
}
