/**
 * What an adaptive run will take (pure): a Monte Carlo of the run's own stopping rule at the host's noise, so that
 * `plan --precision` predicts the rounds the run really needs, not the ones a formula with equal cells would.
 *
 * Why a simulation: an adaptive run stops a cell when the half-width of the report's estimator (estimateRun, pooled
 * over the run's cells, instances as the replication unit) reaches the target. How fast that happens depends on how
 * unequal the cells' variances are: the estimator moderates each cell's variance toward the run's prior with the
 * prior's df d0, and when cells differ a lot (d0 small) a cell borrows little, so its t quantile stays large for
 * several rounds. A closed formula that assumes equal cells (predictHalfWidthPct) predicted 2 rounds for
 * scenarios/quick.yaml at ±10% here, where two runs took 3 to 8 (docs/bench.md).
 *
 * The model per simulated run: each cell's pair sd is drawn as s · sqrt(d0 / χ²(d0)) (the estimator's own prior
 * model; capped at 5 s), each server instance adds a N(0, instance sd) shift per cell, each pair adds N(0, cell sd).
 * Rounds run over the open cells exactly as src/core/plan/adaptive.ts schedules them: a new instance every
 * `roundsPerInstance` rounds, stop on precision after `min` rounds, at `max`, or before a round that would not fit
 * the budget. Time is the plan's cost model: fixed set-up, each measured cell, each new instance's restart and
 * warm-ups of the tests that still have open cells.
 */
import { estimateRun, halfWidthPct, type PairObs, type RunEstimate } from "./estimate.ts";
import { MAX_SD_FACTOR, chiSquare, drawCellSd, meanOr } from "./cell-sd.ts";
import { applyStopRule, type AdaptiveCell } from "./stop.ts";
import { median } from "../base/distributions.ts";
import { gammaFrom, normalFrom, seededRandom } from "../base/random.ts";
import { directionOfKind } from "../model/verdict.ts";
import type { AdaptiveCosts, AdaptiveSimInput, AdaptiveSimResult } from "./simulate-model.ts";

/**
 * The prior df of the cells' pair variances (how unequal the cells are) when nothing better is known: fitted to the
 * 12 cells of two adaptive runs of scenarios/quick.yaml on this project's 2-vCPU VM (AMD EPYC, docs/bench.md; each run
 * 2.1, both 2.4; point select ~1.5% per pair, the other cells 5–13%).
 */
export const ASSUMED_CELL_PRIOR_DF = 2.2;

/**
 * How much a whole run's pace varies (percent, sd of a log factor on its costs), for the forecast's range: the
 * seconds per pair two runs on this project's VM measured were 14.5 s and 15.3 s, 5% apart;
 * a seed-matrix run there took 2.4% less than its time model. Without it every simulated run that the
 * budget stops ended at the same second, and the "80% range" was a single point.
 */
export const PACE_SD_PCT = 5;

const quantile = (sorted: readonly number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.round(p * (sorted.length - 1))))];

function quantiles(xs: readonly number[]): { median: number; low: number; high: number } {
  const sorted = [...xs].sort((a, b) => a - b);
  return { median: median(xs), low: quantile(sorted, 0.1), high: quantile(sorted, 0.9) };
}

/** What the simulated runs add up, run after run. */
interface Tally {
  seconds: number[];
  rounds: number[];
  reached: number;
  budgetStops: number;
  measured: number[];
  reachedPer: number[];
  widths: number[];
  cellWidths: number[][];
  covered: number;
  within: number;
  withInterval: number;
  covering: number;
  falseVerdicts: number;
}

/** One simulated run under way: its pairs, stopped cells, instance, time and the last estimate. */
interface SimRun {
  pairs: PairObs[][];
  done: Array<"precision" | "max" | "budget" | null>;
  instance: number;
  /** Each cell's centre (its ratio so far) and the current instance's shift per cell. */
  centre: number[];
  shift: number[];
  elapsed: number;
  round: number;
  cellsRun: number;
  last: RunEstimate | null;
  budgetStopped: boolean;
}

/** The random numbers of one simulated run. */
interface Draws {
  z: () => number;
  gamma: (shape: number) => number;
}

