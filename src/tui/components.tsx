/**
 * Presentational components of the run screen. They take the view state (src/tui/state.ts) and a size, and hold
 * no logic beyond layout: every figure was computed by the reducer or src/tui/format.ts.
 * Colour only decorates: every state and verdict also has a word, so the screen reads the same with NO_COLOR.
 */
import { Box, Static, Text } from "ink";
import { forestHeight } from "../core/report/forest.ts";
import type { IntervalSample } from "../core/model/sysbench/result.ts";
import { bar, duration, figure, fit, sparkline, tableLegend } from "./format.ts";
import { SPARK_WINDOW_SECONDS, type LiveView, type LogLine, type Progress, type ViewState } from "./view-state.ts";
import { C, type Color } from "./color.tsx";
import {
  FinalAnswerView,
  ForestView,
  RatioTableView,
  finalAnswerLines,
  forestDrawable,
  tableHeight,
} from "./table-views.tsx";
import { DetailsView, FailuresView, failuresHeight } from "./detail-views.tsx";

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
      {(state.secondRun ?? []).map((l, i) => (
        <Text key={`second-${i}`}>{fit(l, width)}</Text>
      ))}
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
    // The latest half-widths, as many of the last four as the line has room for (at least the latest).
    const line = (k: number) => {
      const trail = c.widths
        .slice(-k)
        .map((w) => (w === null ? "?" : `±${w.toFixed(1)}`))
        .join(" → ");
      return `  ${c.test}@${c.threads}  ${est}${iv} ${c.word}  ${trail}%  n=${c.n}  ${c.reason}`;
    };
    let k = 4;
    while (k > 1 && line(k).length > width) k--;
    lines.push(fit(line(k), width));
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
  const finalLines = 4 + (state.secondRun?.length ?? 0);
  const fixed = 2 + 1 + (finished ? finalLines : 1) + (showLive ? 5 : 0) + (finished ? 0 : 1);
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
  // A finished two-server run shows the answer in the report's words in place of the live table.
  const answer = finished && blocks === 1 && state.table?.answer ? finalAnswerLines(state.table, width) : null;
  if (answer) room -= answer.length;
  else if (shownTable && !(state.ui.details && !finished)) {
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
      {answer ? <FinalAnswerView t={state.table!} width={width} /> : null}
      {rows > 0 ? <RatioTableView state={state} width={width} maxRows={rows} compact={compact} /> : null}
      {forestShown && forest ? <ForestView forest={forest} width={width} /> : null}
      <FailuresView failures={state.failures} width={width} max={failuresMax} />
      <Footer state={state} width={width} />
    </Box>
  );
}
