/**
 * Coverage of the shipped adaptive procedure, by simulation (pure, seeded).
 *
 * A simulated run has the cells of a scenario; each round, every open cell gets one pair on a fresh server instance,
 * as `scenarios/quick.yaml` lays it out. The pairs go through the same estimator as a real run (`estimateRun` with
 * `sequential`, exactly what `ratioTableFromSides` gives it) and the same stop rule (`applyStopRule`, which
 * `adaptiveState` replays over the records; `stopForBudget` when a budget ends the run). The truth of every cell is
 * known, so we can count how often its printed 95% interval holds it, and how often an A/A cell (truth 100) gets a
 * "faster" or "slower" verdict.
 *
 * The noise models follow what was measured on this project's machines (docs/stats.md, shared notes):
 * a pair sd that differs from cell to cell, an instance effect shared by the cells of a round, a machine-speed drift
 * that both servers see (it enters a pair as the difference between its two cells' moments), and bursts (steal).
 */
import { estimateRun, halfWidthPct, type CellInput, type PairObs } from "./estimate.ts";
import type { AdaptiveSettings } from "../model/results.ts";
import { applyStopRule, openAdaptiveCell, stopForBudget, type AdaptiveCell, type StopSettings } from "./stop.ts";
import { normalFrom, seededRandom } from "../base/random.ts";
import { directionOfKind, type Verdict } from "../model/verdict.ts";
import { speedMismatch } from "../measure/speed.ts";
import { speedSwitches, type SpeedSwitch } from "./speed-sim.ts";

export interface NoiseModel {
  name: string;
  description: string;
  /** A cell's pair sd (log units), drawn once per cell and run. */
  cellSd: (u: () => number) => number;
  /** sd of the instance effect shared by every cell of a round (a fresh instance of each server per round). */
  instanceSd: number;
  /** Machine-speed drift (log units): an AR(1) over the measured cells, seen by both servers alike. */
  driftSd: number;
  /** Its autocorrelation from one measured cell to the next. */
  driftPhi: number;
  /** Share of measured cells hit by a burst (steal), and the burst's sd (log units). */
  burstRate: number;
  burstSd: number;
  /**
   * One-sided stalls: on this share of pairs, one server (the same one for a cell through a run, picked at random per
   * cell) loses a slice of its throughput, drawn uniformly from `stallLoss` (fractions). Nothing flags them: they are
   * noise the estimator must resist. The truth stays the clean ratio (the servers do not differ).
   */
  stallRate?: number;
  stallLoss?: readonly [number, number];
  /**
   * Outside work tied to one server: each measured cell of the numerator is disturbed with this probability and
   * loses a slice drawn uniformly from `disturbLoss`. The disturbance is flagged (as interference.ts flags it), the
   * pair runs once more (workload.rerunDisturbed), and a pair disturbed in its second attempt too is recorded as
   * disturbed (its last attempt wins, as measureRecords reads the records).
   */
  disturbRate?: number;
  disturbLoss?: readonly [number, number];
  /**
   * The CPU's speed switches between full and slow (the host gives the core to other work), as both servers see it:
   * a two-state process over the measured cells. In each cell a switch happens with probability `rate`, at a moment
   * drawn uniformly within the cell, so the cell runs at a mix of the two speeds. The speed probe reads each cell's
   * mean speed with a log-normal error of sd `probeSd`; the shipped rule (core/measure/speed.ts `speedMismatch`)
   * flags a pair whose two cells differ, the pair runs once more, and a pair flagged in its second attempt too is
   * recorded as disturbed.
   */
  speedSwitch?: SpeedSwitch;
}

const logUniform = (a: number, b: number) => (u: () => number) =>
  Math.exp(Math.log(a) + (Math.log(b) - Math.log(a)) * u());
const uniform = (a: number, b: number) => (u: () => number) => a + (b - a) * u();

/** The noise of "cells differ", which the models of one kind of trouble each add theirs to. */
const CELLS_DIFFER = {
  cellSd: logUniform(0.015, 0.15),
  instanceSd: 0.03,
  driftSd: 0.03,
  driftPhi: 0.7,
  burstRate: 0,
  burstSd: 0,
} as const;

