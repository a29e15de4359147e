/**
 * The ladder's text and markdown renderers (its HTML: ladder-html.ts) of a {@link Ladder} (src/core/stats/ladder.ts), for a
 * run (each server against the base) and for two runs compared (each pair's change). The two-server helpers of
 * text.ts (seed layout, method lines, notes) come in as {@link TableText}, so this module does not import text.ts,
 * which calls it (no import cycle).
 */
import {
  DIRECTION_WORDS,
  STATE_MARKS,
  STATE_WORDS,
  cellVerdictText,
  equivalenceWord,
  verdictSentence,
} from "../model/vocabulary.ts";
import { verdictWordsLegend } from "./answer.ts";
import { textTable, type TextColumn } from "../base/text-table.ts";
import { escapeMarkdownCell as escCell } from "./escape.ts";
import { type RatioCell, type RatioTable } from "../stats/ratio-model.ts";
import { metricLabel } from "../stats/metric.ts";
import { ladderCell, type Ladder } from "../stats/ladder.ts";

/** The two-server table helpers of text.ts that the ladder reuses (text.ts passes them as TABLE_TEXT). */
export interface TableText {
  seedTable: (t: RatioTable, cell: (c: RatioCell) => string) => string[];
  plainCell: (c: RatioCell) => string;
  intervalText: (c: RatioCell) => string | null;
  statusText: (c: RatioCell) => string | null;
  methodLines: (t: RatioTable) => string[];
  cellNotes: (t: RatioTable) => string[];
}

// ---- renderers -------------------------------------------------------------------------------------------------

/** A block's heading: `mariadb-10 / mysql` (or `NEW / BASE of mariadb-10 / mysql`). */
export function blockTitle(l: Ladder, t: RatioTable): string {
  return l.kind === "change" ? `NEW / BASE of ${t.numerator} / ${t.denominator}` : `${t.numerator} / ${t.denominator}`;
}

/** `104.2 [101.3–107.2] faster`, or the state mark. */
function blockCell(c: RatioCell | undefined, tx: TableText): [string, string, string] {
  const { intervalText, statusText } = tx;
  if (!c) return [STATE_MARKS.missing, "", ""];
  const s = statusText(c);
  if (s !== null) return [s, "", ""];
  if (c.estimate === null) return [STATE_MARKS.missing, "", ""];
  return [c.estimate.toFixed(1), intervalText(c) ?? "no interval", cellVerdictText(c)];
}

/** The ladder's rows: one per test × threads, each block's estimate, interval and verdict word. */
export function ladderRows(l: Ladder, tx: TableText): string[][] {
  return l.tests.flatMap((test) =>
    l.threads.map((th) => [test, String(th), ...l.blocks.flatMap((b) => blockCell(ladderCell(b, test, th), tx))]),
  );
}

/** What a ladder's figure is, in one line. */
export function ladderLegend(l: Ladder): string {
  const unit = metricLabel(l.metric, l.percentile);
  const pct = Math.round(l.confidence * 100);
  if (l.kind === "change")
    return `Each block: one pair's ratio in NEW / its ratio in BASE * 100 (${unit}${l.inverted ? ", latency inverted" : ""}; above 100: the server gained on its base), from the repeats' pair ratios of the two runs, with its ${pct}% interval.`;
  const base = l.base || "its base";
  return `Each block: the server's ${unit} / ${base} ${unit} * 100${l.inverted ? " (latency is inverted: above 100 means the server is faster)" : ""}, the geometric mean of the ratios of paired repeats, exp(mean ln ratio) * 100, with its ${pct}% interval and verdict.`;
}

/** The BH line over the whole ladder. */
export function ladderFdrLine(l: Ladder): string {
  const m = l.method;
  const pct = `${Math.round(l.confidence * 100)}%`;
  return (
    `${m.intervals} cell${m.intervals === 1 ? "" : "s"} with an interval over the ${m.pairs} pairs at ${pct}: about ${m.expectedFalse.toFixed(1)} false faster/slower verdict${m.expectedFalse === 1 ? "" : "s"} expected by chance alone; ` +
    `${m.verdicts} given, ${m.verdictsAtFdr} of them ${m.verdictsAtFdr === 1 ? "holds" : "hold"} at a 5% false-discovery rate (Benjamini–Hochberg over every pair × cell).`
  );
}

