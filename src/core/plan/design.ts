/**
 * The budget-first design (pure, issue 28): given a scenario's matrix, a wall-time budget, the host's calibration
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
 *   longest block means (the host's own series when the calibration has one, else the notes' figures of
 *   2026-12-02: lag 1 0.77, 20 s blocks 11.1% where white noise gives 4.1%), scaled to the calibrated pair sd at
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
import {
  ASSUMED_INSTANCE_SD_PCT,
  ASSUMED_PAIR_SD_PCT,
  cellNoiseModel,
  cellPriorDf,
  costShapeOf,
  predictHalfWidthPct,
  sameCostShape,
  type Calibration,
  type CellLengthPoint,
  type CellNoise,
  type CellPriorDf,
} from "./calibration.ts";
import { parseDuration, type Scenario } from "../model/scenario/schema.ts";
import { MIN_UNITS_FOR_PRECISION_STOP } from "../stats/estimate.ts";
import { PACE_SD_PCT, simulateAdaptive, type AdaptiveCosts, type AdaptiveSimResult } from "../stats/simulate.ts";
import { planRun, type EstimateItem } from "./plan.ts";
import { formatSeconds } from "../base/units.ts";
import { testWrites } from "../model/scenario/legacy.ts";
import { DEFAULT_SETUP_COSTS, type SetupCosts } from "../model/setup-costs.ts";
import { loadBoundWarnings } from "./loadbound.ts";
import { containerCores } from "../measure/cellstate.ts";
import { priorText } from "./precision.ts";
import type { DesignForecast } from "../model/results.ts";

/** The notes' figures of this project's VM (2026-12-02, /work/shared/notes/noise-and-statistics-facts.md §6). */
export const NOTES_SERIES = { lag1: 0.77, blockSeconds: 20, blockCvPct: 11.1, whiteCvPct: 4.1 } as const;
/** The cell length of the A/A pairs behind ASSUMED_PAIR_SD_PCT (notes §2: 6 s cells). */
export const ASSUMED_PAIR_CELL_SECONDS = 6;
/** Cell lengths the design considers (seconds). */
export const CELL_LENGTHS = [5, 10, 15, 20, 30, 45, 60, 90, 120, 180, 300] as const;
/** Rounds per server instance a fixed design considers (1: a fresh instance every round). */
export const ROUNDS_PER_INSTANCE = [1, 2, 3, 4, 6] as const;
/** The margin the design reports against (the verdict's default, docs/stats.md). */
export const DESIGN_MARGIN_PCT = 5;

/** The pair sd at a cell length, and where it comes from. */
export interface PairSdAtLength {
  source: "curve" | "host series" | "notes";
  /** Pair sd (%) at `seconds` cells. */
  at: (seconds: number) => number;
  note: string;
}

/** The variance factor of the mean of L seconds of an AR(1) with lag-1 autocorrelation φ (1 at L = 1). */
export function ar1MeanFactor(phi: number, seconds: number): number {
  const L = Math.max(1, seconds);
  if (!(phi > 0)) return 1 / L;
  if (phi >= 1) return 1;
  return (1 / L) * ((1 + phi) / (1 - phi) - (2 * phi * (1 - phi ** L)) / (L * (1 - phi) ** 2));
}

/**
 * One server's cell-mean variance against its length: a slow level (variance f²) plus an AR(1) part (w²), fitted
 * so that the per-second CV c and the CV b of B-second block means hold: f² + w² = c², f² + w² g(B) = b².
 */
export function seriesVariance(o: {
  lag1: number;
  cvPct: number;
  blockSeconds: number;
  blockCvPct: number;
}): (seconds: number) => number {
  const c2 = (o.cvPct / 100) ** 2;
  const b2 = (o.blockCvPct / 100) ** 2;
  const g = ar1MeanFactor(o.lag1, o.blockSeconds);
  const w2 = g < 1 ? Math.max(0, Math.min(c2, (c2 - b2) / (1 - g))) : 0;
  const f2 = Math.max(0, c2 - w2);
  return (L) => f2 + w2 * ar1MeanFactor(o.lag1, L);
}

