/**
 * Pure text helpers for the TUI: durations, numbers, sparklines, progress bars and the seed-layout ratio table.
 * Everything here returns plain strings, so the screen reads the same without colour.
 */
import type { TableView } from "./view-state.ts";
import { textTable, type TextColumn } from "../core/base/text-table.ts";
import { formatSeconds } from "../core/base/units.ts";
import { LOAD_BOUND, STATE_MARKS, shortLegend } from "../core/model/vocabulary.ts";

const SPARKS = ["▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"];

/** The core's duration words (`45s`, `3m 12s`, `1h 02m`); `-` for a missing time, 0s for a negative one. */
export function duration(sec: number | null | undefined): string {
  if (sec === null || sec === undefined || !Number.isFinite(sec)) return "-";
  return formatSeconds(Math.max(0, sec));
}

/** A figure with 2 decimals below 1000, 1 below 100000, none above; `-` for null. */
export function figure(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return "-";
  const a = Math.abs(n);
  return n.toFixed(a < 1000 ? 2 : a < 100000 ? 1 : 0);
}

/** A sparkline of the values, scaled between their min and max, at most `width` characters (the latest kept). */
export function sparkline(values: readonly number[], width: number): string {
  const xs = values.slice(Math.max(0, values.length - Math.max(0, width)));
  if (xs.length === 0) return "";
  const lo = Math.min(...xs);
  const hi = Math.max(...xs);
  if (!(hi > lo)) return (hi === 0 ? SPARKS[0] : SPARKS[3]).repeat(xs.length);
  return xs
    .map((x) => SPARKS[Math.min(SPARKS.length - 1, Math.floor(((x - lo) / (hi - lo)) * SPARKS.length))])
    .join("");
}

/** `[#####.....]`-style bar in block characters, `width` cells between the brackets. */
export function bar(fraction: number, width: number): string {
  const w = Math.max(1, width);
  const f = Math.min(1, Math.max(0, Number.isFinite(fraction) ? fraction : 0));
  const full = Math.round(f * w);
  return `[${"█".repeat(full)}${"░".repeat(w - full)}]`;
}

/** Cut to `width` characters with an ellipsis. */
export function fit(text: string, width: number): string {
  if (width <= 0) return "";
  return text.length <= width ? text : width === 1 ? "…" : `${text.slice(0, width - 1)}…`;
}

/**
 * Cell text of the ratio table: `103.72 faster` (the verdict word of vocabulary.ts in its narrow form), `103.72`
 * without a word, `…` while running, `failed`, `skipped`, `·` when not measured yet.
 */
export function tableCellText(c: TableView["rows"][number]["cells"][number], digits = 2): string {
  if (c.status === "ok")
    return c.ratio === null ? STATE_MARKS.missing : `${c.ratio.toFixed(digits)} ${c.word}`.trimEnd();
  return STATE_MARKS[c.status];
}

/**
 * The ratio table in the seed layout, each figure with its verdict word:
 *
 *                      Number of threads
 *                            1               4
 *    sysbench test
 *     oltp_read_only    103.72 unclear   101.84 faster
 *
 * Figures align on the decimal point, words hang to the right. The figures keep the seeds' two decimals when every
 * column fits in `width`; else one decimal and a narrower gap; columns that still do not fit are dropped from the
 * right with a `>` marker.
 */
export function tableLines(t: TableView, width: number): string[] {
  const nameW = Math.max(16, ...t.rows.map((r) => r.test.length + 2)) + 2;
  const cells = t.rows.flatMap((r) => r.cells);
  const wordW = Math.max(0, ...cells.map((c) => (c.status === "ok" ? c.word.length : 0)));
  const stateW = Math.max(
    0,
    ...cells.map((c) => (c.status === "ok" && c.ratio !== null ? 0 : tableCellText(c).length)),
  );
  const layout = (digits: number, gap: number) => {
    const figW = Math.max(
      4,
      ...cells.map((c) => (c.status === "ok" && c.ratio !== null ? c.ratio.toFixed(digits).length : 0)),
    );
    return { digits, gap, lead: gap + figW, colW: gap + Math.max(figW + (wordW ? 1 + wordW : 0), stateW) };
  };
  const l = [layout(2, 2), layout(1, 1)].find((x) => nameW + x.colW * t.threads.length <= width) ?? layout(1, 1);
  const maxCols = Math.max(1, Math.floor((width - nameW - 1) / l.colW));
  const cols = t.threads.slice(0, maxCols);
  const cut = cols.length < t.threads.length;
  const columns: TextColumn[] = [{ width: nameW }, ...cols.map((): TextColumn => ({ width: l.colW }))];
  // Thread counts stand over the figures' last digit, as in the seeds.
  const [head] = textTable([["", ...cols.map((th) => String(th).padStart(l.lead))]], { columns, gap: "" });
  const rows = t.rows.map((r) => [
    `  ${r.test}`,
    ...r.cells.slice(0, cols.length).map((c) => {
      if (c.status !== "ok" || c.ratio === null) return " ".repeat(l.gap) + tableCellText(c).padStart(l.lead - l.gap);
      return `${c.ratio.toFixed(l.digits).padStart(l.lead)}${c.word ? ` ${c.word}` : ""}`;
    }),
  ]);
  return [
    " ".repeat(nameW) + "Number of threads",
    head! + (cut ? " >" : ""),
    " sysbench test",
    ...textTable(rows, { columns, gap: "" }),
  ];
}

/** The legend under the table: the ratio, then the vocabulary's short legend (src/core/model/vocabulary.ts), in lines of `width`. */
export function tableLegend(t: TableView, width = 100): string[] {
  const n = t.names ?? t;
  const loadBound = t.rows.some((r) => r.cells.some((c) => c.status === "ok" && c.word === LOAD_BOUND.word));
  return shortLegend(t.marginPct, `(${n.numerator} q/s / ${n.denominator} q/s * 100)`, width, undefined, loadBound);
}
