/**
 * The budget-first design (pure): given a scenario's matrix, a wall-time budget, the host's calibration
 * and the plan's time model, choose the cell length, the warm-up, the rounds and server instances and the test
 * order so that the expected interval half-width is as small as the budget allows.
 *
 * Kalibera & Jones ("Rigorous benchmarking in reasonable time", ISMM 2013): measure the variance at each level and
 * spend the repetitions where it is. Here two levels matter (docs/stats.md): the pair level, whose sd depends on the
 * cell length, and the level between server instances, which does not shrink with more pairs on one instance. A
 * cell's mean over R rounds on I instances has the variance s_pair(L)² / R + s_inst² / I, and the budget pays for
 * every measured cell (its length plus sysbench's start-up), every instance's restart, warm-ups and restores.
 *
 * - **Pair sd against cell length.** The calibration's curve (`calibrate --lengths`) when it has two points or more,
 *   fitted as a power law (weighted by df, the slope held to 0–0.5; {@link fitCurve}), held flat past the longest
 *   measured length. Else a model: one server's q/s as a slow
 *   level plus an AR(1) over seconds, fitted to the per-second CV, the lag-1 autocorrelation and the CV of the
 *   longest block means (the host's own series when the calibration has one, else the figures measured on
 *   this project's VM: lag 1 0.77, 20 s blocks 11.1% where white noise gives 4.1%), scaled to the calibrated pair sd at
 *   its cell length. The design says which it used.
 * - **Warm-up.** Not optimized: its effect on the noise is not measured. The rule is the cell length held to
 *   10–30 s (servers are prewarmed after every restart; the warm-up is against the first-cell shifts of the notes §2).
 * - **Order.** With `fresh: per-test`, the write tests go first: the first write test of every new instance runs on
 *   the data the restart has just restored, so it needs no restore of its own (src/app/run/cells.ts); read tests
 *   need none.
 * - **Time.** The plan's own estimate (planRun), with the measured start-up per cell when there is one, and the
 *   restart and teardown that runs measured on data of this shape.
 * - **Hosts.** With N hosts the rounds' groups are sharded (`shard: true`, group k to host k mod N) and the time is
 *   the longest host's, as the plan says; several hosts run a fixed count (adaptive runs are one host only).
 *
 * - **Cells one by one.** When the calibration recorded at least 2 earlier runs of these cells on data of this shape
 *   (named cells, their cell length), each cell's pair sd is forecast from its own runs (cellNoiseModel: a cell's
 *   level that carries over, such as update_index stalling at 64 threads, and the spread between runs that does not)
 *   and each cell gets its own range. Else every cell draws around the host's pair sd with the recorded prior df,
 *   and the range is one for all cells.
 *
 * The choice reads a closed formula (predictHalfWidthPct); the chosen design is then simulated through the shipped
 * estimator and stop rule (simulateAdaptive) for each cell's half-width range, the coverage and the time range.
 */
import type { DesignForecast } from "../../model/results.ts";
import type { DesignInput, DesignCandidate, Design } from "./types.ts";
import { type SetupCosts, DEFAULT_SETUP_COSTS } from "../../model/setup-costs.ts";
import {
  overheadOf,
  measuredCosts,
  designOrder,
  cellsOf,
  CELL_LENGTHS,
  warmupFor,
  layoutScenario,
  cellNames,
} from "./layout.ts";
import { designInstanceSd, pairSdAtLength } from "./noise.ts";
import { search, hostForecast } from "./search.ts";
import { designedScenario } from "./scenario.ts";
import { planRun } from "../plan.ts";
import { type EstimateItem } from "../estimate.ts";
import { testWrites } from "../../model/scenario/legacy.ts";
import { cellNoiseModel, cellPriorDf, type CellNoise } from "../calibration/cell-model.ts";
import { costShapeOf } from "../calibration/costs.ts";
import { simulateDesign } from "./simulate.ts";
import { cannotReach } from "./cannot.ts";
import type { AdaptiveSimResult } from "../../stats/simulate-model.ts";

