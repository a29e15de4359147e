/** The run screen's live tables: the ratio table (or a ladder's tables), its legend, and the forest plot under it. */
import { Box, Text } from "ink";
import { forestLines, type Forest } from "../core/report/forest.ts";
import { fit, tableLegend, tableLines } from "./format.ts";
import type { TableView, ViewState } from "./view-state.ts";
import { C, type Color } from "./color.tsx";

export function RatioTableView({
  state,
  width,
  maxRows,
  compact = false,
}: {
  state: ViewState;
  width: number;
  maxRows: number;
  compact?: boolean;
}) {
  if (state.ladder.length > 1)
    return <LadderTablesView state={state} width={width} maxRows={maxRows} compact={compact} />;
  const t = state.table;
  if (!t) return null;
  return (
    <Box flexDirection="column">
      <TableBody t={t} width={width} maxRows={maxRows} compact={compact} />
      <TableLegend t={t} width={width} compact={compact} />
    </Box>
  );
}

/**
 * The final screen's answer (a two-server run): the seeds' table without words, then the answer in the report's
 * words (verdict words, one sentence per verdict, a three-line legend), as the text report prints it, the servers
 * named as the report's title names them.
 */
export function FinalAnswerView({ t, width }: { t: TableView; width: number }) {
  return (
    <Box flexDirection="column">
      {finalAnswerLines(t, width).map((l, i) => (
        <Text key={i}>{fit(l, width)}</Text>
      ))}
    </Box>
  );
}

/** The lines of {@link FinalAnswerView}. */
export function finalAnswerLines(t: TableView, width: number): string[] {
  const plain = { ...t, rows: t.rows.map((r) => ({ ...r, cells: r.cells.map((c) => ({ ...c, word: "" })) })) };
  const n = t.names ?? t;
  return [...tableLines(plain, width), `(${n.numerator} q/s / ${n.denominator} q/s * 100)`, "", ...(t.answer ?? [])];
}

/** The colour that accompanies each verdict word and failed state in the live table (the word is always there). */
const WORD_COLOURS: Readonly<Record<string, Color>> = {
  faster: "green",
  slower: "red",
  same: "cyan",
  unclear: "yellow",
  "load-bound": "magenta",
  failed: "red",
};
const WORDS = new RegExp(`(?<=\\s)(${Object.keys(WORD_COLOURS).join("|")})(?=\\s|$)`);

/** A body line of the live table, its verdict words coloured (after the test's name, which is never coloured). */
function BodyLine({ line, name }: { line: string; name: number }) {
  const parts = line.slice(name).split(WORDS);
  return (
    <Text>
      {line.slice(0, name)}
      {parts.map((p, i) =>
        i % 2 === 1 ? (
          <C key={i} color={WORD_COLOURS[p]}>
            {p}
          </C>
        ) : (
          p
        ),
      )}
    </Text>
  );
}

/** One live table's head (compact: only the thread counts, the screen is short) and at most `maxRows` rows. */
function TableBody({ t, width, maxRows, compact }: { t: TableView; width: number; maxRows: number; compact: boolean }) {
  const lines = tableLines(t, width);
  const head = compact ? [lines[1]] : lines.slice(0, 3);
  const body = lines.slice(3);
  const shown = body.slice(0, Math.max(1, maxRows));
  const hidden = body.length - shown.length;
  return (
    <>
      {head.map((l, i) => (
        <Text key={`h${i}`}>{fit(l, width)}</Text>
      ))}
      {shown.map((l, i) => (
        <BodyLine key={`r${i}`} line={fit(l, width)} name={2 + t.rows[i]!.test.length} />
      ))}
      {hidden > 0 ? <C dim>{`  … ${hidden} more test${hidden === 1 ? "" : "s"}`}</C> : null}
    </>
  );
}

/** The table's legend, its first line only when compact. */
function TableLegend({ t, width, compact }: { t: TableView; width: number; compact: boolean }) {
  return (
    <>
      {tableLegend(t, width)
        .slice(0, compact ? 1 : undefined)
        .map((l, i) => (
          <C key={`l${i}`} dim>
            {fit(l, width)}
          </C>
        ))}
    </>
  );
}

/** A ladder run: one table per pair, each under its `numerator / denominator` title, one legend for all. */
function LadderTablesView({
  state,
  width,
  maxRows,
  compact,
}: {
  state: ViewState;
  width: number;
  maxRows: number;
  compact: boolean;
}) {
  const blocks = state.ladder;
  return (
    <Box flexDirection="column">
      {blocks.map((t, b) => (
        <Box key={`b${b}`} flexDirection="column">
          <C bold>{fit(`${t.numerator} / ${t.denominator}`, width)}</C>
          <TableBody t={t} width={width} maxRows={maxRows} compact={compact} />
        </Box>
      ))}
      <TableLegend
        t={{ ...blocks[0]!, numerator: "server", rows: blocks.flatMap((b) => b.rows) }}
        width={width}
        compact={compact}
      />
    </Box>
  );
}

/** The forest plot under the table (lines from src/core/report/forest.ts): every cell's estimate and interval. */
export function ForestView({ forest, width }: { forest: Forest; width: number }) {
  return (
    <Box flexDirection="column">
      {forestLines(forest, width).map((l, i) => (
        <Text key={i}>{fit(l, width)}</Text>
      ))}
    </Box>
  );
}

/** Whether the forest plot has anything to draw: a cell with an estimate. */
export function forestDrawable(f: Forest): boolean {
  return f.groups.some((g) => g.rows.some((r) => r.estimate !== null));
}

/** Lines RatioTableView takes for `rows` body rows out of `total`, with a legend of `legend` lines; a ladder of
 *  `blocks` tables repeats the head and rows per table, each under a title line. */
export function tableHeight(rows: number, total: number, compact = false, legend = 2, blocks = 1): number {
  const one = (compact ? 1 : 3) + rows + (rows < total ? 1 : 0);
  return blocks > 1 ? blocks * (1 + one) + legend : one + legend;
}
