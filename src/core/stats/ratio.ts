/**
 * The ratio table: one row per test (scenario order), one column per thread count. Each cell carries two figures:
 * - `ratio`: median(numerator) / median(denominator) * 100, the seed tables' figure (the first text table);
 * - `estimate`: exp(mean log pair ratio) * 100 with its [low, high] interval and verdict, from the run-level
 *   pooled estimator (src/core/stats/estimate.ts; docs/stats.md). Every other format shows this one.
 * This file assembles the table: the cells (ratio-cell.ts) estimated together, their verdicts, the method summary,
 * and the table of one run. Pure: takes records, returns a model (ratio-model.ts).
 */
import { InputError } from "../base/errors.ts";
import { roundTo } from "../base/units.ts";
import type { CellRecord, RunManifest } from "../model/results.ts";
import { DEFAULT_MARGIN_PCT, adaptiveRepeats, reportMarginPct } from "../model/scenario/schema.ts";
import { primaryPair } from "../model/scenario/pairs.ts";
import { FDR, cellVerdict } from "../model/verdict.ts";
import { familyName } from "../model/vocabulary.ts";
import { isLoadBound } from "../measure/cellstate.ts";
import { DEFAULT_CONFIDENCE, QUANTISATION_SD, estimateRun, type CellEstimate, type RunEstimate } from "./estimate.ts";
import { estimateUnpaired } from "./unpaired.ts";
import { orderEffect, outlierPairs, type OrderEffect } from "./diagnostics.ts";
import { benjaminiHochberg, expectedFalseVerdicts } from "./fdr.ts";
import { isInverted, labelRank, readsHistogram } from "./metric.ts";
import type { RatioRow, RatioTable, RatioTableOptions, Side, TableMethod } from "./ratio-model.ts";
import { ratioCell, type CellContext, type Pending } from "./ratio-cell.ts";
import { adaptiveStops, groupByCell, latencySource, measureRecords } from "./records.ts";
import { outlierNote } from "./unstable.ts";

/** Build the table from two sides. Tests and threads give the order; cells not in them are ignored. */
export function ratioTableFromSides(
  num: Side,
  den: Side,
  tests: readonly string[],
  threads: readonly number[],
  opts: RatioTableOptions = {},
): RatioTable {
  const metric = opts.metric ?? "qps";
  const inverted = isInverted(metric);
  const pairing = opts.pairing ?? "paired";
  const marginPct = opts.marginPct ?? DEFAULT_MARGIN_PCT;
  const confidence = DEFAULT_CONFIDENCE;
  // One source of latency percentiles for the whole table (every side's runs included): never a mix of the two.
  const all = [...num.records, ...den.records, ...(num.runs ?? []).flat(), ...(den.runs ?? []).flat()];
  const source = latencySource(measureRecords(all), metric);
  const ctx: CellContext = {
    num,
    den,
    metric,
    ...(source ? { source } : {}),
    inverted,
    pairing,
    sign: inverted ? -1 : 1,
    // Latency percentiles are rounded to sysbench's histogram buckets: no pair sd below that rounding.
    floorSd: readsHistogram(metric) ? QUANTISATION_SD : 0,
    numGroups: groupByCell(measureRecords(num.records)),
    denGroups: groupByCell(measureRecords(den.records)),
    byRuns: pairing === "unpaired" && (num.runs?.length ?? 0) >= 2 && (den.runs?.length ?? 0) >= 2,
    ...(opts.stops ? { stops: opts.stops } : {}),
    ...(opts.keepDisturbed ? { keepDisturbed: true } : {}),
  };
  const pending: Pending[] = [];
  const rows: RatioRow[] = tests.map((test, row) => ({
    test,
    cells: threads.map((t, col) => {
      const c = ratioCell(ctx, test, t, row, col);
      if (c.pending) pending.push(c.pending);
      return c.cell;
    }),
  }));
  const { run, order } = estimateCells(ctx, pending, confidence, marginPct, opts.sequential === true);
  applyEstimates(rows, pending, run, marginPct);
  return {
    metric,
    numerator: num.id,
    denominator: den.id,
    threads: [...threads],
    rows,
    inverted,
    pairing,
    confidence,
    marginPct,
    method: tableMethod(rows, pending, run, order, ctx.byRuns, confidence),
    numeratorLabel: num.label,
    denominatorLabel: den.label,
    percentile: labelRank(metric, source, opts.percentile ?? 95),
  };
}

/**
 * Estimate the measured cells together (they share the variance prior): paired with the order effect and the outlier
 * pairs (noted on their cells), else unpaired.
 */
