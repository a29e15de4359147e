/**
 * The run screen's derived view: what depends on everything else (progress, ETA, the live ratio tables and ladder),
 * recomputed after each event, and an adaptive run's view after each round.
 */
import type { RunEvent } from "../core/model/events.ts";
import { stopReasonWords } from "../core/plan/adaptive.ts";
import type { CellRecord } from "../core/model/results.ts";
import { ratioTableFromSides } from "../core/stats/ratio.ts";
import type { RatioTable } from "../core/stats/ratio-model.ts";
import { liveLadder } from "../core/stats/ladder.ts";
import { forestOf } from "../core/report/forest.ts";
import { answerBlock } from "../core/report/first-screen.ts";
import { sideNamesOf } from "../core/report/answer.ts";
import { cellVerdictText } from "../core/model/vocabulary.ts";
import { verdictOf } from "../core/model/verdict.ts";
import { DEFAULT_MARGIN_PCT } from "../core/model/scenario/schema.ts";
import {
  type TableCellView,
  type TableView,
  type ViewState,
  type AdaptiveCellView,
  type AdaptiveView,
  type Progress,
} from "./view-state.ts";

export function adaptiveView(
  prev: AdaptiveView | undefined,
  e: Extract<RunEvent, { type: "round-finished" }>,
  runMargin: number | undefined,
): AdaptiveView {
  const margin = e.marginPct ?? runMargin ?? DEFAULT_MARGIN_PCT;
  const cells = e.cells.map((c): AdaptiveCellView => {
    const old = prev?.cells.find((x) => x.test === c.test && x.threads === c.threads);
    // A cell that stopped earlier keeps its history: only cells that ran this round add a width.
    const widths = old && old.n === c.n && old.done ? old.widths : [...(old?.widths ?? []), c.halfWidthPct];
    return {
      ...c,
      widths,
      word: cellVerdictText({ verdict: verdictOf(c.low, c.high, margin) }),
      reason: stopReasonWords(c, e.precisionPct),
    };
  });
  return {
    round: e.round,
    instance: e.instance,
    etaSeconds: e.etaSeconds,
    etaMinimum: e.etaMinimum === true,
    budgetLeftSeconds: e.budgetLeftSeconds,
    at: e.at,
    cells,
  };
}

export const seconds = (from: string | undefined, to: string | undefined): number => {
  if (!from || !to) return 0;
  const d = (Date.parse(to) - Date.parse(from)) / 1000;
  return Number.isFinite(d) && d > 0 ? d : 0;
};

/** Recompute what depends on everything else: progress, ETA, the ratio table. */
export function derive(s: ViewState): ViewState {
  const total = s.cells.length;
  const recs = s.finishedKeys.map((k) => s.records[k]).filter((r): r is CellRecord => r !== undefined);
  const done = recs.length;
  const failed = recs.filter((r) => r.status === "failed").length;
  const skipped = recs.filter((r) => r.status === "skipped").length;
  const elapsedSeconds = seconds(s.startedAt, s.now);
  let etaSeconds: number | null = null;
  if (s.finished) etaSeconds = 0;
  else if (total > 0 && done >= total) etaSeconds = 0;
  else if (done > 0 && s.firstCellAt && total > 0) {
    // Observed pace of the measured cells (warm-ups and restores included), blended with the plan's estimate.
    const perCell = seconds(s.firstCellAt, s.now) / done;
    const observed = perCell * (total - done);
    const planned = Math.max(0, s.estimateSeconds - elapsedSeconds);
    const w = done / total;
    etaSeconds = w * observed + (1 - w) * planned;
  } else if (s.estimateSeconds > 0) etaSeconds = Math.max(0, s.estimateSeconds - elapsedSeconds);
  let shownTotal = Math.max(total, done);
  let totalKnown = true;
  let budgetStops = false;
  let likely: string | null = null;
  let etaMinimum = false;
  // Adaptive runs: the plan holds only the first round; the count and the ETA are the forecast's (never past the
  // budget), else the latest round's; before either there is none (not the first round's count).
  if (s.forecast || s.adaptive) {
    const f = s.forecast?.forecast;
    totalKnown = false;
    shownTotal = s.finished ? done : 0; // unknown until a forecast says how many cells the run will likely measure
    etaSeconds = s.finished ? 0 : null;
    if (f) {
      shownTotal = Math.max(done, f.measuredCells);
      budgetStops = f.budgetStops;
      likely = `cells likely to reach ±${f.precisionPct}%: ${f.cellsLikely} of ${f.cells}`;
      if (!s.finished) etaSeconds = Math.max(0, f.remainingSeconds - seconds(s.forecast!.at, s.now));
    } else if (s.adaptive && !s.finished && s.adaptive.etaSeconds !== null) {
      etaSeconds = Math.max(0, s.adaptive.etaSeconds - seconds(s.adaptive.at, s.now));
      etaMinimum = s.adaptive.etaMinimum;
    }
  }
  const progress: Progress = {
    done,
    total: shownTotal,
    failed,
    skipped,
    elapsedSeconds,
    etaSeconds,
    etaMinimum,
    totalKnown,
    budgetStops,
    likely,
  };
  return { ...s, progress, table: tableOf(s), ladder: ladderOf(s) };
}