/** Simulate the adaptive run `runs` times; deterministic for a seed. */
export function simulateAdaptive(o: AdaptiveSimInput): AdaptiveSimResult {
  const runs = o.runs ?? 200;
  const rand = seededRandom(o.seed ?? 1);
  const draws: Draws = { z: normalFrom(rand), gamma: gammaFrom(rand) };
  const nCells = o.cellTests.length;
  const t: Tally = {
    seconds: [],
    rounds: [],
    reached: 0,
    budgetStops: 0,
    measured: [],
    reachedPer: [],
    widths: [],
    cellWidths: Array.from({ length: nCells }, () => []),
    covered: 0,
    within: 0,
    withInterval: 0,
    covering: 0,
    falseVerdicts: 0,
  };
  const sequential = o.sequential ?? true;
  for (let k = 0; k < runs; k++) {
    const { sd, c } = drawRun(o, draws);
    const run = startRun(o, draws, c);
    runRounds(o, draws, run, sd, c, sequential);
    if (run.budgetStopped) t.budgetStops++;
    // The printed intervals at the end of the run (truth 0: the simulated pairs are A/A plus noise).
    // The printed intervals, as the report computes them: each cell told how it stopped (estimateRun's `stop`).
    if (run.pairs.some((p) => p.length))
      run.last = estimateRun(
        run.pairs.map((p, i) => ({ pairs: p, ...(sequential ? { stop: run.done[i] ?? "open" } : {}) })),
        { sequential },
      );
    tallyIntervals(t, run.last, o.marginPct);
    const reachedHere = run.done.filter((d) => d === "precision").length;
    t.reached += reachedHere;
    t.reachedPer.push(reachedHere);
    t.measured.push(run.cellsRun);
    t.seconds.push(run.elapsed + c.teardownSeconds);
    t.rounds.push(run.round);
  }
  return summarize(t, runs, nCells);
}

/** One run's noise and pace: each cell's pair sd, and the costs at this run's pace. */
function drawRun(o: AdaptiveSimInput, { z, gamma }: Draws): { sd: number[]; c: AdaptiveCosts } {
  const st = o.start;
  const s = o.pairSdPct / 100;
  const tau = o.instanceSdPct / 100;
  const df = o.pairSdDf;
  const sRun = df !== undefined && Number.isFinite(df) && df > 0 ? s * Math.sqrt(df / chiSquare(gamma, df)) : s;
  const own = o.cellSd?.(z, (df) => chiSquare(gamma, df));
  const sd = Array.from({ length: o.cellTests.length }, (_, i) => {
    const total = own?.[i];
    if (total === undefined || total === null || st?.pairs[i]?.length)
      return drawCellSd(gamma, sRun, o.cellPriorDf, st?.pairs[i] ?? [], tau);
    // The recorded spread is of all the cell's pairs, a fresh instance each round: both levels. The instance's
    // share is drawn apart (tau), so the pair level is what is left (floored, as drawCellSd's posterior).
    return Math.sqrt(Math.max(total * total - tau * tau, (total / MAX_SD_FACTOR) ** 2));
  });
  // This run's pace (drawn only when asked for, so that the seeded runs without it stay as they were).
  const paceSd = (o.paceSdPct ?? 0) / 100;
  const pace = paceSd > 0 ? Math.exp(paceSd * z()) : 1;
  const given = o.costs;
  const c: AdaptiveCosts =
    pace === 1
      ? given
      : {
          setupSeconds: given.setupSeconds * pace,
          teardownSeconds: given.teardownSeconds,
          cellSeconds: given.cellSeconds * pace,
          restartSeconds: given.restartSeconds * pace,
          warmupSeconds: given.warmupSeconds * pace,
        };
  return { sd, c };
}

/** A simulated run at its start: from nothing, or from the run under way (`o.start`). */
function startRun(o: AdaptiveSimInput, { z }: Draws, c: AdaptiveCosts): SimRun {
  const st = o.start;
  const nCells = o.cellTests.length;
  const tau = o.instanceSdPct / 100;
  const pairs: PairObs[][] = Array.from({ length: nCells }, (_, i) => [...(st?.pairs[i] ?? [])]);
  const done: Array<"precision" | "max" | "budget" | null> = Array.from(
    { length: nCells },
    (_, i) => st?.done[i] ?? null,
  );
  const instance = st ? st.instance : -1;
  // A run under way: each cell's new pairs centre on the mean of its observed ones (its ratio so far; 0, an A/A
  // truth, from the start). Centred on 0, a cell at 150 would draw its next pairs around 100 and look far noisier
  // than it is: the forecasts of MariaDB-vs-MySQL runs expected the budget to stop them.
  const centre = Array.from({ length: nCells }, (_, i) =>
    meanOr(
      (st?.pairs[i] ?? []).map((x) => x.d),
      0,
    ),
  );
  // The current instance's shift per cell: its observed mean (about the cell's centre) when the run is under way.
  const shift: number[] = st
    ? pairs.map((p, i) =>
        meanOr(
          p.filter((x) => (x.instance ?? 0) === instance).map((x) => x.d - centre[i]!),
          tau * z(),
        ),
      )
    : [];
  return {
    pairs,
    done,
    instance,
    centre,
    shift,
    elapsed: st ? st.elapsedSeconds : c.setupSeconds,
    round: st?.round ?? 0,
    cellsRun: st ? st.pairs.reduce((a, p) => a + p.length, 0) * o.servers : 0,
    last: null,
    budgetStopped: false,
  };
}