/** The pair sd against cell length this calibration gives (see the module comment). */
export function pairSdAtLength(cal: Calibration | null): PairSdAtLength {
  const curve = cal?.cellLengthCurve?.filter((p) => p.cellSeconds > 0 && p.pairSdPct > 0) ?? [];
  if (curve.length >= 2) {
    const f = fitCurve(curve);
    return {
      source: "curve",
      at: f.at,
      note:
        `the calibration's curve (${curve.map((p) => `${p.cellSeconds} s: ${p.pairSdPct.toFixed(1)}% (df ${Math.round(p.pairDf)})`).join(", ")}), ` +
        `fitted as pair sd ∝ length^−${f.slope.toFixed(2)} (least squares on the logs, weighted by df; the slope held to 0–0.5, white noise's)`,
    };
  }
  const series = cal?.perSecond;
  const block = series?.blocks.at(-1);
  const fromSeries =
    series && block && series.autocorr.length && Number.isFinite(series.cvPct) && Number.isFinite(block.cvPct);
  const p = fromSeries
    ? { lag1: series.autocorr[0], cvPct: series.cvPct, blockSeconds: block.seconds, blockCvPct: block.cvPct }
    : {
        lag1: NOTES_SERIES.lag1,
        cvPct: NOTES_SERIES.whiteCvPct * Math.sqrt(NOTES_SERIES.blockSeconds),
        blockSeconds: NOTES_SERIES.blockSeconds,
        blockCvPct: NOTES_SERIES.blockCvPct,
      };
  const v = seriesVariance(p);
  const anchorSeconds = cal && cal.cellSeconds > 0 ? cal.cellSeconds : ASSUMED_PAIR_CELL_SECONDS;
  const anchorSd = curve.length === 1 ? curve[0].pairSdPct : (cal?.pairSdPct ?? ASSUMED_PAIR_SD_PCT);
  const at0 = curve.length === 1 ? curve[0].cellSeconds : anchorSeconds;
  const what = fromSeries ? "this host's per-second series" : "the notes' figures";
  return {
    source: fromSeries ? "host series" : "notes",
    at: (L) => anchorSd * Math.sqrt(v(L) / v(at0)),
    note:
      `a model from ${what} (lag-1 autocorrelation ${p.lag1.toFixed(2)}, per-second CV ${p.cvPct.toFixed(1)}%, ${p.blockSeconds} s block means ${p.blockCvPct.toFixed(1)}%), ` +
      `scaled to pair sd ${anchorSd.toFixed(1)}% at ${at0} s cells${cal ? "" : " (assumed: no calibration)"}; \`twinbench calibrate --lengths 10,30,90\` measures the curve`,
  };
}

/**
 * The curve's points fitted as a power law, ln sd = a − b ln L, by least squares weighted by each point's df (the
 * variance of a log sd is about 1/(2 df)), with b held to 0–0.5: longer cells never make it noisier, and no noise
 * falls faster than white noise's 1/√L. Below the shortest measured length the law goes on (shorter cells are
 * noisier); past the longest it is held flat (no gain is assumed that was not measured). Until 2026-12-06 the design took the
 * points at face value, log-log between them: that morning's 10 s point (3.2%, df 6) against 7 s (5.0%, df 21) fell
 * faster than white noise, and on 2026-12-03 the curve rose from 7 to 10 s (5.8%, 8.7%): both were chance, at 3–6 df.
 */
export function fitCurve(curve: readonly CellLengthPoint[]): { slope: number; at: (seconds: number) => number } {
  const pts = curve
    .filter((p) => p.cellSeconds > 0 && p.pairSdPct > 0)
    .map((p) => ({ x: Math.log(p.cellSeconds), y: Math.log(p.pairSdPct), w: p.pairDf > 0 ? p.pairDf : 1 }));
  const W = pts.reduce((a, p) => a + p.w, 0);
  const mx = pts.reduce((a, p) => a + p.w * p.x, 0) / W;
  const my = pts.reduce((a, p) => a + p.w * p.y, 0) / W;
  const sxx = pts.reduce((a, p) => a + p.w * (p.x - mx) ** 2, 0);
  const sxy = pts.reduce((a, p) => a + p.w * (p.x - mx) * (p.y - my), 0);
  const slope = Math.min(0.5, Math.max(0, sxx > 0 ? -sxy / sxx : 0));
  const hi = Math.max(...pts.map((p) => p.x));
  return { slope, at: (L) => Math.exp(my - slope * (Math.min(hi, Math.log(Math.max(L, 1))) - mx)) };
}

/** The warm-up the design gives a cell length: the length, held to 10–30 s. */
export function warmupFor(cellSeconds: number): number {
  return Math.min(30, Math.max(10, cellSeconds));
}

/** What the design starts from. */
export interface DesignInput {
  scenario: Scenario;
  budgetSeconds: number;
  calibration: Calibration | null;
  setupCosts?: Partial<SetupCosts>;
  /** `--precision`: an adaptive design (one host) that stops cells at the target and spends the rest on the others. */
  precisionPct?: number;
  /** Hosts to shard over (default: the scenario's hosts, else 1). */
  hosts?: number;
  /** Simulated runs for the ranges (default 200) and the cell lengths considered (default CELL_LENGTHS). */
  runs?: number;
  lengths?: readonly number[];
}