function estimateCells(
  ctx: CellContext,
  pending: Pending[],
  confidence: number,
  marginPct: number,
  sequential: boolean,
): { run: RunEstimate; order: OrderEffect | null } {
  if (ctx.pairing !== "paired") {
    const run = estimateUnpaired(
      pending.map((p) => p.unpaired!),
      { confidence, marginPct },
    );
    return { run, order: null };
  }
  const inputs = pending.map((p) => p.input!);
  const run = estimateRun(inputs, { confidence, marginPct, sequential });
  const order = orderEffect(inputs, confidence);
  outlierPairs(
    inputs,
    run.cells.map((c) => (c.s2Moderated === null ? null : Math.sqrt(c.s2Moderated))),
  ).forEach((idx, i) => {
    for (const j of idx) pending[i].unstable.push(outlierNote(pending[i].pairRepeats![j], inputs[i].pairs[j].d));
  });
  return { run, order };
}

/** Each measured cell takes its estimate, interval, verdict (Benjamini–Hochberg over the table) and notes. */
function applyEstimates(rows: RatioRow[], pending: readonly Pending[], run: RunEstimate, marginPct: number): void {
  const qs = benjaminiHochberg(run.cells.map((c) => c.p));
  pending.forEach((p, i) => {
    const e: CellEstimate = run.cells[i];
    const cell = rows[p.row].cells[p.col];
    Object.assign(cell, {
      estimate: roundTo(e.estimate),
      low: roundTo(e.low),
      high: roundTo(e.high),
      ...cellVerdict({ low: e.low, high: e.high, q: qs[i] }, marginPct, FDR),
      n: e.n,
      instances: e.instances,
      df: roundTo(e.df, 3),
      p: roundTo(e.p, 6),
      q: roundTo(qs[i], 6),
      unstable: p.unstable,
      stopHalfWidthPct: e.stopHalfWidthPct ?? null,
      split: e.split === true,
    });
    if (e.reason) cell.reason = e.reason;
    // Load-bound: sysbench, not the server, limited most repeats, so the ratio says nothing about the servers. The
    // estimate and interval stay for the reader; the verdict does not. Most, not any: one noisy repeat among many
    // does not take the cell's verdict away.
    const used = [...p.a, ...p.b].filter((r) => r.status === "ok");
    if (used.length > 0 && used.filter(isLoadBound).length * 2 > used.length) {
      cell.loadBound = true;
      Object.assign(cell, { verdict: "unknown", direction: "unknown", equivalence: "unknown", fdr: null });
      cell.reason = "load-bound";
    }
  });
}

/** How the table's variance was pooled and what it includes, with its verdict counts. */
function tableMethod(
  rows: readonly RatioRow[],
  pending: readonly Pending[],
  run: RunEstimate,
  order: OrderEffect | null,
  byRuns: boolean,
  confidence: number,
): TableMethod {
  const decided = pending
    .map((p) => rows[p.row].cells[p.col])
    .filter((c) => c.direction === "faster" || c.direction === "slower");
  const intervals = run.cells.filter((c) => c.low !== null).length;
  const tau2 = run.instanceLevel.tau2;
  const ip = run.intervalPrior ?? run.prior;
  const dfs = run.cells.map((c) => c.df).filter((d): d is number => d !== null);
  return {
    priorDf: pending.length ? (Number.isFinite(ip.d0) ? roundTo(ip.d0, 3) : Infinity) : null,
    priorSd: ip.s02 > 0 ? roundTo(Math.sqrt(ip.s02), 6) : null,
    instanceSd: tau2 === null ? null : roundTo(Math.sqrt(tau2), 6),
    instanceCells: byRuns ? intervals : run.instanceLevel.cells,
    unit: byRuns ? "runs" : "repeats",
    intervals,
    expectedFalse: expectedFalseVerdicts(intervals, confidence),
    verdicts: decided.length,
    verdictsAtFdr: decided.filter((c) => c.fdr === "holds").length,
    order,
    withinDf: run.instanceLevel.withinDf ?? 0,
    splitCells: run.cells.filter((c) => c.split === true && c.low !== null).length,
    allUnitsCells: run.cells.filter((c) => c.allUnits === true && c.low !== null).length,
    dfRange: dfs.length ? [roundTo(Math.min(...dfs), 2)!, roundTo(Math.max(...dfs), 2)!] : null,
  };
}

/**
 * Numerator and denominator of a run: the scenario's `compare` key, else the first two servers.
 * Explicit ids win over both.
 */
