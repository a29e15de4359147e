/**
 * The answer at a glance: the words every front end shows first (text, markdown, HTML, the TUI's final screen,
 * JSON's `verdictWord`). One verdict word per cell (faster, slower, same within ±5%, unclear), one sentence per
 * cell with a verdict in the way hyperfine writes its summary ("A ran x 1.21 [1.14–1.28] times as fast as B"), and a
 * legend of at most three lines. The front ends lay these out; they do not make words of their own.
 */
import { cellVerdictText, familyName, legendWords, verdictWordOf } from "../model/vocabulary.ts";
import type { RatioCell, RatioTable } from "../stats/ratio-model.ts";

/** No line of a report is longer than this. */
export const MAX_LINE = 120;

const pctText = (x: number) => (Number.isInteger(x) ? String(x) : x.toFixed(1));

/**
 * `MariaDB 11.8`: the family as people write it and the major.minor of a version string such as
 * `11.8.9-MariaDB-4`.
 */
export function shortName(family: string, version: string | null | undefined): string {
  const m = version ? /^(\d+\.\d+)/.exec(version) : null;
  return m ? `${familyName(family)} ${m[1]}` : familyName(family);
}

/** The names the sentences use for the numerator and the denominator of a table. */
export interface SideNames {
  numerator: string;
  denominator: string;
}

/**
 * The names of a table's two sides as the report's title gives them (`MariaDB 11.8`, `MySQL 9.7`), from the servers'
 * families and versions; a side whose server is not known (or has no family) takes its `fallback` name. When the two
 * would read alike (two MariaDB 11.8 servers), the ids are used.
 */
export function sideNamesOf(
  servers: ReadonlyArray<{ id: string; family?: string; version?: string | null }>,
  ids: SideNames,
  fallback: SideNames = ids,
): SideNames {
  const name = (id: string, other: string) => {
    const s = servers.find((x) => x.id === id);
    return s?.family ? shortName(s.family, s.version) : other;
  };
  const numerator = name(ids.numerator, fallback.numerator);
  const denominator = name(ids.denominator, fallback.denominator);
  return numerator === denominator ? ids : { numerator, denominator };
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

/**
 * The verdict words' legend, two lines: when a cell is faster or slower (`together`: how the cells are read together,
 * e.g. `also when all 6 cells are read together`), same or unclear, and load-bound when a cell is.
 */
export function verdictWordsLegend(o: { marginPct: number; together: string; loadBound: boolean }): string[] {
  const w = legendWords(o.marginPct);
  return [
    o.together ? `${w.fasterSlower}, ${o.together}.` : `${w.fasterSlower}.`,
    o.loadBound ? `${w.sameShort}. ${w.unclear}. ${w.loadBound}.` : `${w.same}. ${w.unclear}.`,
  ];
}

/** Whether any cell of the table is load-bound (its legend then says what that is). */
export function hasLoadBound(t: RatioTable): boolean {
  return t.rows.some((r) => r.cells.some((c) => c.loadBound));
}

/** The legend under the answer: at most three lines, in plain words. */
export function answerLegend(t: RatioTable): string[] {
  const cells = t.method.intervals;
  return [
    `estimate: ${t.numeratorLabel} / ${t.denominatorLabel} × 100 over the repeats; above 100 means ${t.numeratorLabel} is faster.`,
    ...verdictWordsLegend({
      marginPct: t.marginPct,
      together: cells > 1 ? `also when all ${cells} cells are read together` : "",
      loadBound: hasLoadBound(t),
    }),
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