/** One candidate layout. */
export interface DesignCandidate {
  cellSeconds: number;
  warmupSeconds: number;
  /** Rounds (pairs per cell), instances, and rounds per instance. */
  rounds: number;
  instances: number;
  roundsPerInstance: number;
  pairSdPct: number;
  /** Expected half-width (%, the closed formula) and the plan's wall seconds. */
  halfWidthPct: number;
  seconds: number;
}

/** The design. */
export interface Design {
  budgetSeconds: number;
  hosts: number;
  mode: "fixed" | "adaptive";
  precisionPct: number | null;
  source: "calibration" | "assumed";
  noise: {
    source: PairSdAtLength["source"];
    note: string;
    instanceSdPct: number;
    instanceNote: string | null;
    cellPriorDf: number;
    cellPrior: CellPriorDf;
  };
  chosen: DesignCandidate;
  /** The best candidate of every cell length (what the choice was between). */
  byLength: DesignCandidate[];
  /** The test order, and the restores it saves against the read tests first. */
  tests: string[];
  restores: number;
  restoresSaved: number;
  /** The designed scenario (what `run --design` runs) and its overrides as --set values. */
  scenario: Scenario;
  overrides: string[];
  /** The plan's time per phase of the designed scenario (the longest host's with several). */
  phases: EstimateItem[];
  plannedSeconds: number;
  /** The shipped estimator and stop rule simulated at this design (one host): time, widths, coverage. */
  simulated: AdaptiveSimResult;
  /**
   * Each cell's forecast when the calibration recorded earlier runs of these cells on this data (cellNoiseModel):
   * its simulated half-width (median, 80% range) and its pair sds in those runs; null: one shared range.
   */
  cellForecast: Array<{
    cell: string;
    halfWidthPct: { median: number; low: number; high: number } | null;
    runs: number;
    pastSdPct: number[];
  }> | null;
  /** The cell model's runs and its two levels (sd of ln pair sd between cells, and between runs of a cell), when used. */
  cellModel: { runs: number; cellSeconds: number; betweenCellsLogSd: number; betweenRunsLogSd: number } | null;
  cells: number;
  /** Cells expected within ±DESIGN_MARGIN_PCT (simulated share × cells), and why the others cannot be. */
  cellsWithinMargin: number;
  cannot: string[];
  /** Time of this design on 1, 2 and 4 hosts (sharded), and what the budget buys there. */
  hostsForecast: Array<{ hosts: number; seconds: number; rounds: number; halfWidthPct: number }>;
}

const cellsOf = (s: Scenario) => s.workload.tests.length * s.workload.threads.length;
/** The cells' names in the simulation's order (the scenario's tests, then threads), as the calibration records them. */
const cellNames = (s: Scenario) => s.workload.tests.flatMap((t) => s.workload.threads.map((n) => `${t}@${n}`));

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

/** The write tests first when fresh: per-test (see the module comment); else the scenario's order. */
export function designOrder(s: Scenario): string[] {
  if (s.workload.fresh !== "per-test") return [...s.workload.tests];
  return [...s.workload.tests.filter(testWrites), ...s.workload.tests.filter((t) => !testWrites(t))];
}

/** The scenario of a fixed layout: L s cells, W s warm-up, R repeats over I instances, on `hosts` (sharded). */
function layoutScenario(
  s: Scenario,
  o: { cellSeconds: number; warmupSeconds: number; rounds: number; instances: number; tests: string[]; hosts: number },
): Scenario {
  const hosts =
    o.hosts > 1
      ? Array.from(
          { length: o.hosts },
          (_, i) => s.hosts?.[i] ?? { id: `host${i + 1}`, engine: `tcp://host${i + 1}:2375` },
        )
      : s.hosts?.slice(0, 1);
  return {
    ...s,
    ...(hosts ? { hosts } : {}),
    shard: o.hosts > 1,
    workload: {
      ...s.workload,
      tests: o.tests,
      duration: `${o.cellSeconds}s`,
      events: undefined,
      warmup: `${o.warmupSeconds}s`,
      repeats: o.rounds,
      instances: o.instances,
      budget: undefined,
    },
  };
}

/** Per-cell start-up measured by calibrate (seconds per pair at its cell length), else the plan's default. */
function overheadOf(cal: Calibration | null, costs: SetupCosts): number {
  if (cal?.secondsPerPair && cal.cellSeconds > 0) return Math.max(0, cal.secondsPerPair / 2 - cal.cellSeconds);
  return costs.cellOverheadSeconds;
}

