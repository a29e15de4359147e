/**
 * The one vocabulary of verdicts, cell states and server families (pure): every word that the TUI, the plain
 * progress lines, the text/markdown/HTML reports and `compare` show for a cell comes from here. verdict.ts decides
 * the verdict; this module only names it.
 *
 * A measured cell's verdict is one word: faster, slower, same (within the margin), or unclear; a cell where sysbench
 * and not the server set the pace is load-bound; a cell without figures says its state (failed, skipped). JSON keeps
 * the machine names (`verdictWord`, the verdict kind); the direction and equivalence readings behind a word are
 * spelled out in the details (`verdictSentence`).
 */
import {
  FDR,
  directionOfKind,
  equivalenceOfKind,
  type Direction,
  type Equivalence,
  type FdrReading,
  type Verdict,
} from "./verdict.ts";

/** The word of each direction (the details' reading of the interval against 100, not the verdict). */
export const DIRECTION_WORDS: Readonly<Record<Direction, string>> = {
  faster: "faster",
  slower: "slower",
  none: "no clear difference",
  unknown: "no interval",
};

/** A measured cell that gets no verdict: sysbench, not the server, limited most repeats (report/ratio.ts). */
export const LOAD_BOUND = {
  word: "load-bound",
  sentence: "load-bound (sysbench saturated its cpuset, the server did not): no verdict",
} as const;

/** How people write each family's name (scenarios and manifests use the lower-case ids). */
const FAMILY_NAMES: Readonly<Record<string, string>> = { mariadb: "MariaDB", mysql: "MySQL" };

/** `MariaDB`, `MySQL`: the family as people write it (a name already written so, or an unknown one, as is). */
export function familyName(family: string): string {
  return FAMILY_NAMES[family] ?? family;
}

/** The states of a cell without a verdict, as the tables show them. */
export type CellState = "failed" | "skipped" | "missing" | "running";
/** What a table cell shows for each state: `failed`, `skipped`, `·` (not measured), `…` (running, the TUI only). */
export const STATE_MARKS: Readonly<Record<CellState, string>> = {
  failed: "failed",
  skipped: "skipped",
  missing: "·",
  running: "…",
};
/** The word of each cell state. */
export const STATE_WORDS: Readonly<Record<CellState, string>> = {
  failed: "failed",
  skipped: "skipped",
  missing: "not measured",
  running: "running",
};

/** The verdict of a measured cell in one word (JSON keeps these machine names). */
export type VerdictWord = "faster" | "slower" | "same" | "unclear";
/** Every verdict word, in the order legends list them. */
export const VERDICT_WORDS: readonly VerdictWord[] = ["faster", "slower", "same", "unclear"];

/**
 * What a verdict word is read from: a cell's verdict kind, its multiple-testing reading (absent where none was made,
 * as in a round's progress line), whether it is load-bound, and its state (absent: measured).
 */
export interface WordedCell {
  status?: "ok" | CellState;
  verdict: Verdict;
  fdr?: FdrReading;
  loadBound?: boolean;
}

const pctText = (x: number) => (Number.isInteger(x) ? String(x) : x.toFixed(1));

/**
 * A measured cell's verdict word; null for a cell that failed, was skipped or was not measured.
 * - faster / slower: the interval lies wholly above / below 100 and the reading still holds over the table's cells
 *   at a 5% false-discovery rate (Benjamini–Hochberg), whether or not it is within the margin;
 * - same: no clear difference, and the interval lies inside 100 ± margin (equivalent);
 * - unclear: anything else (the interval holds 100 and reaches past the margin, no interval, a reading that does
 *   not hold over the table's cells, or a load-bound cell, where sysbench and not the server set the pace).
 */
