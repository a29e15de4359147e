/**
 * One cell of the ratio table from its records: the medians, CVs and state of the two sides, the unstable notes,
 * and the input of the estimator (the cell's pairs, or its two unpaired samples). The estimate itself is the
 * table's (all cells share the variance prior): see ratio.ts.
 */
import { coefficientOfVariation, median } from "../base/distributions.ts";
import { roundTo } from "../base/units.ts";
import type { CellRecord } from "../model/results.ts";
import type { CellInput, PairObs } from "./estimate.ts";
import type { UnpairedInput } from "./unpaired.ts";
import type { LatencySource, Metric } from "./metric.ts";
import type { CellStatus, Pairing, RatioCell, RatioTableOptions, Side } from "./ratio-model.ts";
import { measureRecords, measureRuns, repeatValues, sideStatus, usableValue } from "./records.ts";
import { unstableNotes } from "./unstable.ts";

/** What every cell of one table shares: the two sides, the metric, the pairing and the records by cell. */
export interface CellContext {
  num: Side;
  den: Side;
  metric: Metric;
  /** Where a latency percentile is read, one source for the whole table (records.ts latencySource). */
  source?: LatencySource;
  inverted: boolean;
  pairing: Pairing;
  /** -1 for a latency metric (its log ratio is inverted), else 1. */
  sign: number;
  /** A floor on the pair sd in log units (see CellInput.floorSd). */
  floorSd: number;
  numGroups: Map<string, CellRecord[]>;
  denGroups: Map<string, CellRecord[]>;
  /** Unpaired with 2 or more runs on both sides: each run's cell value is the unit. */
  byRuns: boolean;
  stops?: RatioTableOptions["stops"];
  /** Disturbed pairs are counted, not left out (RatioTableOptions.keepDisturbed). */
  keepDisturbed?: boolean;
}

/** A measured cell waiting for the table's estimate: where it sits, its records and its estimator input. */
export interface Pending {
  row: number;
  col: number;
  a: CellRecord[];
  b: CellRecord[];
  av: Array<number | null>;
  bv: Array<number | null>;
  unstable: string[];
  input?: CellInput;
  pairRepeats?: number[];
  unpaired?: UnpairedInput;
}

/** The pairs of a cell: d = ±ln(a/b) per repeat with both values, its instance, and which side ran first. */
function pairsOf(p: Pending, sign: number, keepDisturbed: boolean): { pairs: PairObs[]; repeats: number[] } {
  const pairs: PairObs[] = [];
  const repeats: number[] = [];
  const byRepeat = (rs: CellRecord[]) => new Map(rs.filter((r) => r.repeat >= 1).map((r) => [r.repeat, r]));
  const ra = byRepeat(measureRecords(p.a));
  const rb = byRepeat(measureRecords(p.b));
  p.av.forEach((a, i) => {
    const b = p.bv[i];
    if (a === null || b === null) return;
    const pair = pairObs(sign * Math.log(a / b), ra.get(i + 1), rb.get(i + 1));
    if (keepDisturbed) delete pair.disturbed;
    pairs.push(pair);
    repeats.push(i + 1);
  });
  return { pairs, repeats };
}

/**
 * One pair of a cell: its log ratio d, the server instance it ran on, which side ran first (x: the numerator's
 * record), and whether outside work disturbed it.
 */
export function pairObs(d: number, x: CellRecord | undefined, y: CellRecord | undefined): PairObs {
  const pair: PairObs = { d };
  const inst = x?.instance ?? y?.instance;
  if (inst !== undefined) pair.instance = inst;
  if (x && y && x.startedAt !== y.startedAt) pair.order = x.startedAt < y.startedAt ? 1 : -1;
  // Disturbed in its last attempt (the re-run's, when there was one): left out of the estimate (usablePairs).
  if (x?.interference?.disturbed || y?.interference?.disturbed) pair.disturbed = true;
  return pair;
}

const finiteOf = (xs: Array<number | null>) => xs.filter((x): x is number => x !== null);

/** The status of a cell from its two sides': ok when both are, else the first of failed, skipped, missing. */
function cellStatus(sa: CellStatus, sb: CellStatus): CellStatus {
  return sa === "ok" && sb === "ok"
    ? "ok"
    : sa === "failed" || sb === "failed"
      ? "failed"
      : sa === "skipped" || sb === "skipped"
        ? "skipped"
        : "missing";
}