/** The live table's axes (tests and thread counts in plan order) and the finished cells' latest records. */
function liveInputs(s: ViewState): { tests: string[]; threads: number[]; recs: CellRecord[] } {
  const tests: string[] = [];
  const threads: number[] = [];
  for (const c of s.cells) {
    if (!tests.includes(c.test)) tests.push(c.test);
    if (!threads.includes(c.threads)) threads.push(c.threads);
  }
  const recs = s.finishedKeys.map((k) => s.records[k]).filter((r): r is CellRecord => r !== undefined);
  return { tests, threads, recs };
}

function tableOf(s: ViewState): TableView | null {
  if (s.servers.length < 2 || s.cells.length === 0) return null;
  const [num, den] = s.pairs?.[0] ? [s.pairs[0].numerator, s.pairs[0].denominator] : [s.servers[0].id, s.servers[1].id];
  const { tests, threads, recs } = liveInputs(s);
  // The servers as the report's title names them (family and version), once the servers said so; else their ids.
  const names = sideNamesOf(s.servers, { numerator: num, denominator: den });
  const t: RatioTable = ratioTableFromSides(
    { id: num, label: names.numerator, records: recs.filter((r) => r.server === num) },
    { id: den, label: names.denominator, records: recs.filter((r) => r.server === den) },
    tests,
    threads,
    // An adaptive run (its forecast or its rounds seen) gets the report's sequential stages, so the words agree.
    {
      metric: "qps",
      pairing: "paired",
      sequential: s.adaptive !== undefined || s.forecast !== undefined,
      marginPct: s.marginPct ?? DEFAULT_MARGIN_PCT,
    },
  );
  const running = s.current && s.current.phase === "measure" ? s.current.cell : undefined;
  return {
    numerator: num,
    denominator: den,
    threads,
    marginPct: t.marginPct,
    forest: forestOf(t),
    names,
    answer: answerBlock(t, names),
    rows: t.rows.map((r) => ({
      test: r.test,
      cells: r.cells.map((c): TableCellView => {
        const isRunning =
          running !== undefined &&
          running.test === r.test &&
          running.threads === c.threads &&
          (running.server === num || running.server === den);
        const status: TableCellView["status"] = c.status === "missing" && isRunning ? "running" : c.status;
        return {
          threads: c.threads,
          ratio: c.ratio,
          word: c.status === "ok" ? cellVerdictText(c) : "",
          status,
        };
      }),
    })),
  };
}

/** A ladder run's live tables, one per pair (rows and words from core's liveLadder); empty with one pair. */
function ladderOf(s: ViewState): TableView[] {
  if (!s.pairs || s.pairs.length < 2 || s.cells.length === 0) return [];
  const { tests, threads, recs } = liveInputs(s);
  const running = s.current && s.current.phase === "measure" ? s.current.cell : undefined;
  return liveLadder(recs, s.pairs, tests, threads, {
    sequential: s.adaptive !== undefined || s.forecast !== undefined,
  }).map((b) => ({
    numerator: b.numerator,
    denominator: b.denominator,
    threads,
    marginPct: b.marginPct,
    rows: b.rows.map((r) => ({
      test: r.test,
      cells: r.cells.map((c): TableCellView => {
        const isRunning =
          running !== undefined &&
          running.test === r.test &&
          running.threads === c.threads &&
          (running.server === b.numerator || running.server === b.denominator);
        return { ...c, status: c.status === "missing" && isRunning ? "running" : c.status };
      }),
    })),
  }));
}
