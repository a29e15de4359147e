/** The config texts as lines: a server's translation report and the must-match table of several servers. */
import type { MustMatchRow, TranslationEntry } from "../results.ts";

export function formatTranslation(entries: TranslationEntry[]): string[] {
  const w = Math.max(10, ...entries.map((e) => e.option.length));
  return entries.map((e) => `  ${e.option.padEnd(w)}  ${e.fate.padEnd(9)}  ${e.rendered.join(", ") || "-"}${e.reason ? `  (${e.reason})` : ""}`);
}

export function formatMustMatch(rows: MustMatchRow[], ids: string[]): string[] {
  const w = Math.max(12, ...rows.map((r) => r.variable.length));
  const cw = ids.map((id) => Math.max(id.length, ...rows.map((r) => String(r.values[id] ?? "-").length)));
  const head = `  ${"variable".padEnd(w)}  ${ids.map((id, i) => id.padEnd(cw[i]!)).join("  ")}  verdict`;
  return [
    head,
    ...rows.map(
      (r) =>
        `  ${r.variable.padEnd(w)}  ${ids.map((id, i) => String(r.values[id] ?? "-").padEnd(cw[i]!)).join("  ")}  ${r.equal ? "same" : r.deliberate ? "DIFFERENT (asked for)" : "DIFFERENT"}${r.note ? `  ${r.note}` : ""}`,
    ),
  ];
}