/** The verdict words' legend, then each block's method without its own BH line, then the ladder's BH line. */
export function ladderMethodLines(l: Ladder, tx: TableText): string[] {
  const { methodLines } = tx;
  const n = l.method.intervals;
  const out = [
    ...verdictWordsLegend({
      marginPct: l.marginPct,
      together: `also when all ${n} cell${n === 1 ? "" : "s"} of every pair are read together`,
      loadBound: l.blocks.some((t) => t.rows.some((r) => r.cells.some((c) => c.loadBound))),
    }),
    `No figures: ${STATE_WORDS.failed}, ${STATE_WORDS.skipped}, ${STATE_MARKS.missing} ${STATE_WORDS.missing}.`,
  ];
  l.blocks.forEach((t) => {
    // The block's own BH line counts only its cells: intervals 0 leaves it out; the ladder's line below covers all.
    const lines = methodLines({ ...t, method: { ...t.method, intervals: 0 } });
    out.push(...lines.map((s) => `${blockTitle(l, t)}: ${s}`));
  });
  out.push(ladderFdrLine(l));
  return out;
}

/** Every measured pair × cell's verdict in words (text), with the server it is about. */
export function ladderVerdictLines(l: Ladder, tx: TableText): string[] {
  const { intervalText } = tx;
  const out: string[] = [];
  for (const t of l.blocks)
    for (const r of t.rows)
      for (const c of r.cells) {
        if (c.status !== "ok" || c.estimate === null) continue;
        const ci = intervalText(c);
        out.push(
          `${blockTitle(l, t)}: ${r.test} @ ${c.threads} thread${c.threads === 1 ? "" : "s"}: ${c.estimate.toFixed(1)}${ci ? ` ${ci}` : ""} ${cellVerdictText(c)}, n=${c.n}: ${verdictSentence(c, l.marginPct)}`,
        );
      }
  return out;
}

/** The ladder's notes (unstable cells, failed repeats, zero width), each with its block. */
export function ladderNotes(l: Ladder, tx: TableText): string[] {
  const { cellNotes } = tx;
  return l.blocks.flatMap((t) => cellNotes(t).map((n) => `${blockTitle(l, t)}: ${n}`));
}

/** The ladder table as text lines: the blocks' titles, a head row of figures, a rule, one row per test × threads. */
export function ladderTableText(l: Ladder, tx: TableText): string[] {
  const head = ["sysbench test", "threads", ...l.blocks.flatMap(() => ["estimate", "interval", "verdict"])];
  const columns: TextColumn[] = [
    {},
    { align: "right" },
    ...l.blocks.flatMap((): TextColumn[] => [{ align: "right", gap: "    " }, {}, {}]),
  ];
  const body = textTable(ladderRows(l, tx), { head: [head], rule: "-", columns, indent: "  " });
  // Each block's title starts above its "estimate" column.
  let title = "";
  let from = 0;
  for (const b of l.blocks) {
    const at = body[0]!.indexOf("estimate", from);
    from = at + 1;
    title = title.padEnd(Math.max(at, title.length + 1)) + blockTitle(l, b);
  }
  return [title, ...body];
}

/** The seeds' median / median layout, one table per server against the base. */
export function ladderSeedText(l: Ladder, tx: TableText): string[] {
  const { seedTable, plainCell } = tx;
  return l.blocks.flatMap((t, i) => [
    ...(i ? [""] : []),
    l.kind === "change"
      ? `${blockTitle(l, t)}: median / median of the pair ratios`
      : `${t.numerator} / ${t.denominator} * 100: median / median over repeats, as in the seed tables`,
    ...seedTable(t, plainCell),
  ]);
}

/** The ladder as text: the seed layout per server, then the ladder table, its legend, method, BH line, verdicts, notes. */
export function renderLadderText(l: Ladder, tx: TableText): string[] {
  return [
    ...ladderSeedText(l, tx),
    "",
    ladderLegend(l),
    "",
    ...ladderTableText(l, tx),
    "",
    ...ladderMethodLines(l, tx),
    "",
    `Verdicts (q: Benjamini–Hochberg over the ${l.method.intervals} cell${l.method.intervals === 1 ? "" : "s"} of every pair with an interval):`,
    ...ladderVerdictLines(l, tx).map((s) => `  ${s}`),
    ...ladderNotes(l, tx).map((n) => `note: ${n}`),
  ];
}

/** The head of {@link ladderVerdictRows}. */
export const LADDER_VERDICT_HEAD = [
  "server",
  "base",
  "sysbench test",
  "threads",
  "estimate",
  "interval",
  "verdict",
  "direction",
  "p",
  "BH q",
  "at 5% FDR",
  "equivalence",
  "n",
] as const;

