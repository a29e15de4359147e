/**
 * Presentational components of the run screen. They take the view state (src/tui/state.ts) and a size, and hold
 * no logic beyond layout: every figure was computed by the reducer or src/tui/format.ts.
 * Colour only decorates: every state also has a word or a mark, so the screen reads the same with NO_COLOR.
 */
import React, { createContext, useContext } from "react";
import { Box, Static, Text } from "ink";
import type { CellRecord } from "../core/model/results.ts";
import { forestHeight, forestLines, type Forest } from "../core/report/forest.ts";
import type { IntervalSample } from "../core/model/sysbench/result.ts";
import { bar, duration, figure, fit, sparkline, tableLegend, tableLines } from "./format.ts";
import {
  SPARK_WINDOW_SECONDS,
  failureMessage,
  selectedRecord,
  type FailureView,
  type LiveView,
  type LogLine,
  type Progress,
  type TableView,
  type ViewState,
} from "./state.ts";

/** Whether colour is on (off with NO_COLOR). */
export const ColorContext = createContext(true);

type Color = "green" | "red" | "yellow" | "cyan" | "gray" | "magenta";

function C({
  color,
  bold,
  dim,
  children,
}: {
  color?: Color;
  bold?: boolean;
  dim?: boolean;
  children: React.ReactNode;
}) {
  const on = useContext(ColorContext);
  return (
    <Text color={on ? color : undefined} bold={on ? bold : undefined} dimColor={on ? dim : undefined}>
      {children}
    </Text>
  );
}

export interface Size {
  width: number;
  height: number;
}

// ---- the scrolling log (finished cells, failures, warnings) ----

const LOG_MARK: Record<LogLine["kind"], string> = {
  ok: "✓",
  failed: "✗",
  skipped: "»",
  server: "●",
  warning: "!",
  info: "·",
};
const LOG_COLOR: Record<LogLine["kind"], Color | undefined> = {
  ok: "green",
  failed: "red",
  skipped: "yellow",
  server: "cyan",
  warning: "yellow",
  info: undefined,
};

export function LogView({ log }: { log: LogLine[] }) {
  return (
    <Static items={log}>
      {(l) => (
        <Text key={l.id}>
          <C color={LOG_COLOR[l.kind]}>{LOG_MARK[l.kind]}</C> {l.text}
        </Text>
      )}
    </Static>
  );
}

// ---- header ----

export function Header({ state, width }: { state: ViewState; width: number }) {
  const servers = state.servers.map((s) =>
    `${s.id} ${s.version ?? (s.status === "failed" ? "(failed)" : s.status === "starting" ? "(starting)" : "")}`.trim(),
  );
  const identity = state.identity
    ? state.identity.differences === 0
      ? `config ok (${state.identity.variables} equal)`
      : `config ${state.identity.differences} difference${state.identity.differences === 1 ? "" : "s"}`
    : "config …";
  const line1 = `twinbench · ${state.scenario ?? "…"}${state.runId ? ` · run ${state.runId}` : ""} · storage ${state.storage ?? "…"} · ${state.transport ?? "…"}`;
  const line2 = `${servers.join(" vs ") || "…"} · `;
  return (
    <Box flexDirection="column">
      <C color="cyan" bold>
        {fit(line1, width)}
      </C>
      <Text>
        {fit(line2, Math.max(0, width - identity.length))}
        <C color={state.identity ? (state.identity.differences === 0 ? "green" : "yellow") : undefined}>
          {fit(identity, width)}
        </C>
      </Text>
    </Box>
  );
}

// ---- matrix progress ----

/** The ETA as the forecast gives it: the budget's stop, a lower bound before any forecast ("ETA ≥ 5m 36s"), or the time left. */
function etaText(p: Progress): string {
  if (p.budgetStops) return `budget stops it in ${duration(p.etaSeconds)}`;
  return `ETA ${p.etaMinimum ? "≥ " : ""}${duration(p.etaSeconds)}`;
}

export function ProgressLine({ state, width }: { state: ViewState; width: number }) {
  const p = state.progress;
  const counts = `cells ${p.totalKnown ? `${p.done}/${p.total}` : p.total > 0 ? `${p.done}/~${p.total}` : p.done}${p.failed ? ` · ${p.failed} failed` : ""}${p.skipped ? ` · ${p.skipped} skipped` : ""}`;
  const eta = state.finished ? "ETA done" : etaText(p);
  const times = `elapsed ${duration(p.elapsedSeconds)} · ${eta}${p.likely && !state.finished ? ` · ${p.likely}` : ""}`;
  const barW = Math.max(4, Math.min(40, width - counts.length - times.length - 4));
  return (
    <Text>
      {counts} <C color={p.failed ? "red" : "green"}>{bar(p.total ? p.done / p.total : 0, barW)}</C> {times}
    </Text>
  );
}

