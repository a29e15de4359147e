/**
 * The ladder table: several servers, each against one base, in one run. One {@link RatioTable} per pair
 * (the same estimator and verdicts as the two-server table: ratioTableFromSides, estimateRun, verdict.ts), then one
 * Benjamini–Hochberg adjustment over every pair × cell, so the false-discovery rate covers the whole ladder.
 *
 * Which pairs a run has is the scenario's business (src/core/model/scenario/pairs.ts `comparisonPairs`): every function
 * here takes the list of pairs. A ladder is used only with two or more pairs; one pair is the two-server table.
 * Pure: records in, model out; the renderers of the ladder (text, markdown, csv, html, compare, live rows) live here
 * too, so the two-server formatters stay as they are.
 */
import { roundTo } from "../base/units.ts";
import type { CellRecord, RunManifest } from "../model/results.ts";
import { adaptiveRepeats } from "../model/scenario/schema.ts";
import { DEFAULT_CONFIDENCE } from "./estimate.ts";
import { estimateUnpaired } from "./unpaired.ts";
import { benjaminiHochberg, expectedFalseVerdicts, jointFdr } from "./fdr.ts";
import { DEFAULT_MARGIN_PCT } from "../model/scenario/schema.ts";
import { FDR, cellVerdict } from "../model/verdict.ts";
import { cellVerdictText } from "../model/vocabulary.ts";
import { axes, ratioTableFromSides, ratioTableJson } from "./ratio.ts";
import { adaptiveStops } from "./records.ts";
import { type RatioCell, type RatioTable, type RatioTableOptions } from "./ratio-model.ts";
import { type Metric } from "./metric.ts";

/** One pair of a ladder: `numerator` against `denominator` (the base). Same shape as pairs.ts `comparisonPairs`. */
export interface LadderPair {
  numerator: string;
  denominator: string;
}

/** The multiple-testing reading over the whole ladder. */
export interface LadderMethod {
  pairs: number;
  /** pair × cell with an interval, and the false faster/slower verdicts chance alone gives over them. */
  intervals: number;
  expectedFalse: number;
  /** faster/slower verdicts over every pair, and how many hold at FDR under BH over every pair × cell. */
  verdicts: number;
  verdictsAtFdr: number;
}

/** Several servers against one base: one block (a RatioTable) per pair, q-values over every pair × cell. */
export interface Ladder {
  /** The base's id (every block's denominator), or "" when the blocks have different denominators. */
  base: string;
  metric: Metric;
  inverted: boolean;
  percentile: number;
  confidence: number;
  marginPct: number;
  tests: string[];
  threads: number[];
  blocks: RatioTable[];
  method: LadderMethod;
  /** "run": pairs of one run (paired repeats); "change": two runs compared, each block NEW / BASE of one pair's ratio. */
  kind: "run" | "change";
}

/** Is this a ladder (more than one pair)? The two-server layout is kept for one pair. */
export function isLadder(pairs: readonly LadderPair[] | undefined): pairs is readonly LadderPair[] {
  return pairs !== undefined && pairs.length > 1;
}

/**
 * Join per-pair tables into a ladder: their q-values and FDR readings are re-read under one Benjamini–Hochberg
 * adjustment over every pair × cell with a p-value (the per-table q only covered that table). The direction,
 * equivalence and verdict kind do not depend on q and stay. Load-bound cells keep no verdict (their fdr is null).
 * The tables are copied, not changed.
 */
export function ladderFromTables(tables: readonly RatioTable[], kind: Ladder["kind"] = "run"): Ladder {
  const blocks = jointFdr(tables);
  const cells: RatioCell[] = blocks.flatMap((t) => t.rows.flatMap((r) => r.cells));
  const first = blocks[0];
  const base = blocks.every((t) => t.denominator === first?.denominator) ? (first?.denominator ?? "") : "";
  const decided = cells.filter((c) => c.direction === "faster" || c.direction === "slower");
  const intervals = blocks.reduce((x, t) => x + t.method.intervals, 0);
  const confidence = first?.confidence ?? DEFAULT_CONFIDENCE;
  return {
    base,
    metric: first?.metric ?? "qps",
    inverted: first?.inverted ?? false,
    percentile: first?.percentile ?? 95,
    confidence,
    marginPct: first?.marginPct ?? DEFAULT_MARGIN_PCT,
    tests: first?.rows.map((r) => r.test) ?? [],
    threads: first ? [...first.threads] : [],
    blocks,
    method: {
      pairs: blocks.length,
      intervals,
      expectedFalse: expectedFalseVerdicts(intervals, confidence),
      verdicts: decided.length,
      verdictsAtFdr: decided.filter((c) => c.fdr === "holds").length,
    },
    kind,
  };
}

/**
 * The ladder of one run: for each pair the two-server table of paired repeats (labels are the server ids, since
 * several servers share a family), then q over every pair × cell. Null with fewer than two pairs (the two-server
 * table covers one pair). Pure.
 */