/**
 * The cell of `test` at `t` threads before the estimate: its medians, CVs, status and repeat values, and (when both
 * sides measured it) the pending estimator input at row `row`, column `col`.
 */
export function ratioCell(
  ctx: CellContext,
  test: string,
  t: number,
  row: number,
  col: number,
): { cell: RatioCell; pending?: Pending } {
  const { metric, source } = ctx;
  const a = ctx.numGroups.get(`${test}|${t}`) ?? [];
  const b = ctx.denGroups.get(`${test}|${t}`) ?? [];
  const maxRepeat = Math.max(0, ...a.map((r) => r.repeat), ...b.map((r) => r.repeat));
  const av = repeatValues(a, metric, maxRepeat, source);
  const bv = repeatValues(b, metric, maxRepeat, source);
  const failedRepeats = new Set(
    [...a, ...b].filter((r) => r.status === "failed" || r.metrics?.status === "failed").map((r) => r.repeat),
  ).size;
  const status = cellStatus(sideStatus(a, metric, source), sideStatus(b, metric, source));
  // The seeds' figure reads the same repeats as the estimate: a pair disturbed in its last attempt is left out of
  // both (unless the run keeps disturbed pairs); when no pair is clean, every repeat counts.
  const disturbed = ctx.keepDisturbed
    ? new Set<number>()
    : new Set([...a, ...b].filter((r) => r.interference?.disturbed).map((r) => r.repeat));
  const clean = av.some((x, i) => x !== null && bv[i] !== null && !disturbed.has(i + 1));
  const kept = (xs: Array<number | null>) => (clean ? xs.map((x, i) => (disturbed.has(i + 1) ? null : x)) : xs);
  const numMedian = finiteOf(kept(av)).length ? median(finiteOf(kept(av))) : null;
  const denMedian = finiteOf(kept(bv)).length ? median(finiteOf(kept(bv))) : null;
  const cv = (xs: Array<number | null>) => {
    const c = coefficientOfVariation(finiteOf(xs));
    return c === null ? null : roundTo(c * 100, 3);
  };
  const cell: RatioCell = {
    threads: t,
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
    unstable: [],
    cvNumerator: null,
    cvDenominator: null,
    numeratorMedian: numMedian,
    denominatorMedian: denMedian,
    numeratorValues: av,
    denominatorValues: bv,
    failedRepeats,
    loadBound: false,
  };
  if (status !== "ok") return { cell: { ...cell, reason: status } };
  cell.ratio = roundTo((ctx.inverted ? denMedian! / numMedian! : numMedian! / denMedian!) * 100);
  cell.cvNumerator = cv(av);
  cell.cvDenominator = cv(bv);
  const unstable = unstableNotes(
    test,
    [
      [ctx.num.id, a],
      [ctx.den.id, b],
    ],
    ctx.keepDisturbed === true,
  );
  const p: Pending = { row, col, a, b, av, bv, unstable };
  estimatorInput(ctx, p, test, t);
  return { cell, pending: p };
}

/** The estimator's input of a measured cell: its pairs (paired), its runs' means, or its repeats (unpaired). */
function estimatorInput(ctx: CellContext, p: Pending, test: string, t: number): void {
  const { sign, floorSd, metric, source } = ctx;
  if (ctx.pairing === "paired") {
    const { pairs, repeats } = pairsOf(p, sign, ctx.keepDisturbed === true);
    const stop = ctx.stops?.get(`${test}|${t}`);
    p.input = { pairs, floorSd, ...(stop ? { stop } : {}) };
    p.pairRepeats = repeats;
  } else if (ctx.byRuns) {
    const runMeans = (runs: CellRecord[][]) =>
      runs.flatMap((rs) => {
        const vs = finiteOf(
          rs
            .filter((r) => r.test === test && r.threads === t && r.phase !== "warmup")
            .map((r) => usableValue(r, metric, source)),
        );
        return vs.length ? [vs.reduce((x, v) => x + Math.log(v), 0) / vs.length] : [];
      });
    const ma = runMeans(measureRuns(ctx.num.runs!));
    const mb = runMeans(measureRuns(ctx.den.runs!));
    p.unpaired = { a: ma.map((x) => sign * x), b: mb.map((x) => sign * x), floorSd };
  } else {
    p.unpaired = {
      a: finiteOf(p.av).map((x) => sign * Math.log(x)),
      b: finiteOf(p.bv).map((x) => sign * Math.log(x)),
      floorSd,
    };
  }
}