/** The rounds of one run over its open cells, as src/core/plan/adaptive.ts schedules them, until every cell stops. */
function runRounds(
  o: AdaptiveSimInput,
  { z }: Draws,
  run: SimRun,
  sd: readonly number[],
  c: AdaptiveCosts,
  sequential: boolean,
): void {
  const tau = o.instanceSdPct / 100;
  const { pairs, done } = run;
  for (let r = (o.start?.round ?? 0) + 1; r <= o.max; r++) {
    const open = done.flatMap((d, i) => (d === null ? [i] : []));
    if (!open.length) break;
    const inst = Number.isFinite(o.roundsPerInstance) ? Math.floor((r - 1) / Math.max(1, o.roundsPerInstance)) : 0;
    const fresh = inst !== run.instance;
    const tests = new Set(open.map((i) => o.cellTests[i])).size;
    const cost =
      open.length * o.servers * c.cellSeconds +
      (fresh ? (r > 1 ? c.restartSeconds : 0) + tests * o.servers * c.warmupSeconds : 0);
    if (o.budgetSeconds !== undefined && run.elapsed + cost + c.teardownSeconds > o.budgetSeconds) {
      for (const i of open) done[i] = "budget";
      run.budgetStopped = true;
      break;
    }
    if (fresh) {
      run.instance = inst;
      run.shift = Array.from({ length: pairs.length }, () => tau * z());
    }
    for (const i of open) pairs[i].push({ d: run.centre[i]! + run.shift[i] + sd[i] * z(), instance: inst });
    run.elapsed += cost;
    run.cellsRun += open.length * o.servers;
    run.round = r;
    // Without a precision target only `max` stops a cell: the estimate is needed at the last round only.
    if (!Number.isFinite(o.precisionPct) && r < o.max) continue;
    // The shipped estimator and stop rule (estimateRun's sequential stages, applyStopRule), as the run does.
    const est = estimateRun(
      pairs.map((p) => ({ pairs: p })),
      { sequential },
    );
    run.last = est;
    applyStops(o, est, open, r, done);
  }
}

/** The stop rule on each open cell after round `r`: a cell that reached max or its precision is done. */
function applyStops(
  o: AdaptiveSimInput,
  est: RunEstimate,
  open: readonly number[],
  r: number,
  done: SimRun["done"],
): void {
  for (const i of open) {
    const e = est.cells[i];
    const cell: AdaptiveCell = {
      test: "",
      threads: 0,
      n: 0,
      estimate: null,
      low: null,
      high: null,
      halfWidthPct: null,
      rounds: r - 1,
    };
    applyStopRule(
      cell,
      {
        n: e.n,
        estimate: e.estimate,
        low: e.low,
        high: e.high,
        halfWidthPct: halfWidthPct(e),
        stopHalfWidthPct: e.stopHalfWidthPct ?? null,
      },
      true,
      o,
    );
    if (cell.done === "max" || cell.done === "precision") done[i] = cell.done;
  }
}

/** The printed intervals at the end of one run: their widths, coverage and false verdicts (truth 100). */
function tallyIntervals(t: Tally, last: RunEstimate | null, marginPct: number | undefined): void {
  for (const [i, e] of (last?.cells ?? []).entries()) {
    const h = halfWidthPct(e);
    if (h !== null && Number.isFinite(h)) {
      t.widths.push(h);
      t.cellWidths[i]?.push(h);
    }
    if (h !== null && marginPct !== undefined && h <= marginPct) t.within++;
    if (e.low !== null && e.high !== null && e.low <= 100 && e.high >= 100) t.covered++;
    if (e.low !== null && e.high !== null) {
      t.withInterval++;
      if (e.low <= 100 && e.high >= 100) t.covering++;
      const dir = directionOfKind(e.verdict);
      if (dir === "faster" || dir === "slower") t.falseVerdicts++;
    }
  }
}

/** The result over all simulated runs. */
function summarize(t: Tally, runs: number, nCells: number): AdaptiveSimResult {
  const sorted = [...t.seconds].sort((a, b) => a - b);
  const sortedRounds = [...t.rounds].sort((a, b) => a - b);
  return {
    runs,
    seconds: { median: median(t.seconds), low: quantile(sorted, 0.1), high: quantile(sorted, 0.9) },
    rounds: { median: median(t.rounds), high: quantile(sortedRounds, 0.9) },
    measuredCells: median(t.measured),
    reachedCells: median(t.reachedPer),
    reachedShare: nCells && runs ? t.reached / (nCells * runs) : 0,
    budgetShare: runs ? t.budgetStops / runs : 0,
    halfWidthPct: t.widths.length ? quantiles(t.widths) : null,
    cellHalfWidthPct: t.cellWidths.map((w) => (w.length ? quantiles(w) : null)),
    coverage: nCells && runs ? t.covered / (nCells * runs) : 0,
    withinShare: nCells && runs ? t.within / (nCells * runs) : 0,
    intervals: {
      cells: t.withInterval,
      coverage: t.withInterval ? t.covering / t.withInterval : null,
      falseVerdicts: t.withInterval ? t.falseVerdicts / t.withInterval : null,
    },
  };
}