/** What run.json keeps of a design's forecast (results.ts DesignForecast). */
export function designForecast(d: Design, at: string): DesignForecast {
  const r = (x: number) => Math.round(x * 10) / 10;
  const hw = d.simulated.halfWidthPct;
  return {
    at,
    budgetSeconds: d.budgetSeconds,
    mode: d.mode,
    cellSeconds: d.chosen.cellSeconds,
    rounds: d.chosen.rounds,
    instances: d.chosen.instances,
    plannedSeconds: Math.round(d.plannedSeconds),
    seconds: {
      median: Math.round(d.simulated.seconds.median),
      low: Math.round(d.simulated.seconds.low),
      high: Math.round(d.simulated.seconds.high),
    },
    halfWidthPct: hw ? { median: r(hw.median), low: r(hw.low), high: r(hw.high) } : null,
    cellPriorDf: Number.isFinite(d.noise.cellPriorDf) ? r(d.noise.cellPriorDf) : null,
    ...(d.cellForecast
      ? {
          cells: d.cellForecast.flatMap((c) =>
            c.halfWidthPct
              ? [
                  {
                    cell: c.cell,
                    median: r(c.halfWidthPct.median),
                    low: r(c.halfWidthPct.low),
                    high: r(c.halfWidthPct.high),
                  },
                ]
              : [],
          ),
        }
      : {}),
  };
}

/**
 * The design for a budget (see the module comment). Throws nothing: when not even the shortest cells fit two
 * rounds, `chosen` is the cheapest layout and `cannot` says so.
 */