/**
 * What runs here measured on data of this scenario's shape, as the plan's costs: a new instance per server, and the
 * teardown per server. The adaptive forecast has used them since 2026-12-06 (precision.ts adaptiveCosts); the design
 * did not, and priced a new instance on the 2 M-row RAID 0 at the model's 16.5 s a server where three runs had
 * measured 15.2–15.9 s.
 */
function measuredCosts(cal: Calibration | null, s: Scenario): Partial<SetupCosts> {
  if (!cal || !sameCostShape(cal.costShape, costShapeOf(s))) return {};
  const out: Partial<SetupCosts> = {};
  if (cal.restartSecondsPerServer !== undefined && cal.restartSecondsPerServer > 0)
    Object.assign(out, {
      instanceRestartSeconds: cal.restartSecondsPerServer,
      instanceRestartSecondsPerMillionRows: 0,
    });
  if (cal.teardownSeconds !== undefined && cal.teardownSeconds > 0 && s.servers.length > 0)
    out.teardownSeconds = cal.teardownSeconds / s.servers.length;
  return out;
}

interface LayoutCost {
  /** Wall seconds of one instance (k rounds) and each further instance. */
  first: number;
  perInstance: number;
}

function layoutCost(
  s: Scenario,
  o: { cellSeconds: number; warmupSeconds: number; k: number; tests: string[]; hosts: number },
  setupCosts: Partial<SetupCosts>,
): LayoutCost {
  const t = (inst: number) =>
    planRun(layoutScenario(s, { ...o, rounds: o.k * inst, instances: inst }), { setupCosts }).estimate.totalSeconds;
  const one = t(1);
  return { first: one, perInstance: t(2) - one };
}

/** The narrowest layout within the budget at each cell length (and the one chosen among them). */
function search(
  i: DesignInput,
  ctx: {
    tests: string[];
    hosts: number;
    instanceSdPct: number;
    sdAt: (L: number) => number;
    setupCosts: Partial<SetupCosts>;
  },
): DesignCandidate[] {
  const s = i.scenario;
  const cells = cellsOf(s);
  const adaptive = i.precisionPct !== undefined && ctx.hosts === 1;
  const minRounds = adaptive ? MIN_UNITS_FOR_PRECISION_STOP : 2;
  const out: DesignCandidate[] = [];
  for (const L of i.lengths ?? CELL_LENGTHS) {
    const W = warmupFor(L);
    const sd = ctx.sdAt(L);
    let best: DesignCandidate | null = null;
    // An adaptive run lays out a fresh instance every round (its default): k = 1 only.
    for (const k of adaptive ? [1] : ROUNDS_PER_INSTANCE) {
      const c = layoutCost(
        s,
        { cellSeconds: L, warmupSeconds: W, k, tests: ctx.tests, hosts: ctx.hosts },
        ctx.setupCosts,
      );
      if (c.first > i.budgetSeconds || !(c.perInstance > 0)) continue;
      const instances = 1 + Math.floor((i.budgetSeconds - c.first) / c.perInstance);
      const rounds = instances * k;
      if (rounds < minRounds) continue;
      const halfWidthPct = predictHalfWidthPct({
        pairSdPct: sd,
        instanceSdPct: ctx.instanceSdPct,
        pairs: rounds,
        instances,
        cells,
      });
      const cand = {
        cellSeconds: L,
        warmupSeconds: W,
        rounds,
        instances,
        roundsPerInstance: k,
        pairSdPct: sd,
        halfWidthPct,
        seconds: c.first + (instances - 1) * c.perInstance,
      };
      if (!best || cand.halfWidthPct < best.halfWidthPct - 1e-9) best = cand;
    }
    if (best) out.push(best);
  }
  return out;
}

/** Below this many df, a calibration's instance sd is not trusted to be small (see {@link designInstanceSd}). */
export const MIN_INSTANCE_DF = 10;

/**
 * The instance sd the design works with. With fewer than {@link MIN_INSTANCE_DF} df (or none measured), never less
 * than the assumed {@link ASSUMED_INSTANCE_SD_PCT}: on 2026-12-03 a calibration's 0.0% from 2 df (the method of
 * moments floored at 0) made the design keep 3 rounds per instance, and the run itself then measured 17.2% between
 * instances. A small instance sd lets a design save restarts; only enough df may buy that.
 */