// ---- what is happening now ----

export function StatusLine({ state, width }: { state: ViewState; width: number }) {
  if (!state.finished && (state.ui.cancelRequests > 0 || state.cancelling)) {
    const forced = state.ui.cancelRequests >= 2;
    return (
      <C color="yellow" bold>
        {fit(forced ? "forcing: removing this run's resources…" : "cleaning up… (Ctrl-C again to force)", width)}
      </C>
    );
  }
  const cur = state.current;
  if (cur) {
    const repeats = Math.max(
      1,
      ...state.cells
        .filter((c) => c.server === cur.cell.server && c.test === cur.cell.test && c.threads === cur.cell.threads)
        .map((c) => c.repeat),
    );
    const t = state.live?.samples.at(-1)?.t ?? 0;
    const text =
      `▶ ${cur.phase === "warmup" ? "warm-up" : "measure"} · ${cur.cell.server} · ${cur.cell.test} · threads ${cur.cell.threads}` +
      (cur.phase === "measure" ? ` · repeat ${cur.cell.repeat}/${repeats}` : "") +
      ` · ${t}s${cur.seconds ? `/${cur.seconds}s` : ""}`;
    return <C color="magenta">{fit(text, width)}</C>;
  }
  const st = state.step;
  if (st) {
    let text: string;
    if (st.phase === "images")
      text = `▶ images · ${st.image ?? "…"}${st.imageStep ? `: ${st.imageStep}` : ""}${st.imageLine ? ` · ${st.imageLine.trim()}` : ""}`;
    else
      text = `▶ ${st.phase}${st.server ? ` · ${st.server}` : ""}${st.test ? ` · ${st.test}` : ""}${st.threads ? ` · threads ${st.threads}` : ""}${st.detail ? `: ${st.detail}` : ""}`;
    if (st.seconds !== undefined) text += ` · ${st.seconds}s`;
    return <C color="magenta">{fit(text, width)}</C>;
  }
  return <Text>{fit("▶ starting…", width)}</Text>;
}

// ---- live figures ----

interface FigureRow {
  label: string;
  value: (s: IntervalSample) => number | null;
}

export function LiveFigures({ live, width }: { live: LiveView; width: number }) {
  const last = live.samples.at(-1);
  const pct = last?.latencyPercentile;
  const rows: FigureRow[] = [
    { label: "tps", value: (s) => s.tps },
    { label: "qps", value: (s) => s.qps },
    { label: pct ? `p${pct} ms` : "lat ms", value: (s) => s.latencyMs },
    { label: "err/s", value: (s) => s.errorsPerSec },
    { label: "reconn/s", value: (s) => s.reconnectsPerSec },
  ];
  const sparkW = Math.max(0, Math.min(SPARK_WINDOW_SECONDS, width - 22));
  return (
    <Box flexDirection="column">
      {rows.map((r) => {
        const series = live.samples.map(r.value).filter((x): x is number => x !== null && Number.isFinite(x));
        const v = last ? r.value(last) : null;
        const warn = (r.label === "err/s" || r.label === "reconn/s") && (v ?? 0) > 0;
        return (
          <Box key={r.label}>
            <Text>{`  ${r.label.padEnd(9)}`}</Text>
            <C color={warn ? "red" : undefined} bold>
              {figure(v).padStart(10)}
            </C>
            <Text> </Text>
            <C color="cyan">{sparkline(series, sparkW)}</C>
          </Box>
        );
      })}
    </Box>
  );
}

// ---- the ratio table ----

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
        <Text key={`r${i}`}>{fit(l, width)}</Text>
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
        t={{ ...blocks[0]!, numerator: "server", denominator: blocks[0]!.denominator }}
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

// ---- failures ----

export function FailuresView({ failures, width, max }: { failures: FailureView[]; width: number; max: number }) {
  if (failures.length === 0 || max <= 0) return null;
  const shown = failures.slice(-Math.max(1, max - 1));
  const hidden = failures.length - shown.length;
  return (
    <Box flexDirection="column">
      <C color="red" bold>{`failures (${failures.length})${hidden ? `, latest ${shown.length}:` : ":"}`}</C>
      {shown.map((f) => {
        const prefix = f.kind === "skipped" ? "  » skipped " : "  ✗ ";
        const w = Math.max(1, width - prefix.length);
        const text = `${f.title}: ${f.message}`;
        const lines = text.length <= w ? [text] : [text.slice(0, w), fit(text.slice(w).trimStart(), w)];
        return (
          <Box key={f.key}>
            <C color={f.kind === "skipped" ? "yellow" : "red"}>{prefix}</C>
            <Box flexDirection="column">
              {lines.map((l, i) => (
                <Text key={i}>{l}</Text>
              ))}
            </Box>
          </Box>
        );
      })}
    </Box>
  );
}