export function designForBudget(i: DesignInput): Design {
  const s = i.scenario;
  const cal = i.calibration;
  const costs: SetupCosts = { ...DEFAULT_SETUP_COSTS, ...i.setupCosts };
  const setupCosts: Partial<SetupCosts> = {
    ...i.setupCosts,
    cellOverheadSeconds: overheadOf(cal, costs),
    ...measuredCosts(cal, s),
  };
  const hosts = Math.max(1, i.hosts ?? s.hosts?.length ?? 1);
  const inst = designInstanceSd(cal);
  // A pair sd that holds the instance level too: the pair level is its even share (designInstanceSd), so that a
  // fresh instance each round is charged the calibrated total once, not the total plus an assumed instance level.
  const sd = pairSdAtLength(
    cal && cal.instanceSdPct === null && cal.pairHoldsInstances
      ? { ...cal, pairSdPct: cal.pairSdPct / Math.SQRT2 }
      : cal,
  );
  const instanceSdPct = inst.pct;
  const tests = designOrder(s);
  const ctx = { tests, hosts, instanceSdPct, sdAt: sd.at, setupCosts };
  const byLength = search(i, ctx);
  const cells = cellsOf(s);
  const fallbackL = Math.min(...(i.lengths ?? CELL_LENGTHS));
  const chosen =
    [...byLength].sort((a, b) => a.halfWidthPct - b.halfWidthPct || a.seconds - b.seconds)[0] ??
    ({
      cellSeconds: fallbackL,
      warmupSeconds: warmupFor(fallbackL),
      rounds: 2,
      instances: 2,
      roundsPerInstance: 1,
      pairSdPct: sd.at(fallbackL),
      halfWidthPct: Number.POSITIVE_INFINITY,
      seconds: Number.POSITIVE_INFINITY,
    } satisfies DesignCandidate);
  const mode: Design["mode"] = i.precisionPct !== undefined && hosts === 1 ? "adaptive" : "fixed";
  const designed = designedScenario(s, chosen, {
    mode,
    tests,
    hosts,
    precisionPct: i.precisionPct,
    budgetSeconds: i.budgetSeconds,
  });
  const fixedPlan = planRun(layoutScenario(s, { ...chosen, tests, hosts }), { setupCosts });
  const readFirst = planRun(
    layoutScenario(s, {
      ...chosen,
      tests: [
        ...tests.filter((t) => !testWrites(t, s.workload.scripts)),
        ...tests.filter((t) => testWrites(t, s.workload.scripts)),
      ],
      hosts,
    }),
    { setupCosts },
  );
  // Cells recorded in earlier runs on this data: each forecast from its own runs (shrunk toward the typical cell),
  // moved to the chosen length by the pair-sd curve's ratio.
  const model = cellNoiseModel(cal, costShapeOf(s), cellNames(s), (from, to) => sd.at(to) / sd.at(from));
  const toChosen = model ? Math.log(sd.at(chosen.cellSeconds) / sd.at(model.cellSeconds)) : 0;
  const cellSd = model
    ? (z: () => number, chi2: (df: number) => number) => model.draw(z, chi2).map((x) => x * Math.exp(toChosen))
    : undefined;
  const simulated = simulateDesign(s, chosen, {
    mode,
    precisionPct: i.precisionPct,
    budgetSeconds: i.budgetSeconds,
    instanceSdPct,
    runs: i.runs,
    plan: fixedPlan.estimate.totalSeconds,
    setupCosts,
    cal,
    tests,
    cellSd,
  });
  const phases = fixedPlan.estimate.breakdown.filter(
    (b) => hosts === 1 || b.host === longestHost(fixedPlan.estimate.breakdown),
  );
  const d: Design = {
    budgetSeconds: i.budgetSeconds,
    hosts,
    mode,
    precisionPct: i.precisionPct ?? null,
    source: cal ? "calibration" : "assumed",
    noise: {
      source: sd.source,
      note: sd.note,
      instanceSdPct,
      instanceNote: inst.note,
      cellPriorDf: cellPriorDf(cal, [], costShapeOf(s)).d0,
      cellPrior: cellPriorDf(cal, [], costShapeOf(s)),
    },
    chosen,
    byLength,
    tests,
    restores: fixedPlan.restores.length,
    restoresSaved: readFirst.restores.length - fixedPlan.restores.length,
    scenario: designed.scenario,
    overrides: designed.overrides,
    phases,
    plannedSeconds: fixedPlan.estimate.totalSeconds,
    simulated,
    ...cellForecastOf(model, simulated),
    cells,
    cellsWithinMargin: 0,
    cannot: [],
    hostsForecast: [1, 2, 4].map((n) => hostForecast(i, { ...ctx, hosts: n }, chosen)),
  };
  d.cellsWithinMargin = Math.round(simulated.withinShare * cells);
  d.cannot = cannotReach(d, i, ctx);
  return d;
}

/** Each cell's forecast and the cell model's two levels, when the design forecasts the cells one by one. */
function cellForecastOf(
  model: ReturnType<typeof cellNoiseModel>,
  simulated: AdaptiveSimResult,
): Pick<Design, "cellForecast" | "cellModel"> {
  return {
    cellForecast: model
      ? model.cells.map((c: CellNoise, k) => ({
          cell: c.cell,
          halfWidthPct: simulated.cellHalfWidthPct[k] ?? null,
          runs: c.runs,
          pastSdPct: c.pastSdPct,
        }))
      : null,
    cellModel: model
      ? {
          runs: model.runs,
          cellSeconds: model.cellSeconds,
          betweenCellsLogSd: Math.sqrt(model.between) / 2,
          betweenRunsLogSd: Math.sqrt(model.within) / 2,
        }
      : null,
  };
}

function longestHost(items: readonly EstimateItem[]): string | undefined {
  const by = new Map<string | undefined, number>();
  for (const x of items) by.set(x.host, (by.get(x.host) ?? 0) + x.seconds);
  return [...by].sort((a, b) => b[1] - a[1])[0]?.[0];
}