export function designInstanceSd(
  cal: Pick<Calibration, "instanceSdPct" | "instanceDf" | "pairSdPct" | "pairHoldsInstances"> | null,
): { pct: number; note: string | null } {
  if (!cal) return { pct: ASSUMED_INSTANCE_SD_PCT, note: null };
  const measured = cal.instanceSdPct;
  if (measured === null && cal.pairHoldsInstances)
    return {
      pct: cal.pairSdPct / Math.SQRT2,
      note: `the calibration's pair sd ${cal.pairSdPct.toFixed(1)}% holds both levels (its runs had a fresh instance each round): split evenly, ${(cal.pairSdPct / Math.SQRT2).toFixed(1)}% each, as the notes found the two levels about equal`,
    };
  if (measured !== null && cal.instanceDf >= MIN_INSTANCE_DF) return { pct: measured, note: null };
  if (measured !== null && measured >= ASSUMED_INSTANCE_SD_PCT) return { pct: measured, note: null };
  return {
    pct: ASSUMED_INSTANCE_SD_PCT,
    note:
      measured === null
        ? `the calibration has no instance sd: ${ASSUMED_INSTANCE_SD_PCT}% assumed`
        : `the calibration's ${measured.toFixed(1)}% rests on ${Math.round(cal.instanceDf)} df (fewer than ${MIN_INSTANCE_DF}): ${ASSUMED_INSTANCE_SD_PCT}% assumed until more runs measure it`,
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
      tests: [...tests.filter((t) => !testWrites(t)), ...tests.filter(testWrites)],
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
    cells,
    cellsWithinMargin: 0,
    cannot: [],
    hostsForecast: [1, 2, 4].map((n) => hostForecast(i, { ...ctx, hosts: n }, chosen)),
  };
  d.cellsWithinMargin = Math.round(simulated.withinShare * cells);
  d.cannot = cannotReach(d, i, ctx);
  return d;
}

function longestHost(items: readonly EstimateItem[]): string | undefined {
  const by = new Map<string | undefined, number>();
  for (const x of items) by.set(x.host, (by.get(x.host) ?? 0) + x.seconds);
  return [...by].sort((a, b) => b[1] - a[1])[0]?.[0];
}

/** The designed scenario and the --set overrides that make it from the scenario file. */
function designedScenario(
  s: Scenario,
  c: DesignCandidate,
  o: { mode: Design["mode"]; tests: string[]; hosts: number; precisionPct?: number; budgetSeconds: number },
): { scenario: Scenario; overrides: string[] } {
  const max = Math.max(40, 2 * c.rounds);
  const repeats =
    o.mode === "adaptive" ? { min: MIN_UNITS_FOR_PRECISION_STOP, max, precision: `${o.precisionPct}%` } : c.rounds;
  const instances = o.mode === "adaptive" ? MIN_UNITS_FOR_PRECISION_STOP : c.instances;
  const budget = formatBudget(o.budgetSeconds);
  const workload = {
    ...s.workload,
    tests: o.tests,
    duration: `${c.cellSeconds}s`,
    events: undefined,
    warmup: `${c.warmupSeconds}s`,
    repeats,
    instances,
    budget: o.mode === "adaptive" ? budget : undefined,
  };
  const overrides = [
    `workload.tests=[${o.tests.join(", ")}]`,
    `workload.duration=${c.cellSeconds}s`,
    `workload.warmup=${c.warmupSeconds}s`,
    o.mode === "adaptive"
      ? `workload.repeats={min: ${MIN_UNITS_FOR_PRECISION_STOP}, max: ${max}, precision: "${o.precisionPct}%"}`
      : `workload.repeats=${c.rounds}`,
    `workload.instances=${instances}`,
    ...(o.mode === "adaptive" ? [`workload.budget=${budget}`] : []),
    ...(o.hosts > 1 ? ["shard=true"] : []),
  ];
  return { scenario: { ...s, shard: o.hosts > 1 ? true : s.shard, workload }, overrides };
}

/** 28800 → "8h", 1800 → "30m", else whole seconds: a duration the scenario's schema parses. */
export function formatBudget(seconds: number): string {
  const t = Math.floor(seconds);
  if (t > 0 && t % 3600 === 0) return `${t / 3600}h`;
  if (t > 0 && t % 60 === 0) return `${t / 60}m`;
  return `${t}s`;
}

/**
 * The design simulated (one host): the plan's time model as AdaptiveCosts (every instance's restart, warm-ups and
 * restores; the first instance's in the set-up), the pair sd at the chosen length, cells as unequal as measured.
 */
const priorDfText = (d0: number) => (Number.isFinite(d0) ? d0.toFixed(1) : "∞");