/** Lines FailuresView takes for the given failures. */
export function failuresHeight(failures: FailureView[], width: number, max: number): number {
  if (failures.length === 0 || max <= 0) return 0;
  const shown = failures.slice(-Math.max(1, max - 1));
  // A failure takes up to two lines: sysbench's message is the point of the list.
  return (
    1 +
    shown.reduce((n, f) => n + ((f.kind === "skipped" ? 12 : 4) + `${f.title}: ${f.message}`.length > width ? 2 : 1), 0)
  );
}

// ---- details of a finished cell ----

export function DetailsView({ state, width }: { state: ViewState; width: number }) {
  const sel = selectedRecord(state);
  if (!sel) return <C dim>no finished cell yet</C>;
  const lines = detailLines(sel.record);
  return (
    <Box flexDirection="column">
      <C bold>
        {fit(
          `details ${sel.index + 1}/${state.finishedKeys.length}: ${sel.record.key} (${sel.record.status}) ↑↓ select, d close`,
          width,
        )}
      </C>
      {lines.map((l, i) => (
        <Text key={i}>{fit(`  ${l}`, width)}</Text>
      ))}
    </Box>
  );
}

export function detailLines(r: CellRecord): string[] {
  const f2 = (n: number | null | undefined) => (n === null || n === undefined ? "-" : n.toFixed(2));
  const m = r.metrics;
  const out: string[] = [];
  if (m) {
    const l = m.latencyMs;
    out.push(
      `qps ${f2(m.qps)} · tps ${f2(m.tps)} · queries ${m.queries ?? "-"} · transactions ${m.transactions ?? "-"}`,
    );
    out.push(
      `latency ms min ${f2(l.min)} · avg ${f2(l.avg)} · max ${f2(l.max)}${l.percentile ? ` · p${l.percentile} ${f2(l.percentileValue)}` : ""}`,
    );
    out.push(
      `errors ${m.ignoredErrors ?? "-"} · reconnects ${m.reconnects ?? "-"} · events ${m.events ?? "-"} · time ${m.totalTime ?? "-"} s · ${m.intervals.length} intervals`,
    );
  }
  if (r.status !== "ok") out.push(`${r.status}: ${failureMessage(r)}`);
  if (r.error && m?.fatal.length) out.push(`error: ${r.error}`);
  out.push(`raw log: ${r.raw}`);
  out.push(`started ${r.startedAt} · ended ${r.endedAt}`);
  return out;
}

// ---- end of run ----

export function FinalSummary({ state, width }: { state: ViewState; width: number }) {
  const f = state.finished;
  if (!f) return null;
  const color: Color = f.status === "ok" ? "green" : f.status === "cancelled" ? "yellow" : "red";
  return (
    <Box flexDirection="column">
      <C color={color} bold>
        {fit(
          `run ${f.status}: ${f.cellsOk} cells ok, ${f.cellsFailed} failed${f.message ? ` (${f.message})` : ""}`,
          width,
        )}
      </C>
      <Text>{fit(`results: ${f.dir}`, width)}</Text>
      <Text>{fit(`report:  ${f.reportHtml}`, width)}</Text>
      <Text>{`exit code ${f.exitCode}`}</Text>
    </Box>
  );
}

export function Footer({ state, width }: { state: ViewState; width: number }) {
  if (state.finished) return null;
  const keys =
    state.ui.cancelRequests > 0 || state.cancelling
      ? "Ctrl-C force quit"
      : "q cancel · s skip cell · ↑↓ select · d details";
  return <C dim>{fit(keys, width)}</C>;
}

// ---- the whole screen ----

/** The run screen: a pure function of the view state and the terminal size. */
// ---- adaptive runs: each cell's interval narrowing ----

/** Lines of the adaptive view: a header, then one per cell (at most `max` cells). */
export function adaptiveLines(state: ViewState, width: number, max: number): string[] {
  const a = state.adaptive;
  if (!a) return [];
  const open = a.cells.filter((c) => !c.done).length;
  const budget = a.budgetLeftSeconds === null ? "" : ` · budget left ${duration(a.budgetLeftSeconds)}`;
  const eta = etaText(state.progress);
  const lines = [
    fit(`round ${a.round} · instance ${a.instance} · ${open}/${a.cells.length} cells open · ${eta}${budget}`, width),
  ];
  for (const c of a.cells.slice(0, max)) {
    const est = c.estimate === null ? "-" : c.estimate.toFixed(1);
    const iv = c.low === null || c.high === null ? "" : ` [${c.low.toFixed(1)}–${c.high.toFixed(1)}]`;
    const trail = c.widths
      .slice(-4)
      .map((w) => (w === null ? "?" : `±${w.toFixed(1)}`))
      .join(" → ");
    lines.push(fit(`  ${c.test}@${c.threads}  ${est}${iv} ${c.mark}  ${trail}%  n=${c.n}  ${c.reason}`, width));
  }
  if (a.cells.length > max) lines.push(fit(`  … ${a.cells.length - max} more`, width));
  return lines;
}