export function buildLadder(
  manifest: RunManifest,
  cells: readonly CellRecord[],
  pairs: readonly LadderPair[],
  opts: Pick<RatioTableOptions, "metric" | "marginPct"> = {},
): Ladder | null {
  if (!isLadder(pairs)) return null;
  const { tests, threads } = axes(manifest, cells);
  const tables = pairs.map((p) =>
    ratioTableFromSides(
      { id: p.numerator, label: p.numerator, records: cells.filter((c) => c.server === p.numerator) },
      { id: p.denominator, label: p.denominator, records: cells.filter((c) => c.server === p.denominator) },
      tests,
      threads,
      {
        pairing: "paired",
        percentile: manifest.scenario.workload.percentile ?? 95,
        sequential: adaptiveRepeats(manifest.scenario.workload) !== undefined,
        stops: adaptiveStops(manifest),
        ...(opts.metric ? { metric: opts.metric } : {}),
        ...(opts.marginPct !== undefined ? { marginPct: opts.marginPct } : {}),
      },
    ),
  );
  return ladderFromTables(tables, "run");
}

// ---- two ladder runs: the change of each pair's ratio ----------------------------------------------------------

/** Each repeat's pair ratio of a cell (numerator / base, or base / numerator for latency), null where a side lacks one. */
function pairRatios(c: RatioCell, inverted: boolean): number[] {
  const out: number[] = [];
  c.numeratorValues.forEach((a, i) => {
    const b = c.denominatorValues[i];
    if (a === null || b === null || b === undefined) return;
    out.push(inverted ? b / a : a / b);
  });
  return out;
}

/**
 * One pair's change between two runs: per cell, (pair ratio in NEW) / (pair ratio in BASE) × 100, from each run's
 * repeats' pair ratios (unpaired across the runs: estimateUnpaired on their logs, variance moderated over the cells).
 * With one run a side the interval holds the variation between repeats, not between runs (the method line says so).
 */
export function changeTable(baseBlock: RatioTable, newBlock: RatioTable, marginPct = baseBlock.marginPct): RatioTable {
  const inverted = baseBlock.inverted;
  const inputs: Array<{ a: number[]; b: number[]; row: number; col: number }> = [];
  const med = (xs: number[]) => {
    if (!xs.length) return null;
    const s = [...xs].sort((x, y) => x - y);
    const m = s.length >> 1;
    return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
  };
  const rows = baseBlock.rows.map((br, row) => {
    const nr = newBlock.rows.find((r) => r.test === br.test);
    return {
      test: br.test,
      cells: br.cells.map((bc, col): RatioCell => {
        const nc = nr?.cells.find((c) => c.threads === bc.threads);
        const b = bc.status === "ok" ? pairRatios(bc, inverted) : [];
        const a = nc && nc.status === "ok" ? pairRatios(nc, inverted) : [];
        const status = !nc || nc.status === "missing" ? "missing" : bc.status !== "ok" ? bc.status : nc.status;
        const ma = med(a);
        const mb = med(b);
        const cell: RatioCell = {
          threads: bc.threads,
          ratio: null,
          estimate: null,
          low: null,
          high: null,
          verdict: "unknown",
          direction: "unknown",
          equivalence: "unknown",
          fdr: null,
          n: 0,
          status,
          instances: 1,
          df: null,
          p: null,
          q: null,
          unstable: [...(nc?.unstable ?? []).map((u) => `NEW: ${u}`), ...bc.unstable.map((u) => `BASE: ${u}`)],
          cvNumerator: null,
          cvDenominator: null,
          numeratorMedian: roundTo(ma === null ? null : ma * 100),
          denominatorMedian: roundTo(mb === null ? null : mb * 100),
          numeratorValues: a.map((x) => x * 100),
          denominatorValues: b.map((x) => x * 100),
          failedRepeats: bc.failedRepeats + (nc?.failedRepeats ?? 0),
          loadBound: bc.loadBound || nc?.loadBound === true,
        };
        if (status !== "ok") return { ...cell, reason: status };
        if (ma !== null && mb !== null) cell.ratio = roundTo((ma / mb) * 100);
        inputs.push({ a: a.map(Math.log), b: b.map(Math.log), row, col });
        return cell;
      }),
    };
  });
  const confidence = baseBlock.confidence;
  const run = estimateUnpaired(
    inputs.map((x) => ({ a: x.a, b: x.b })),
    { confidence, marginPct },
  );
  const qs = benjaminiHochberg(run.cells.map((c) => c.p));
  inputs.forEach((x, i) => {
    const e = run.cells[i]!;
    const cell = rows[x.row]!.cells[x.col]!;
    Object.assign(cell, {
      estimate: roundTo(e.estimate),
      low: roundTo(e.low),
      high: roundTo(e.high),
      ...cellVerdict({ low: e.low, high: e.high, q: qs[i] ?? null }, marginPct, FDR),
      n: e.n,
      df: roundTo(e.df, 3),
      p: roundTo(e.p, 6),
      q: roundTo(qs[i] ?? null, 6),
    });
    if (e.reason) cell.reason = e.reason;
    if (cell.loadBound) {
      Object.assign(cell, { verdict: "unknown", direction: "unknown", equivalence: "unknown", fdr: null });
      cell.reason = "load-bound";
    }
  });
  const decided = rows.flatMap((r) => r.cells).filter((c) => c.direction === "faster" || c.direction === "slower");
  const intervals = run.cells.filter((c) => c.low !== null).length;
  const dfs = run.cells.map((c) => c.df).filter((d): d is number => d !== null);
  const ip = run.prior;
  return {
    metric: baseBlock.metric,
    numerator: baseBlock.numerator,
    denominator: baseBlock.denominator,
    threads: [...baseBlock.threads],
    rows,
    inverted,
    pairing: "unpaired",
    confidence,
    marginPct,
    method: {
      priorDf: inputs.length ? (Number.isFinite(ip.d0) ? roundTo(ip.d0, 3) : Infinity) : null,
      priorSd: ip.s02 > 0 ? roundTo(Math.sqrt(ip.s02), 6) : null,
      instanceSd: null,
      instanceCells: 0,
      unit: "repeats",
      intervals,
      expectedFalse: expectedFalseVerdicts(intervals, confidence),
      verdicts: decided.length,
      verdictsAtFdr: decided.filter((c) => c.fdr === "holds").length,
      order: null,
      dfRange: dfs.length ? [roundTo(Math.min(...dfs), 2)!, roundTo(Math.max(...dfs), 2)!] : null,
    },
    numeratorLabel: `NEW ${baseBlock.numerator}/${baseBlock.denominator}`,
    denominatorLabel: `BASE ${baseBlock.numerator}/${baseBlock.denominator}`,
    percentile: baseBlock.percentile,
  };
}