/** The noise models the coverage check runs against (docs/stats.md). */
export const NOISE_MODELS: readonly NoiseModel[] = [
  {
    name: "cells differ",
    description: "pair sd 1.5–15% from cell to cell (log-uniform), instance effect 3%, drift 3% (φ 0.7)",
    ...CELLS_DIFFER,
  },
  {
    name: "cells alike",
    description: "pair sd 8–12% in every cell, instance effect 3%, drift 3% (φ 0.7)",
    cellSd: uniform(0.08, 0.12),
    instanceSd: 0.03,
    driftSd: 0.03,
    driftPhi: 0.7,
    burstRate: 0,
    burstSd: 0,
  },
  {
    name: "quiet",
    description: "pair sd 1–4%, instance effect 1%, drift 1% (φ 0.7)",
    cellSd: uniform(0.01, 0.04),
    instanceSd: 0.01,
    driftSd: 0.01,
    driftPhi: 0.7,
    burstRate: 0,
    burstSd: 0,
  },
  {
    name: "very noisy",
    description: "pair sd 10–20%, instance effect 5%, strong drift 8% (φ 0.9), bursts in 5% of cells (sd 30%)",
    cellSd: uniform(0.1, 0.2),
    instanceSd: 0.05,
    driftSd: 0.08,
    driftPhi: 0.9,
    burstRate: 0.05,
    burstSd: 0.3,
  },
  {
    name: "one-sided stalls",
    description:
      "cells differ, and on 10% of pairs one server (fixed per cell) loses 5–30% of its throughput, unflagged",
    ...CELLS_DIFFER,
    stallRate: 0.1,
    stallLoss: [0.05, 0.3],
  },
  {
    name: "disturbed server",
    description:
      "cells differ, and outside work disturbs 30% of one server's cells (loss 10–60%, flagged); a disturbed pair runs once more",
    ...CELLS_DIFFER,
    disturbRate: 0.3,
    disturbLoss: [0.1, 0.6],
  },
  {
    name: "speed switches",
    description:
      "cells differ, and the CPU switches between full speed and 1/1.6 of it (in 7.5% of cells, at a random moment), read by the speed probe with 3% error",
    ...CELLS_DIFFER,
    speedSwitch: { rate: 0.075, slowFactor: 1.6, probeSd: 0.03 },
  },
];

export interface Design {
  /** The scenario's cells (test × threads). */
  cells: number;
  settings: Pick<AdaptiveSettings, "min" | "max" | "precisionPct"> & Pick<StopSettings, "printedFactor">;
  /** A budget that ends the run after this many rounds (stopForBudget), if any. */
  budgetRounds?: number;
  /** Fixed count instead of adaptive stopping: every cell runs exactly this many rounds (the full-sample interval). */
  fixedRounds?: number;
}

export interface SimulationOptions {
  runs: number;
  seed: number;
  /** The true ratio of each cell (log units) in a run: 0 for A/A. */
  truth?: (cell: number, u: () => number) => number;
  /**
   * Clear the disturbed flags before the estimator sees the pairs: a pair disturbed in both attempts then enters as
   * if clean, its last attempt winning (what the estimator did before it left such pairs out). For comparison only.
   */
  keepDisturbed?: boolean;
  /** Leave the speed check out (a pair whose cells ran at different CPU speeds enters as clean). For comparison only. */
  noSpeedCheck?: boolean;
  /** Called at the end of each run with its pairs per cell and the stop rule's final state (to replay them). */
  onRun?: (pairs: readonly PairObs[][], state: readonly AdaptiveCell[]) => void;
}

/** One simulated cell at the end of its run. */
export interface SimulatedCell {
  run: number;
  cell: number;
  truth: number;
  rounds: number;
  done: AdaptiveCell["done"] | "fixed";
  estimate: number | null;
  low: number | null;
  high: number | null;
  verdict: Verdict;
  /** Among the run's cells that stopped in the fewest rounds. */
  first: boolean;
  /** The target of the design (precisionPct), for the printed-width figures. */
  precisionPct: number;
}