export function AdaptiveRounds({ state, width, max }: { state: ViewState; width: number; max: number }) {
  return (
    <Box flexDirection="column">
      {adaptiveLines(state, width, max).map((l, i) => (
        <Text key={i}>{l}</Text>
      ))}
    </Box>
  );
}

export function RunView({ state, size }: { state: ViewState; size: Size }) {
  const width = Math.max(40, size.width);
  const budget = Math.max(12, size.height - 1);
  const finished = Boolean(state.finished);
  const showLive = !finished && !state.ui.details && state.live !== undefined && state.live.samples.length > 0;
  const fixed = 2 + 1 + (finished ? 4 : 1) + (showLive ? 5 : 0) + (finished ? 0 : 1);
  let room = budget - fixed;
  let detailsH = 0;
  if (state.ui.details && !finished) {
    detailsH = Math.min(room, 8);
    room -= detailsH;
  }
  // Adaptive runs: the rounds' header and up to 4 cells, when there is room beside the table.
  let adaptiveMax = 0;
  if (state.adaptive && !finished && !(state.ui.details && !finished) && room >= 6) {
    adaptiveMax = Math.min(4, state.adaptive.cells.length, room - 5);
    room -= adaptiveLines(state, width, adaptiveMax).length;
  }
  const testCount = state.table?.rows.length ?? 0;
  const failuresWanted = state.failures.length ? Math.min(state.failures.length + 1, 4) : 0;
  let rows = 0;
  let compact = false;
  // A ladder run shows one table per pair (state.ladder); a two-server run its one table.
  const blocks = state.ladder.length > 1 ? state.ladder.length : 1;
  const shownTable = blocks > 1 ? state.ladder[0] : state.table;
  if (shownTable && !(state.ui.details && !finished)) {
    const keep = failuresHeight(state.failures, width, 2); // the failures header and the latest one stay
    const legend = tableLegend(shownTable, width).length;

    compact = tableHeight(testCount, testCount, false, legend, blocks) > room - keep;
    const legendShown = compact ? 1 : legend; // a short screen keeps the legend's first line only
    rows = Math.min(testCount, Math.floor((room - keep - tableHeight(0, 0, compact, legendShown, blocks)) / blocks));
    if (rows < testCount) rows = Math.max(1, rows - 1); // room for the "… more" line
    room -= tableHeight(rows, testCount, compact, legendShown, blocks);
  }
  // The forest plot of the same cells, when the whole of it fits beside the failures' header and latest one.
  let forestShown = false;
  // (A ladder run has no single table to plot: its blocks are drawn instead.)
  const forest = blocks > 1 ? undefined : state.table?.forest;
  if (rows > 0 && rows === testCount && forest && forestDrawable(forest)) {
    const need = forestHeight(forest);
    if (room - failuresHeight(state.failures, width, 2) >= need) {
      forestShown = true;
      room -= need;
    }
  }
  // Fewer failures when their messages wrap onto a second line.
  let failuresMax = Math.max(0, Math.min(failuresWanted, room));
  while (failuresMax > 0 && failuresHeight(state.failures, width, failuresMax) > room) failuresMax--;
  return (
    <Box flexDirection="column" width={width}>
      <LogView log={state.log} />
      <Header state={state} width={width} />
      <ProgressLine state={state} width={width} />
      {finished ? <FinalSummary state={state} width={width} /> : <StatusLine state={state} width={width} />}
      {showLive ? <LiveFigures live={state.live!} width={width} /> : null}
      {detailsH > 0 ? <DetailsView state={state} width={width} /> : null}
      {adaptiveMax > 0 ? <AdaptiveRounds state={state} width={width} max={adaptiveMax} /> : null}
      {rows > 0 ? <RatioTableView state={state} width={width} maxRows={rows} compact={compact} /> : null}
      {forestShown && forest ? <ForestView forest={forest} width={width} /> : null}
      <FailuresView failures={state.failures} width={width} max={failuresMax} />
      <Footer state={state} width={width} />
    </Box>
  );
}