/** Every measured pair × cell's verdict as table rows (markdown, HTML). */
export function ladderVerdictRows(l: Ladder, tx: TableText): string[][] {
  const { intervalText } = tx;
  const fp = (x: number | null) => (x === null ? "" : x < 0.0001 ? "<0.0001" : x.toPrecision(2));
  return l.blocks.flatMap((t) =>
    t.rows.flatMap((r) =>
      r.cells.flatMap((c) =>
        c.status !== "ok" || c.estimate === null
          ? []
          : [
              [
                t.numerator,
                t.denominator,
                r.test,
                String(c.threads),
                c.estimate.toFixed(1),
                intervalText(c) ?? "no interval",
                cellVerdictText(c, l.marginPct),
                DIRECTION_WORDS[c.direction],
                fp(c.p),
                fp(c.q),
                c.fdr === "holds" ? "holds" : c.fdr === "fails" ? "does not hold" : "",
                c.equivalence === "unknown" ? "" : equivalenceWord(c.equivalence, l.marginPct),
                String(c.n),
              ],
            ],
      ),
    ),
  );
}

/** The ladder as Markdown lines: one table (a column per server: estimate [interval] verdict), legend, method, verdicts, notes. */
export function markdownLadder(l: Ladder, tx: TableText): string[] {
  const one = (c: RatioCell | undefined) => {
    const [e, ci, m] = blockCell(c, tx);
    return [e, ci, m].filter(Boolean).join(" ");
  };
  const lines = [
    `| sysbench test | threads | ${l.blocks.map((b) => escCell(blockTitle(l, b))).join(" | ")} |`,
    `|:--|--:|${l.blocks.map(() => "--:").join("|")}|`,
    ...l.tests.flatMap((test) =>
      l.threads.map(
        (th) =>
          `| ${escCell(test)} | ${th} | ${l.blocks.map((b) => escCell(one(ladderCell(b, test, th)))).join(" | ")} |`,
      ),
    ),
    "",
    ladderLegend(l),
    "",
    ...ladderMethodLines(l, tx).map((s) => `- ${s}`),
  ];
  const vr = ladderVerdictRows(l, tx);
  if (vr.length) {
    lines.push(
      "",
      `Verdicts (BH q: Benjamini–Hochberg over the ${l.method.intervals} cell${l.method.intervals === 1 ? "" : "s"} of every pair with an interval):`,
      "",
      `| ${LADDER_VERDICT_HEAD.join(" | ")} |`,
      `|${LADDER_VERDICT_HEAD.map((h) => (["threads", "estimate", "p", "BH q", "n"].includes(h) ? "--:" : ":--")).join("|")}|`,
      ...vr.map((r) => `| ${r.map(escCell).join(" | ")} |`),
    );
  }
  const notes = ladderNotes(l, tx);
  if (notes.length) lines.push("", ...notes.map((n) => `- note: ${n}`));
  return lines;
}

/** The median / median layout per server as Markdown (the seed figure), one small table per pair. */
export function markdownLadderMedians(l: Ladder, tx: TableText): string[] {
  const { plainCell } = tx;
  const lines = [
    `| sysbench test | threads | ${l.blocks.map((b) => escCell(blockTitle(l, b))).join(" | ")} |`,
    `|:--|--:|${l.blocks.map(() => "--:").join("|")}|`,
    ...l.tests.flatMap((test) =>
      l.threads.map(
        (th) =>
          `| ${escCell(test)} | ${th} | ${l.blocks
            .map((b) => {
              const c = ladderCell(b, test, th);
              return c ? plainCell(c) : STATE_MARKS.missing;
            })
            .join(" | ")} |`,
      ),
    ),
  ];
  return [...lines, "", "Median / median over repeats, as in the seed tables."];
}

/** A ladder's title: `mariadb-10.11, mariadb-11.8 against mysql: sysbench version ladder in %`. */
export function ladderTitle(l: Ladder): string {
  const what = l.inverted ? ` (${metricLabel(l.metric, l.percentile)}, inverted)` : "";
  if (l.kind === "change")
    return `Ladder change of ${l.blocks.map((b) => b.numerator).join(", ")} against ${l.base || "their bases"}: NEW / BASE in %${what}`;
  return `${l.blocks.map((b) => b.numerator).join(", ")} against ${l.base || "their bases"}: sysbench version ladder in %${what}`;
}