/** Simulate `runs` runs of a design under one noise model through the shipped estimator and stop rule. */
export function simulateRuns(design: Design, noise: NoiseModel, opts: SimulationOptions): SimulatedCell[] {
  const u = seededRandom(opts.seed);
  const z = normalFrom(u);
  const out: SimulatedCell[] = [];
  const maxRounds =
    design.fixedRounds ?? Math.min(design.settings.max, design.budgetRounds ?? Number.POSITIVE_INFINITY);
  for (let run = 0; run < opts.runs; run++) {
    const k = design.cells;
    const sd = Array.from({ length: k }, () => noise.cellSd(u));
    const truth = Array.from({ length: k }, (_, i) => opts.truth?.(i, u) ?? 0);
    const pairs: PairObs[][] = Array.from({ length: k }, () => []);
    let state = Array.from({ length: k }, (_, i) => openAdaptiveCell(`t${i}`, 1));
    // The server each cell's stalls hit (+1: the numerator loses, the log ratio falls; -1: the denominator).
    const stallSide = noise.stallRate ? Array.from({ length: k }, () => (u() < 0.5 ? 1 : -1)) : [];
    const within = (r: readonly [number, number] | undefined) => (r ? r[0] + (r[1] - r[0]) * u() : 0);
    const stall = (i: number) =>
      noise.stallRate && u() < noise.stallRate ? stallSide[i] * Math.log(1 - within(noise.stallLoss)) : 0;
    const disturb = (): number | null =>
      noise.disturbRate && u() < noise.disturbRate ? Math.log(1 - within(noise.disturbLoss)) : null;
    let drift = 0;
    const step = () => (drift = noise.driftPhi * drift + Math.sqrt(1 - noise.driftPhi ** 2) * noise.driftSd * z());
    const speedCell = noise.speedSwitch ? speedSwitches(noise.speedSwitch, u, z) : () => null;
    let last: ReturnType<typeof estimateRun> | null = null;
    for (let round = 1; round <= maxRounds; round++) {
      const open = state.map((c) => !c.done);
      if (!open.some(Boolean)) break;
      const instance = noise.instanceSd * z() - noise.instanceSd * z();
      // The pair order alternates by round (plan/order.ts): the numerator first in odd rounds.
      const first: 1 | -1 = round % 2 ? 1 : -1;
      for (let i = 0; i < k; i++) {
        if (!open[i]) continue;
        // One attempt of the pair: its log ratio, and whether its cells ran at different CPU speeds (flagged).
        const attempt = (): { d: number; speedFlag: boolean } => {
          const g1 = step();
          const g2 = step();
          const s1 = speedCell();
          const s2 = speedCell();
          const burst =
            (u() < noise.burstRate ? noise.burstSd * z() : 0) - (u() < noise.burstRate ? noise.burstSd * z() : 0);
          // Both servers see the speed of their own cell: the numerator's cell is the first in odd rounds.
          const speed = s1 && s2 ? (first === 1 ? s1.level - s2.level : s2.level - s1.level) : 0;
          const speedFlag = !!s1 && !!s2 && !opts.noSpeedCheck && speedMismatch(s1.probe, s2.probe) !== null;
          return {
            d: truth[i] + sd[i] * z() + instance + (first === 1 ? g1 - g2 : g2 - g1) + burst + stall(i) + speed,
            speedFlag,
          };
        };
        let a = attempt();
        let disturbed = disturb();
        // A disturbed pair runs once more (CellLoop.rerunIfDisturbed); the last attempt is the one recorded.
        if (disturbed !== null || a.speedFlag) {
          a = attempt();
          disturbed = disturb();
        }
        const flagged = disturbed !== null || a.speedFlag;
        pairs[i].push({
          d: a.d + (disturbed ?? 0),
          instance: round - 1,
          order: first,
          ...(flagged && !opts.keepDisturbed ? { disturbed: true } : {}),
        });
      }
      const inputs: CellInput[] = pairs.map((p) => ({ pairs: p }));
      last = estimateRun(inputs, { sequential: design.fixedRounds === undefined });
      if (design.fixedRounds !== undefined) continue;
      state = state.map((c, i) => {
        const e = last!.cells[i];
        const next = { ...c };
        applyStopRule(
          next,
          {
            n: e.n,
            estimate: e.estimate,
            low: e.low,
            high: e.high,
            halfWidthPct: halfWidthPct(e),
            stopHalfWidthPct: e.stopHalfWidthPct ?? null,
          },
          open[i],
          design.settings,
        );
        return next;
      });
      if (design.budgetRounds !== undefined && round === design.budgetRounds) state = stopForBudget(state);
    }
    // The printed intervals, as the report computes them: each cell told how it stopped (estimateRun's `stop`).
    if (design.fixedRounds === undefined && last)
      last = estimateRun(
        pairs.map((p, i) => ({ pairs: p, stop: state[i].done ?? "open" })),
        { sequential: true },
      );
    opts.onRun?.(pairs, state);
    const rounds = state.map((c, i) => (design.fixedRounds !== undefined ? pairs[i].length : c.rounds));
    const fewest = Math.min(...rounds);
    for (let i = 0; i < k; i++) {
      const e = last!.cells[i];
      out.push({
        run,
        cell: i,
        truth: Math.exp(truth[i]) * 100,
        rounds: rounds[i],
        done: design.fixedRounds !== undefined ? "fixed" : state[i].done,
        estimate: e.estimate,
        low: e.low,
        high: e.high,
        verdict: e.verdict,
        first: rounds[i] === fewest,
        precisionPct: design.settings.precisionPct,
      });
    }
  }
  return out;
}

