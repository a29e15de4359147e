/**
 * The one vocabulary of verdicts and cell states (pure): every mark and word that the TUI, the plain progress lines,
 * the text/markdown/HTML reports and `compare` show for a cell comes from here. verdict.ts decides the verdict; this
 * module only names it.
 *
 * A mark is the direction's (`+` faster, `-` slower, `~` no clear difference, `?` no interval), doubled when the
 * interval lies wholly beyond the margin (`++`, `--`), with `=` when it lies within it (`+=`, `-=`, and `=` alone for
 * no clear difference within the margin: equivalent). A single `+`/`-` cannot tell. After the mark, `?` says the
 * faster/slower reading does not hold at a 5% false-discovery rate, and `!` that the cell is unstable.
 */
import {
  FDR,
  VERDICTS,
  directionOfKind,
  equivalenceOfKind,
  type Direction,
  type Equivalence,
  type FdrReading,
  type Verdict,
} from "./verdict.ts";

/** Every direction, in the order legends list them. */
export const DIRECTIONS: readonly Direction[] = ["faster", "slower", "none", "unknown"];
/** Every equivalence reading. */
export const EQUIVALENCES: readonly Equivalence[] = ["within", "beyond", "undetermined", "unknown"];

/** The mark of each direction. */
export const DIRECTION_MARKS: Readonly<Record<Direction, string>> = {
  faster: "+",
  slower: "-",
  none: "~",
  unknown: "?",
};
/** The word of each direction. */
export const DIRECTION_WORDS: Readonly<Record<Direction, string>> = {
  faster: "faster",
  slower: "slower",
  none: "no clear difference",
  unknown: "no interval",
};

/** The mark of each verdict kind. */
export const VERDICT_MARKS: Readonly<Record<Verdict, string>> = {
  "faster-beyond": "++",
  faster: "+",
  "faster-within": "+=",
  equivalent: "=",
  inconclusive: "~",
  "slower-within": "-=",
  slower: "-",
  "slower-beyond": "--",
  unknown: "?",
};

/** How the equivalence readings show in a mark (for legends). */
export const EQUIVALENCE_MARKS: Readonly<Record<Equivalence, string>> = {
  within: "=",
  beyond: "++/--",
  undetermined: "+/- alone",
  unknown: "?",
};

/** The flags after a mark: the faster/slower reading does not hold under Benjamini–Hochberg; the cell is unstable. */
export const FLAG_MARKS = { fdrFails: "?", unstable: "!" } as const;

/** A measured cell that gets no verdict: sysbench, not the server, limited most repeats (report/ratio.ts). */
export const LOAD_BOUND = {
  mark: "L",
  word: "load-bound (sysbench saturated its cpuset, the server did not): no verdict",
} as const;