function simulateDesign(
  s: Scenario,
  c: DesignCandidate,
  o: {
    mode: Design["mode"];
    precisionPct?: number;
    budgetSeconds: number;
    instanceSdPct: number;
    runs?: number;
    plan: number;
    setupCosts: Partial<SetupCosts>;
    cal: Calibration | null;
    tests: string[];
    cellSd?: (z: () => number, chi2: (df: number) => number) => number[];
  },
): AdaptiveSimResult {
  const one = layoutCost(
    s,
    { cellSeconds: c.cellSeconds, warmupSeconds: c.warmupSeconds, k: 1, tests: o.tests, hosts: 1 },
    o.setupCosts,
  );
  const costs = { ...DEFAULT_SETUP_COSTS, ...o.setupCosts };
  const n = s.servers.length;
  const cells = cellsOf(s);
  const cellSeconds = c.cellSeconds + costs.cellOverheadSeconds;
  const warmupSeconds = c.warmupSeconds + costs.cellOverheadSeconds;
  const teardownSeconds = n * costs.teardownSeconds;
  const perRound = cells * n * cellSeconds;
  const warm = s.workload.tests.length * n * warmupSeconds;
  const sim: AdaptiveCosts = {
    setupSeconds: Math.max(0, one.first - perRound - warm - teardownSeconds),
    teardownSeconds,
    cellSeconds,
    restartSeconds: Math.max(0, one.perInstance - perRound - warm),
    warmupSeconds,
  };
  const adaptive = o.mode === "adaptive";
  return simulateAdaptive({
    cellTests: s.workload.tests.flatMap((_, t) => s.workload.threads.map(() => t)),
    servers: n,
    min: adaptive ? MIN_UNITS_FOR_PRECISION_STOP : c.rounds,
    max: adaptive ? Math.max(40, 2 * c.rounds) : c.rounds,
    precisionPct: adaptive ? (o.precisionPct ?? Number.NaN) : Number.NaN,
    roundsPerInstance: c.roundsPerInstance,
    pairSdPct: c.pairSdPct,
    instanceSdPct: o.instanceSdPct,
    cellPriorDf: cellPriorDf(o.cal, [], costShapeOf(s)).d0,
    // The time model's own error: without it a fixed design's 80% range of wall time is a single point (2026-12-03).
    paceSdPct: PACE_SD_PCT,
    budgetSeconds: adaptive ? o.budgetSeconds : undefined,
    costs: sim,
    // Fewer runs for an adaptive design: it estimates every round (a fixed one only at its last).
    runs: o.runs ?? (adaptive ? 100 : 200),
    sequential: adaptive,
    marginPct: DESIGN_MARGIN_PCT,
    ...(o.cellSd ? { cellSd: o.cellSd } : {}),
  });
}

function hostForecast(
  i: DesignInput,
  ctx: {
    tests: string[];
    hosts: number;
    instanceSdPct: number;
    sdAt: (L: number) => number;
    setupCosts: Partial<SetupCosts>;
  },
  c: DesignCandidate,
): Design["hostsForecast"][number] {
  const seconds = planRun(layoutScenario(i.scenario, { ...c, tests: ctx.tests, hosts: ctx.hosts }), {
    setupCosts: ctx.setupCosts,
  }).estimate.totalSeconds;
  // What the budget buys on this many hosts at the chosen cell length (a fixed count: hosts run no adaptive rounds).
  const here = search(
    { ...i, precisionPct: ctx.hosts === 1 ? i.precisionPct : undefined, lengths: [c.cellSeconds] },
    ctx,
  )[0];
  return {
    hosts: ctx.hosts,
    seconds,
    rounds: here?.rounds ?? 0,
    halfWidthPct: here?.halfWidthPct ?? Number.POSITIVE_INFINITY,
  };
}

/** Rounds at the chosen length and layout whose expected half-width reaches `target` (Infinity: none up to 400). */
function roundsFor(target: number, c: DesignCandidate, instanceSdPct: number, cells: number): number {
  for (let r = 2; r <= 400; r++) {
    const inst = Math.max(1, Math.ceil(r / c.roundsPerInstance));
    if (predictHalfWidthPct({ pairSdPct: c.pairSdPct, instanceSdPct, pairs: r, instances: inst, cells }) <= target)
      return r;
  }
  return Number.POSITIVE_INFINITY;
}