export function verdictWordOf(c: WordedCell): VerdictWord | null {
  if (c.status !== undefined && c.status !== "ok") return null;
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

/**
 * A cell's verdict as a table shows it: the verdict word (`same within ±5%` with a margin; `same` without one, for
 * narrow tables), `load-bound` for a cell that has no verdict because sysbench set the pace, or the state's word
 * (`failed`, `skipped`, `not measured`, `running`).
 */
export function cellVerdictText(c: WordedCell, marginPct?: number): string {
  if (c.status !== undefined && c.status !== "ok") return STATE_WORDS[c.status];
  if (c.loadBound) return LOAD_BOUND.word;
  const w = verdictWordOf(c) ?? "unclear";
  return marginPct === undefined ? w : verdictLabel(w, marginPct);
}

/**
 * The legend's entries in words: what faster/slower, same, unclear and load-bound mean. The reports' legends use the
 * full entries (`sameShort`: the terser `same` for a line that must also hold load-bound); the TUI's, under a narrow
 * live table, the `narrow` ones.
 */
export function legendWords(marginPct: number) {
  const m = pctText(marginPct);
  const band = `${pctText(100 - marginPct)}–${pctText(100 + marginPct)}`;
  return {
    fasterSlower: "faster, slower: the interval lies above or below 100",
    same: `same within ±${m}%: the interval lies inside ${band}`,
    sameShort: `same within ±${m}%: inside ${band}`,
    unclear: "unclear: neither; more runs would tell",
    loadBound: `${LOAD_BOUND.word}: sysbench set the pace`,
    narrow: {
      fasterSlower: "faster/slower: the interval is above/below 100",
      same: `same: within ±${m}%, inside ${band}`,
      unclear: "unclear: neither yet",
    },
  };
}

/** `within ±5%`, `not within ±5%`, `can't tell if within ±5%`, `no interval`. */
export function equivalenceWord(e: Equivalence, marginPct: number): string {
  const m = `±${pctText(marginPct)}%`;
  return e === "within"
    ? `within ${m}`
    : e === "beyond"
      ? `not within ${m}`
      : e === "undetermined"
        ? `can't tell if within ${m}`
        : "no interval";
}

/** The words of the multiple-testing reading that does not hold. */
export function fdrWords(level = FDR): string {
  return `not at ${pctText(level * 100)}% FDR`;
}

const fmtP = (x: number) => (x < 0.0001 ? "<0.0001" : x.toPrecision(2));

/**
 * The readings behind one cell's verdict word (the details), with both readings and the multiple-testing reading:
 * `faster (p 0.0021, BH q 0.0063: holds at 5% FDR); within ±5%`, `no clear difference (p 0.41); can't tell if within
 * ±5%`, `no interval (too-few-pairs)`.
 */
export function verdictSentence(
  c: { verdict: Verdict; fdr: FdrReading; p: number | null; q: number | null; reason?: string },
  marginPct: number,
  level = FDR,
): string {
  const d = directionOfKind(c.verdict);
  if (c.reason === "load-bound") return LOAD_BOUND.sentence;
  if (d === "unknown") return `${DIRECTION_WORDS.unknown}${c.reason ? ` (${c.reason})` : ""}`;
  const stats = [c.p !== null ? `p ${fmtP(c.p)}` : null, c.q !== null ? `BH q ${fmtP(c.q)}` : null]
    .filter(Boolean)
    .join(", ");
  const fdr = c.fdr === "holds" ? `holds at ${pctText(level * 100)}% FDR` : c.fdr === "fails" ? fdrWords(level) : null;
  const inner = [stats, fdr].filter(Boolean).join(": ");
  return `${DIRECTION_WORDS[d]}${inner ? ` (${inner})` : ""}; ${equivalenceWord(equivalenceOfKind(c.verdict), marginPct)}`;
}

/**
 * The short legend (the TUI, under its table): `head` (e.g. `(mariadb q/s / mysql q/s * 100)`), the verdict words
 * (load-bound only when a cell is), and the states, packed into lines of at most `width` characters (an entry is
 * never split).
 */
export function shortLegend(
  marginPct: number,
  head = "",
  width = 100,
  states: readonly CellState[] = ["missing", "running"], // `failed` and `skipped` say what they are
  loadBound = false,
): string[] {
  const w = legendWords(marginPct);
  const entries = [
    head,
    w.narrow.fasterSlower,
    w.narrow.same,
    w.narrow.unclear,
    loadBound ? w.loadBound : "",
    ...states.map((s) => `${STATE_MARKS[s]} ${STATE_WORDS[s]}`),
  ].filter(Boolean);
  const lines: string[] = [];
  for (const entry of entries) {
    const last = lines.length - 1;
    if (last >= 0 && lines[last].length + 2 + entry.length <= width) lines[last] += `  ${entry}`;
    else lines.push(entry);
  }
  return lines;
}
