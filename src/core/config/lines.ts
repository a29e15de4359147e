/** The config texts as lines: a server's translation report and the must-match table of several servers. */
import type { MustMatchRow, TranslationEntry } from "../model/results.ts";
import { textTable } from "../base/text-table.ts";

export function formatTranslation(entries: TranslationEntry[]): string[] {
  const rows = entries.map((e) => [
    e.option,
    e.fate,
    `${e.rendered.join(", ") || "-"}${e.reason ? `  (${e.reason})` : ""}`,
  ]);
  return textTable(rows, { columns: [{ minWidth: 10 }, { width: 9 }], indent: "  ", trimEnd: false });
}

export function formatMustMatch(rows: MustMatchRow[], ids: string[]): string[] {
  const cells = rows.map((r) => [
    r.variable,
    ...ids.map((id) => String(r.values[id] ?? "-")),
    `${r.equal ? "same" : r.deliberate ? "DIFFERENT (asked for)" : "DIFFERENT"}${r.note ? `  ${r.note}` : ""}`,
  ]);
  return textTable(cells, {
    head: [["variable", ...ids, "verdict"]],
    columns: [{ minWidth: 12 }],
    indent: "  ",
    trimEnd: false,
  });
}