function cannotReach(d: Design, i: DesignInput, ctx: { instanceSdPct: number }): string[] {
  const out: string[] = [];
  const m = DESIGN_MARGIN_PCT;
  const c = d.chosen;
  if (!Number.isFinite(c.halfWidthPct)) {
    out.push(`no layout fits: not even 2 rounds of ${c.cellSeconds} s cells fit in ${formatSeconds(d.budgetSeconds)}`);
    return out;
  }
  const need = roundsFor(m, c, ctx.instanceSdPct, d.cells);
  if (c.halfWidthPct > m) {
    const more = Number.isFinite(need)
      ? `±${m}% needs about ${need} rounds (${Math.round(need / c.roundsPerInstance)} instances), roughly ${formatSeconds(c.seconds * (need / c.rounds))} at this layout`
      : `±${m}% is out of reach at this noise`;
    out.push(
      `no cell is expected within ±${m}%: at pair sd ${c.pairSdPct.toFixed(1)}% (${c.cellSeconds} s cells) and instance sd ${ctx.instanceSdPct.toFixed(1)}%, ` +
        `${formatSeconds(d.budgetSeconds)} buys ${c.rounds} rounds (expected ±${c.halfWidthPct.toFixed(1)}%); ${more}`,
    );
  }
  const wider = d.cells - d.cellsWithinMargin;
  if (d.cellForecast && c.halfWidthPct <= m) {
    // Cells forecast one by one: name those whose median forecast is wider than the margin, with their record.
    for (const f of d.cellForecast) {
      const hw = f.halfWidthPct;
      if (!hw || hw.median <= m) continue;
      const past = f.runs
        ? `its pair sd was ${f.pastSdPct.map((x) => `${x.toFixed(1)}%`).join(", ")} in the last ${f.runs === 1 ? "run" : `${f.runs} runs`} on this data`
        : "never run here: forecast as this data's typical cell";
      out.push(`${f.cell}: expected ${pct(hw.median)} (80%: ${pct(hw.low)}–${pct(hw.high)}): ${past}`);
    }
    const named = d.cellForecast.filter((f) => f.halfWidthPct && f.halfWidthPct.median > m).length;
    const unseen = d.cellForecast.filter((f) => f.runs === 0).length;
    const cm = d.cellModel;
    const why = [
      cm ? `a cell's noise changes between runs here (sd of ln pair sd ${cm.betweenRunsLogSd.toFixed(2)})` : "",
      unseen && cm
        ? `the ${unseen} cells not run here before are forecast as this data's typical cell, and cells here differ (sd ${cm.betweenCellsLogSd.toFixed(2)} between cells)`
        : "",
    ].filter(Boolean);
    if (wider > named)
      out.push(
        `about ${wider - named} more of ${d.cells} cells may end wider than ±${m}% (simulated): ${why.join("; ")}`,
      );
  } else if (wider > 0 && c.halfWidthPct <= m)
    out.push(
      `about ${wider} of ${d.cells} cells are expected wider than ±${m}% (simulated): the cells noisier than this host's typical pair sd (cells differ, prior df ${priorDfText(d.noise.cellPriorDf)}); ` +
        "which cells they are is not known before the run: the calibration has one pair sd for the host",
    );
  for (const w of loadBoundWarnings(i.scenario)) {
    const load = i.scenario.resources.load;
    const cores =
      load.cpuset === undefined && load.cpus === undefined
        ? null
        : containerCores(load.cpuset, load.cpus, Number.POSITIVE_INFINITY);
    const at = cores === null ? [] : i.scenario.workload.threads.filter((t) => t > cores);
    out.push(
      `${at.length ? `cells at ${at.join(", ")} threads` : "some cells"} may get no verdict (mark L, load-bound): ${w}`,
    );
  }
  return out;
}

const pct = (x: number) => (Number.isFinite(x) ? `±${x.toFixed(1)}%` : "±∞");

