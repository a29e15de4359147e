/**
 * What `twinbench calibrate` runs (pure): its A/A and per-second scenarios, the curve's A/A runs, and how it spends
 * the time given by the plan's time model.
 */
import type { Scenario } from "../model/scenario/schema.ts";
import type { SetupCosts } from "../model/setup-costs.ts";
import { planRun } from "./plan.ts";

/**
 * The A/A scenario of calibrate, from a scenario: its first server's image against itself (servers `a` and `b`, same
 * config, storage, resources, transport, data set, warm-up and cell length), on at most `maxCells` cells of its
 * tests × threads (the first two tests at the first thread count, else the first test at two thread counts), with
 * a fixed count of `repeats` and one instance (calibrate gets instances from separate runs).
 */
export function aaScenario(s: Scenario, repeats: number, maxCells = 2): Scenario {
  const first = s.servers[0];
  const w = s.workload;
  const tests = w.tests.length >= 2 ? w.tests.slice(0, maxCells) : w.tests.slice(0, 1);
  const threads =
    tests.length >= maxCells ? w.threads.slice(0, 1) : w.threads.slice(0, Math.max(1, maxCells - tests.length + 1));
  const server = (id: string) => ({ ...first, id, storage: first.storage ?? s.storage });
  const { instances: _i, budget: _b, ...rest } = w;
  const { hosts: _h, orderSeed: _o, ...base } = s;
  return {
    ...base,
    name: `${s.name}-calibrate-aa`,
    servers: [server("a"), server("b")],
    compare: { numerator: "a", denominator: "b" },
    order: "interleaved",
    shard: false,
    workload: { ...rest, tests, threads, repeats },
  };
}

/** One server (the first), its first test at its first thread count, one cell of `seconds`: the per-second series. */
export function seriesScenario(s: Scenario, seconds: number): Scenario {
  const first = s.servers[0];
  const { instances: _i, budget: _b, ...rest } = s.workload;
  const { hosts: _h, orderSeed: _o, compare: _c, ...base } = s;
  return {
    ...base,
    name: `${s.name}-calibrate-series`,
    servers: [{ ...first, id: "a", storage: first.storage ?? s.storage }],
    order: "interleaved",
    shard: false,
    workload: {
      ...rest,
      tests: s.workload.tests.slice(0, 1),
      threads: s.workload.threads.slice(0, 1),
      repeats: 1,
      duration: `${seconds}s`,
      events: undefined,
    },
  };
}

/** How calibrate spends its time: the series' length, and the A/A runs' cells, repeats and instances. */
export interface CalibrationLayout {
  seriesSeconds: number;
  cells: number;
  repeats: number;
  instances: number;
  /** The plan's estimate of the whole calibration and of one A/A run, and whether the whole fits the time given. */
  estimateSeconds: number;
  runSeconds: number;
  fits: boolean;
  /**
   * The curve's A/A runs (`calibrate --lengths`): one run per cell length, `repeats` pairs on `cells` cells, each
   * with its plan estimate (included in estimateSeconds). Empty without --lengths.
   */
  curve: Array<{ cellSeconds: number; cells: number; repeats: number; runSeconds: number }>;
}

/**
 * Lay calibrate out within `maxSeconds` by the plan's time model: a series of `seriesSeconds` (default 90, at most
 * 15% of the time), then `instances` A/A runs (default 3) with as many pairs as fit, up to `pairs` (default 30)
 * in all; 2 cells when that costs no pairs, else 1. At least 2 repeats a run, even when that does not fit.
 */
export function calibrationLayout(
  s: Scenario,
  maxSeconds: number,
  o: {
    pairs?: number;
    instances?: number;
    seriesSeconds?: number;
    setupCosts?: Partial<SetupCosts>;
    lengths?: readonly number[];
  } = {},
): CalibrationLayout {
  const instances = o.instances ?? 3;
  const target = o.pairs ?? 30;
  const seriesSeconds = Math.max(10, Math.min(o.seriesSeconds ?? 90, Math.floor(maxSeconds * 0.15)));
  const cost = (x: Scenario) => planRun(x, { setupCosts: o.setupCosts }).estimate.totalSeconds;
  const curve = curveLayout(s, o.lengths ?? [], cost);
  const curveCost = curve.reduce((a, c) => a + c.runSeconds, 0);
  const seriesCost = cost(seriesScenario(s, seriesSeconds)) + curveCost;
  let best: CalibrationLayout | null = null;
  for (const cells of [2, 1]) {
    const actual = planRun(aaScenario(s, 1, cells)).cells.length / 2;
    for (let repeats = Math.max(2, Math.ceil(target / (actual * instances))); repeats >= 2; repeats--) {
      const run = cost(aaScenario(s, repeats, cells));
      const total = seriesCost + instances * run;
      if (total > maxSeconds) continue;
      const layout = {
        seriesSeconds,
        cells: actual,
        repeats,
        instances,
        estimateSeconds: total,
        runSeconds: run,
        fits: true,
        curve,
      };
      if (!best || repeats * actual > best.repeats * best.cells) best = layout;
      break;
    }
  }
  const smallest = cost(aaScenario(s, 2, 1));
  return (
    best ?? {
      seriesSeconds,
      cells: 1,
      repeats: 2,
      instances,
      estimateSeconds: seriesCost + instances * smallest,
      runSeconds: smallest,
      fits: false,
      curve,
    }
  );
}

/** Pairs per cell length of the curve's A/A runs: enough for a few df per point, on calibrate's cells. */
export const CURVE_PAIRS = 4;

/** The curve's A/A runs: one per length, CURVE_PAIRS pairs on 2 cells (1 cell past 60 s), at that cell length. */
function curveLayout(
  s: Scenario,
  lengths: readonly number[],
  cost: (x: Scenario) => number,
): CalibrationLayout["curve"] {
  return [...new Set(lengths)]
    .sort((a, b) => a - b)
    .map((cellSeconds) => {
      const aa = curveScenario(s, cellSeconds, cellSeconds > 60 ? 1 : 2);
      return {
        cellSeconds,
        cells: planRun(aa).cells.length / (2 * CURVE_PAIRS),
        repeats: CURVE_PAIRS,
        runSeconds: cost(aa),
      };
    });
}

/** The A/A scenario of one curve point: calibrate's A/A on `cells` cells, CURVE_PAIRS pairs of `cellSeconds` cells. */
export function curveScenario(s: Scenario, cellSeconds: number, cells: number): Scenario {
  const aa = aaScenario(s, CURVE_PAIRS, cells);
  return {
    ...aa,
    name: `${s.name}-calibrate-aa-${cellSeconds}s`,
    workload: { ...aa.workload, duration: `${cellSeconds}s`, events: undefined },
  };
}