/**
 * Two ladder runs compared: for every pair of BASE's ladder that NEW also has, per cell the change of the pair's
 * ratio (NEW / BASE × 100, above 100: the numerator gained on the base), q over every pair × cell. Null when the two
 * runs share fewer than two pairs.
 */
export function compareLadders(base: Ladder, next: Ladder, marginPct = base.marginPct): Ladder | null {
  const tables = base.blocks.flatMap((b) => {
    const n = next.blocks.find((x) => x.numerator === b.numerator && x.denominator === b.denominator);
    return n ? [changeTable(b, n, marginPct)] : [];
  });
  return tables.length > 1 ? ladderFromTables(tables, "change") : null;
}

/** A ladder as a JSON-ready object: one block per pair (ratioTableJson's shape) and the ladder's BH reading. */
export function ladderJson(l: Ladder): object {
  return {
    base: l.base,
    kind: l.kind,
    metric: l.metric,
    threads: l.threads,
    tests: l.tests,
    method: l.method,
    pairs: l.blocks.map(ratioTableJson),
  };
}

/** The cell of a block at (test, threads). */
export function ladderCell(t: RatioTable, test: string, threads: number): RatioCell | undefined {
  return t.rows.find((r) => r.test === test)?.cells.find((c) => c.threads === threads);
}

// ---- the TUI's live rows ---------------------------------------------------------------------------------------

/** One live block: a pair's cells with the seed's median/median figure and the verdict word (q over every pair). */
export interface LiveLadderBlock {
  numerator: string;
  denominator: string;
  marginPct: number;
  rows: Array<{
    test: string;
    cells: Array<{ threads: number; ratio: number | null; word: string; status: RatioCell["status"] }>;
  }>;
}

/**
 * The live ladder of a run in progress (the TUI): each pair's cells from the finished records, words from the same
 * estimator as the report (sequential when adaptive), q over every pair × cell. Empty with fewer than two pairs.
 */
export function liveLadder(
  records: readonly CellRecord[],
  pairs: readonly LadderPair[],
  tests: readonly string[],
  threads: readonly number[],
  opts: { sequential?: boolean; metric?: Metric } = {},
): LiveLadderBlock[] {
  if (!isLadder(pairs)) return [];
  const tables = pairs.map((p) =>
    ratioTableFromSides(
      { id: p.numerator, label: p.numerator, records: records.filter((r) => r.server === p.numerator) },
      { id: p.denominator, label: p.denominator, records: records.filter((r) => r.server === p.denominator) },
      tests,
      threads,
      { metric: opts.metric ?? "qps", pairing: "paired", sequential: opts.sequential === true },
    ),
  );
  const l = ladderFromTables(tables);
  return l.blocks.map((t) => ({
    numerator: t.numerator,
    denominator: t.denominator,
    marginPct: t.marginPct,
    rows: t.rows.map((r) => ({
      test: r.test,
      cells: r.cells.map((c) => ({
        threads: c.threads,
        ratio: c.ratio,
        word: c.status === "ok" ? cellVerdictText(c) : "",
        status: c.status,
      })),
    })),
  }));
}