/** The design as `plan --budget` (and `run --budget --design`) prints it. */
export function designLines(d: Design): string[] {
  const c = d.chosen;
  const sim = d.simulated;
  const out = [
    "",
    `Design for a budget of ${formatSeconds(d.budgetSeconds)}${d.hosts > 1 ? ` on ${d.hosts} hosts (sharded)` : ""} (issue 28; docs/stats.md "Budget-first design"):`,
  ];
  out.push(
    `  noise: pair sd from ${d.noise.note}; instance sd ${d.noise.instanceSdPct.toFixed(1)}%${d.source === "assumed" ? " (assumed: no calibration)" : d.noise.instanceNote ? ` (${d.noise.instanceNote})` : ""}`,
  );
  out.push(
    `  design: ${c.cellSeconds} s cells, ${c.warmupSeconds} s warm-up, ${d.mode === "adaptive" ? `adaptive (min ${MIN_UNITS_FOR_PRECISION_STOP}, stop at ±${d.precisionPct}%, the budget spends the rest on the cells still open: the widest), about ` : ""}` +
      `${c.rounds} rounds on ${c.instances} server instance${c.instances === 1 ? "" : "s"} (${c.roundsPerInstance === 1 ? "a fresh instance every round" : `a new instance every ${c.roundsPerInstance} rounds`})`,
  );
  out.push(
    `  order: tests ${d.tests.join(", ")}${d.restoresSaved > 0 ? ` (write tests first: the first after each restart uses its fresh data; ${d.restoresSaved} restores saved, ${d.restores} left)` : d.restores ? ` (${d.restores} restores)` : ""}`,
  );
  out.push("  why this cell length (the narrowest layout that fits at each; expected half-width, closed formula):");
  for (const x of d.byLength)
    out.push(
      `    ${String(x.cellSeconds).padStart(3)} s: pair sd ${x.pairSdPct.toFixed(1)}%, ${x.rounds} rounds on ${x.instances} instances, ${pct(x.halfWidthPct)}, ${formatSeconds(x.seconds)}${x === c ? "  <- chosen" : ""}`,
    );
  out.push("  time per phase (the plan's model):");
  for (const p of d.phases) out.push(`    ${p.label}: ${formatSeconds(p.seconds)}`);
  out.push(`    total: ${formatSeconds(d.plannedSeconds)} of ${formatSeconds(d.budgetSeconds)}`);
  const hw = sim.halfWidthPct;
  if (d.cellForecast && d.cellModel) {
    const cm = d.cellModel;
    out.push(
      `  each cell from its own earlier runs on this data (${cm.runs} runs at ${cm.cellSeconds} s cells${cm.cellSeconds === c.cellSeconds ? "" : `, moved to ${c.cellSeconds} s by the pair-sd curve`}; ` +
        `ln pair sd differs by sd ${cm.betweenCellsLogSd.toFixed(2)} between cells and ${cm.betweenRunsLogSd.toFixed(2)} between runs of one cell), simulated half-width, median (80% range):`,
    );
    for (const f of d.cellForecast) {
      const x = f.halfWidthPct;
      const past = f.runs
        ? `pair sd before ${f.pastSdPct.map((v) => `${v.toFixed(1)}%`).join(", ")}`
        : "not run here before: the typical cell";
      out.push(`    ${f.cell}: ${x ? `${pct(x.median)} (${pct(x.low)}–${pct(x.high)})` : "no interval"}; ${past}`);
    }
    out.push(
      `  all cells: simulated ${hw ? `${pct(hw.median)} (80% of cells ${pct(hw.low)}–${pct(hw.high)})` : "no interval"}, expected ${pct(c.halfWidthPct)} at the host's pair sd; ` +
        `coverage of the 95% intervals ${(sim.coverage * 100).toFixed(1)}% (${sim.runs} simulated runs, shipped estimator and stop rule)`,
    );
  } else
    out.push(
      `  every cell (one pair sd for the host): expected ${pct(c.halfWidthPct)}; simulated ${hw ? `${pct(hw.median)} (80% of cells ${pct(hw.low)}–${pct(hw.high)})` : "no interval"}, ` +
        `coverage of the 95% intervals ${(sim.coverage * 100).toFixed(1)}% (${sim.runs} simulated runs, shipped estimator and stop rule, how unequal the cells are: ${priorText(d.noise.cellPrior)})`,
    );
  out.push(
    `  simulated wall time (one host): ${formatSeconds(sim.seconds.median)} (80%: ${formatSeconds(sim.seconds.low)}–${formatSeconds(sim.seconds.high)}), ${sim.rounds.median} rounds; cells expected within ±${DESIGN_MARGIN_PCT}%: ${d.cellsWithinMargin} of ${d.cells}`,
  );
  out.push(
    `  hosts: ${d.hostsForecast.map((h) => `${h.hosts} host${h.hosts === 1 ? "" : "s"}: this design ${formatSeconds(h.seconds)}; the budget buys ${h.rounds} rounds, ${pct(h.halfWidthPct)}`).join("; ")}`,
  );
  if (d.cannot.length) {
    out.push(`  cells that cannot reach ±${DESIGN_MARGIN_PCT}%, and why:`);
    for (const l of d.cannot) out.push(`    - ${l}`);
  } else out.push(`  every cell is expected within ±${DESIGN_MARGIN_PCT}%`);
  out.push(
    `  run it: twinbench run FILE --budget ${formatBudget(d.budgetSeconds)}${d.precisionPct !== null ? ` --precision ${d.precisionPct}%` : ""} --design (or --set ${d.overrides.map((o) => `'${o}'`).join(" --set ")})`,
  );
  return out;
}

/** The budget in seconds of a scenario's `workload.budget` (undefined when absent). */
export function budgetOf(s: Scenario): number | undefined {
  return s.workload.budget === undefined ? undefined : parseDuration(s.workload.budget);
}