export function pickServers(
  manifest: RunManifest,
  explicit?: { numerator?: string; denominator?: string },
): [string, string] | null {
  const ids = manifest.scenario.servers.map((s) => s.id);
  const known = new Set([...ids, ...manifest.servers.map((s) => s.id)]);
  const primary = primaryPair(manifest.scenario);
  let num: string | undefined = explicit?.numerator ?? primary?.[0];
  let den: string | undefined = explicit?.denominator ?? primary?.[1];
  if (explicit?.numerator && !explicit.denominator) den = ids.find((i) => i !== num);
  if (explicit?.denominator && !explicit.numerator) num = ids.find((i) => i !== den);
  for (const id of [num, den]) {
    if (id !== undefined && !known.has(id)) {
      throw new InputError(`unknown server "${id}" in run ${manifest.runId}`, {
        code: "REPORT_SERVER",
        hint: `the run has servers ${[...known].join(", ")}`,
      });
    }
  }
  if (num === undefined || den === undefined) return null;
  return [num, den];
}

/** Legend labels: family names when the two families differ ("MariaDB" / "MySQL"), else the server ids. */
export function serverLabels(manifest: RunManifest, num: string, den: string): [string, string] {
  const fam = (id: string) => manifest.servers.find((s) => s.id === id)?.family;
  const fa = fam(num);
  const fb = fam(den);
  if (fa && fb && fa !== fb) return [familyName(fa), familyName(fb)];
  return [num, den];
}

/** Tests in scenario order, then any others found in the records. Same for threads (scenario order, then ascending). */
export function axes(manifest: RunManifest, cells: readonly CellRecord[]): { tests: string[]; threads: number[] } {
  const tests = [...manifest.scenario.workload.tests];
  const threads = [...manifest.scenario.workload.threads];
  for (const c of cells) if (!tests.includes(c.test)) tests.push(c.test);
  const extra = [...new Set(cells.map((c) => c.threads))].filter((t) => !threads.includes(t)).sort((a, b) => a - b);
  return { tests, threads: [...threads, ...extra] };
}

/** The ratio table of one run: numerator/denominator from the scenario, paired repeats. */
export function buildRatioTable(
  manifest: RunManifest,
  cells: readonly CellRecord[],
  opts: RatioTableOptions & { numerator?: string; denominator?: string } = {},
): RatioTable | null {
  const pair = pickServers(manifest, opts);
  if (!pair) return null;
  const [num, den] = pair;
  const [ln, ld] = serverLabels(manifest, num, den);
  const { tests, threads } = axes(manifest, cells);
  return ratioTableFromSides(
    { id: num, label: ln, records: cells.filter((c) => c.server === num) },
    { id: den, label: ld, records: cells.filter((c) => c.server === den) },
    tests,
    threads,
    // The margin: the caller's (report --margin), else the scenario's report.margin, as the run's screen used.
    {
      pairing: "paired",
      percentile: manifest.scenario.workload.percentile ?? 95,
      sequential: adaptiveRepeats(manifest.scenario.workload) !== undefined,
      stops: adaptiveStops(manifest),
      ...opts,
      marginPct: opts.marginPct ?? reportMarginPct(manifest.scenario),
    },
  );
}

/** The fixed JSON shape plus the extra fields. */
export function ratioTableJson(t: RatioTable): object {
  return {
    metric: t.metric,
    numerator: t.numerator,
    denominator: t.denominator,
    threads: t.threads,
    rows: t.rows.map((r) => ({
      test: r.test,
      cells: r.cells.map((c) => ({
        threads: c.threads,
        estimate: c.estimate,
        ratio: c.ratio,
        low: c.low,
        high: c.high,
        verdict: c.verdict,
        direction: c.direction,
        equivalence: c.equivalence,
        fdr: c.fdr,
        n: c.n,
        status: c.status,
        ...(c.reason ? { reason: c.reason } : {}),
        instances: c.instances,
        df: c.df,
        p: c.p,
        q: c.q,
        unstable: c.unstable,
        cvNumerator: c.cvNumerator,
        cvDenominator: c.cvDenominator,
        numeratorMedian: c.numeratorMedian,
        denominatorMedian: c.denominatorMedian,
        failedRepeats: c.failedRepeats,
        loadBound: c.loadBound,
      })),
    })),
    inverted: t.inverted,
    pairing: t.pairing,
    confidence: t.confidence,
    marginPct: t.marginPct,
    method: { ...t.method, priorDf: t.method.priorDf === Infinity ? "Infinity" : t.method.priorDf },
    numeratorLabel: t.numeratorLabel,
    denominatorLabel: t.denominatorLabel,
  };
}