/** The states of a cell without a verdict, as the tables show them. */
export type CellState = "failed" | "skipped" | "missing" | "running";
/** The mark of each cell state: `fail`, `skip`, `·` (not measured), `…` (running, the TUI only). */
export const STATE_MARKS: Readonly<Record<CellState, string>> = {
  failed: "fail",
  skipped: "skip",
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

const pctText = (x: number) => (Number.isInteger(x) ? String(x) : x.toFixed(1));

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

/** The words of a verdict kind: `faster, within ±5%`, `no clear difference, can't tell if within ±5%`, `no interval`. */
export function verdictWords(v: Verdict, marginPct: number): string {
  const d = directionOfKind(v);
  if (d === "unknown") return DIRECTION_WORDS.unknown;
  return `${DIRECTION_WORDS[d]}, ${equivalenceWord(equivalenceOfKind(v), marginPct)}${v === "equivalent" ? " (equivalent)" : ""}`;
}

/** The words of the multiple-testing flag. */
export function fdrWords(level = FDR): string {
  return `not at ${pctText(level * 100)}% FDR`;
}

/** A cell's mark: the kind's (`L` when load-bound), then `?` when its faster/slower reading fails Benjamini–Hochberg, `!` when unstable. */
export function verdictMark(c: {
  verdict: Verdict;
  fdr?: FdrReading;
  unstable?: readonly string[] | boolean;
  loadBound?: boolean;
}): string {
  const unstable = Array.isArray(c.unstable) ? c.unstable.length > 0 : c.unstable === true;
  return (
    (c.loadBound ? LOAD_BOUND.mark : VERDICT_MARKS[c.verdict]) +
    (c.fdr === "fails" ? FLAG_MARKS.fdrFails : "") +
    (unstable ? FLAG_MARKS.unstable : "")
  );
}

const fmtP = (x: number) => (x < 0.0001 ? "<0.0001" : x.toPrecision(2));

/**
 * One cell's verdict in words, with both readings and the multiple-testing reading:
 * `faster (p 0.0021, BH q 0.0063: holds at 5% FDR); within ±5%`, `no clear difference (p 0.41); can't tell if within
 * ±5%`, `no interval (too-few-pairs)`.
 */
export function verdictSentence(
  c: { verdict: Verdict; fdr: FdrReading; p: number | null; q: number | null; reason?: string },
  marginPct: number,
  level = FDR,
): string {
  const d = directionOfKind(c.verdict);
  if (c.reason === "load-bound") return LOAD_BOUND.word;
  if (d === "unknown") return `${DIRECTION_WORDS.unknown}${c.reason ? ` (${c.reason})` : ""}`;
  const stats = [c.p !== null ? `p ${fmtP(c.p)}` : null, c.q !== null ? `BH q ${fmtP(c.q)}` : null]
    .filter(Boolean)
    .join(", ");
  const fdr = c.fdr === "holds" ? `holds at ${pctText(level * 100)}% FDR` : c.fdr === "fails" ? fdrWords(level) : null;
  const inner = [stats, fdr].filter(Boolean).join(": ");
  return `${DIRECTION_WORDS[d]}${inner ? ` (${inner})` : ""}; ${equivalenceWord(equivalenceOfKind(c.verdict), marginPct)}`;
}

/** `+ faster`-style legend entries of the directions, the equivalence readings, the flags and the states. */
export function legendEntries(marginPct: number, level = FDR) {
  return {
    directions: DIRECTIONS.map((d) => `${DIRECTION_MARKS[d]} ${DIRECTION_WORDS[d]}`),
    equivalences: (["within", "beyond", "undetermined"] as const).map(
      (e) => `${EQUIVALENCE_MARKS[e]} ${e === "undetermined" ? "can't tell" : equivalenceWord(e, marginPct)}`,
    ),
    fdr: `x${FLAG_MARKS.fdrFails} ${fdrWords(level)}`,
    unstable: `${FLAG_MARKS.unstable} unstable`,
    states: (Object.keys(STATE_MARKS) as CellState[]).map((s) => `${STATE_MARKS[s]} ${STATE_WORDS[s]}`),
    kinds: VERDICTS.map((v) => `${VERDICT_MARKS[v]} ${verdictWords(v, marginPct)}`),
  };
}

/**
 * The short legend (the TUI, under its table): `head` (e.g. `(mariadb q/s / mysql q/s * 100)`), the directions,
 * the margin, the FDR flag and the states, packed into lines of at most `width` characters (an entry is never split).
 */
export function shortLegend(
  marginPct: number,
  head = "",
  width = 100,
  states: readonly CellState[] = ["missing", "running"], // `fail` and `skip` say what they are
): string[] {
  const e = legendEntries(marginPct);
  const entries = [
    head,
    ...e.directions,
    ...e.equivalences,
    e.fdr,
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

/**
 * The long legend (the reports): what each mark means and when it is given. `numerator` names the side that
 * `faster` is said of; `few` says what "fewer than 2" counts (pairs, values a side).
 */
export function longLegend(o: {
  marginPct: number;
  numerator: string;
  denominator: string;
  few: string;
  level?: number;
}): string[] {
  const level = o.level ?? FDR;
  const e = legendEntries(o.marginPct, level);
  const lo = pctText(100 - o.marginPct);
  const hi = pctText(100 + o.marginPct);
  const [faster, slower, none, unknown] = e.directions;
  const [within, beyond, undetermined] = e.equivalences;
  return [
    `Direction (${o.numerator} against ${o.denominator}), from the interval against 100: ${faster} (above 100)   ${slower} (below 100)   ${none} (includes 100)   ${unknown} (fewer than 2 ${o.few}, or zero width)`,
    `Equivalence, from the interval against ${lo}–${hi}: ${within} (inside ${lo}–${hi})   ${beyond} (wholly outside ${lo}–${hi})   ${undetermined} (reaches past ${lo} or ${hi}: can't tell if within ±${pctText(o.marginPct)}%)`,
    `Marks: ${e.kinds.slice(0, 5).join("   ")}`,
    `       ${e.kinds.slice(5).join("   ")}`,
    `After a mark: ${e.fdr} (its Benjamini–Hochberg q over the table's cells is above ${level}: the faster/slower reading does not hold at a ${pctText(level * 100)}% false-discovery rate)   ${e.unstable} (see the notes)`,
    `States: ${e.states.filter((s) => !s.startsWith(STATE_MARKS.running)).join("   ")}`,
  ];
}