export interface CoverageSummary {
  cells: number;
  /** Share of cells whose interval holds the truth (a cell without an interval does not cover). */
  coverage: number;
  /** The same for the cells that stopped in the fewest rounds of their run. */
  coverageFirst: number;
  firstCells: number;
  /** A/A only (truth 100): share of cells with a faster or slower verdict. */
  falseVerdicts: number | null;
  medianRounds: number;
  /** Median half-width of the printed intervals, in % of the estimate. */
  medianHalfWidthPct: number;
  /** How the cells stopped. */
  stops: Record<string, number>;
  /** Of the cells that stopped on precision: the share whose printed half-width exceeds 2× the target, and the share
   *  whose printed half-width exceeds the target (null without a precision stop). */
  printedOver2x: number | null;
  printedOverTarget: number | null;
  /** Of the cells that stopped on precision: the share printed wider than 1.2× the target, and the widest printed
   *  half-width over its target (null without a precision stop). */
  printedOver1_2x: number | null;
  printedMaxRatio: number | null;
}

const medianOf = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** Coverage, false verdicts and cost of simulated cells. */
export function summarizeCoverage(cells: readonly SimulatedCell[]): CoverageSummary {
  const covers = (c: SimulatedCell) => c.low !== null && c.high !== null && c.low <= c.truth && c.truth <= c.high;
  const first = cells.filter((c) => c.first);
  const aa = cells.every((c) => Math.abs(c.truth - 100) < 1e-9);
  const stops: Record<string, number> = {};
  for (const c of cells) stops[String(c.done)] = (stops[String(c.done)] ?? 0) + 1;
  const precision = cells.filter((c) => c.done === "precision");
  return {
    cells: cells.length,
    coverage: cells.filter(covers).length / cells.length,
    coverageFirst: first.filter(covers).length / first.length,
    firstCells: first.length,
    falseVerdicts: aa
      ? cells.filter((c) => directionOfKind(c.verdict) === "faster" || directionOfKind(c.verdict) === "slower").length /
        cells.length
      : null,
    medianRounds: medianOf(cells.map((c) => c.rounds)),
    medianHalfWidthPct: medianOf(
      cells.filter((c) => c.high !== null && c.estimate !== null).map((c) => (c.high! / c.estimate! - 1) * 100),
    ),
    stops,
    printedOver2x: precision.length
      ? precision.filter((c) => printedHw(c) > 2 * c.precisionPct).length / precision.length
      : null,
    printedOverTarget: precision.length
      ? precision.filter((c) => printedHw(c) > c.precisionPct).length / precision.length
      : null,
    printedOver1_2x: precision.length
      ? precision.filter((c) => printedHw(c) > 1.2 * c.precisionPct).length / precision.length
      : null,
    printedMaxRatio: precision.length ? Math.max(...precision.map((c) => printedHw(c) / c.precisionPct)) : null,
  };
}

/** A cell's printed half-width in % (Infinity without an interval). */
const printedHw = (c: SimulatedCell): number =>
  c.high !== null && c.estimate !== null ? (c.high / c.estimate - 1) * 100 : Number.POSITIVE_INFINITY;
