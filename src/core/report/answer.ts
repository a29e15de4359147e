/**
 * The answer at a glance: the words every front end shows first (text, markdown, HTML, the TUI's final screen,
 * JSON's `verdictWord`). One verdict word per cell (faster, slower, same within ±5%, unclear), one sentence per
 * cell with a verdict in the way hyperfine writes its summary ("A ran x 1.21 [1.14–1.28] times as fast as B"), and a
 * legend of at most three lines. The front ends lay these out; they do not make words of their own.
 */
import { equivalenceOfKind, directionOfKind } from "../model/verdict.ts";
import { STATE_WORDS } from "../model/vocabulary.ts";
import type { RatioCell, RatioTable } from "../stats/ratio-model.ts";

/** The verdict of a measured cell in one word (JSON keeps these machine names). */
export type VerdictWord = "faster" | "slower" | "same" | "unclear";

/** No line of a report is longer than this. */
export const MAX_LINE = 120;

const pctText = (x: number) => (Number.isInteger(x) ? String(x) : x.toFixed(1));

/**
 * A measured cell's verdict word; null for a cell that failed, was skipped or was not measured.
 * - faster / slower: the interval lies wholly above / below 100 and the reading still holds over the table's cells
 *   at a 5% false-discovery rate (Benjamini–Hochberg), whether or not it is within the margin;
 * - same: no clear difference, and the interval lies inside 100 ± margin (equivalent);
 * - unclear: anything else (the interval holds 100 and reaches past the margin, no interval, a reading that does
 *   not hold over the table's cells, or a load-bound cell, where sysbench and not the server set the pace).
 */
export function verdictWordOf(c: Pick<RatioCell, "status" | "verdict" | "fdr" | "loadBound">): VerdictWord | null {
  if (c.status !== "ok") return null;
  if (c.loadBound) return "unclear";
  const d = directionOfKind(c.verdict);
  if ((d === "faster" || d === "slower") && c.fdr !== "fails") return d;
  if (d === "none" && equivalenceOfKind(c.verdict) === "within") return "same";
  return "unclear";
}

/** The verdict word as people read it: `same within ±5%`. */
export function verdictLabel(w: VerdictWord, marginPct: number): string {
  return w === "same" ? `same within ±${pctText(marginPct)}%` : w;
}

/** A cell's verdict column: the word, or the cell's state (`failed`, `skipped`, `not measured`). */
export function cellVerdictText(c: RatioCell, marginPct: number): string {
  const w = verdictWordOf(c);
  if (w !== null) return verdictLabel(w, marginPct);
  return c.status === "ok" ? STATE_WORDS.missing : STATE_WORDS[c.status];
}

/** `MariaDB 11.8`: the family and the major.minor of a version string such as `11.8.9-MariaDB-4`. */
export function shortName(family: string, version: string | null): string {
  const m = version ? /^(\d+\.\d+)/.exec(version) : null;
  return m ? `${family} ${m[1]}` : family;
}

/** The names the sentences use for the numerator and the denominator of a table. */
export interface SideNames {
  numerator: string;
  denominator: string;
}

const where = (test: string, threads: number) => `${test} at ${threads} thread${threads === 1 ? "" : "s"}`;
const factor = (x: number) => (x / 100).toFixed(2);

/**
 * One cell's sentence, or null when it has no verdict (unclear, or not measured):
 * - `MariaDB 11.8 ran oltp_point_select at 4 threads 1.21 [1.14–1.28] times as fast as MySQL 9.7.`
 * - slower: the faster side first, with the inverted figures, so the factor is above 1;
 * - `MariaDB 11.8 and MySQL 9.7 ran oltp_read_only at 1 thread at the same speed within ±5% (1.01 [0.98–1.05]).`
 */
export function answerSentence(test: string, c: RatioCell, names: SideNames, marginPct: number): string | null {
  const w = verdictWordOf(c);
  if (w === null || w === "unclear" || c.estimate === null || c.low === null || c.high === null) return null;
  if (w === "same")
    return `${names.numerator} and ${names.denominator} ran ${where(test, c.threads)} at the same speed within ±${pctText(marginPct)}% (${factor(c.estimate)} [${factor(c.low)}–${factor(c.high)}]).`;
  const [first, second, est, lo, hi] =
    w === "faster"
      ? [names.numerator, names.denominator, c.estimate, c.low, c.high]
      : [names.denominator, names.numerator, 10000 / c.estimate, 10000 / c.high, 10000 / c.low];
  return `${first} ran ${where(test, c.threads)} ${factor(est)} [${factor(lo)}–${factor(hi)}] times as fast as ${second}.`;
}

/** Every sentence of a table, in table order. */
export function answerSentences(t: RatioTable, names: SideNames): string[] {
  return t.rows.flatMap((r) => r.cells.flatMap((c) => answerSentence(r.test, c, names, t.marginPct) ?? []));
}

/** The answer table's rows: test, threads, estimate, interval, verdict (head: {@link answerHead}). */
export function answerRows(t: RatioTable): string[][] {
  return t.rows.flatMap((r) =>
    r.cells.map((c) => [
      r.test,
      String(c.threads),
      c.status === "ok" && c.estimate !== null ? c.estimate.toFixed(1) : "",
      c.status === "ok" && c.low !== null && c.high !== null ? `${c.low.toFixed(1)}–${c.high.toFixed(1)}` : "",
      cellVerdictText(c, t.marginPct),
    ]),
  );
}

/** The answer table's head, with the table's confidence. */
export function answerHead(t: RatioTable): string[] {
  return ["sysbench test", "threads", "estimate", `${Math.round(t.confidence * 100)}% interval`, "verdict"];
}

/** The legend under the answer: at most three lines, in plain words. */
export function answerLegend(t: RatioTable): string[] {
  const m = pctText(t.marginPct);
  const cells = t.method.intervals;
  return [
    `estimate: ${t.numeratorLabel} / ${t.denominatorLabel} × 100 over the repeats; above 100 means ${t.numeratorLabel} is faster.`,
    cells > 1
      ? `faster, slower: the interval lies above or below 100, also when all ${cells} cells are read together.`
      : "faster, slower: the interval lies above or below 100.",
    `same within ±${m}%: the interval lies inside ${pctText(100 - t.marginPct)}–${pctText(100 + t.marginPct)}. unclear: neither; more runs would tell.`,
  ];
}

/**
 * The text wrapped at spaces into lines of at most `width` characters, continuation lines indented by `indent` after
 * the text's own leading spaces. A word longer than the width is kept whole.
 */
export function wrap(text: string, width = MAX_LINE, indent = "  "): string[] {
  if (text.length <= width) return [text];
  const lead = /^ */.exec(text)![0];
  const out: string[] = [];
  let line = lead;
  for (const word of text.slice(lead.length).split(/ +/)) {
    const next = line.trim() === "" ? line + word : `${line} ${word}`;
    if (next.length > width && line.trim() !== "") {
      out.push(line);
      line = lead + indent + word;
    } else line = next;
  }
  if (line.trim() !== "") out.push(line);
  return out;
}
