/**
 * A host's noise calibration (`twinbench calibrate`, updated by every run's pooled residuals): what the statistics
 * and the planner assume about this machine. Kept per host, keyed by the host's facts (see calibration store in
 * src/adapters/calibration-store.ts). Pure: the types, the key, the series and pair statistics, the update by a run
 * and the precision predictions of `plan`.
 */
import { mean, stddev, tQuantile } from "../base/distributions.ts";
import type { CellRecord, HostFacts } from "../model/results.ts";
import type { Scenario } from "../model/scenario/schema.ts";
import { measureRecords, metricValue } from "../stats/ratio.ts";
import { planRun } from "./plan.ts";
import { type SetupCosts } from "../model/setup-costs.ts";
import { digamma, fitPooledPriorDf, fitVariancePrior, trigamma, type VarianceObs } from "../stats/estimate.ts";
import { ASSUMED_CELL_PRIOR_DF } from "../stats/simulate.ts";

/** CV of block means for one block length, against what white noise would give. */
export interface BlockCv {
  seconds: number;
  cvPct: number;
  whiteNoiseCvPct: number;
}

/** One host's calibration. Percentages are of the q/s (log units × 100 for the pair and instance sds). */
export interface Calibration {
  /** Schema version of this file. */
  version: 1;
  /** The host key (see {@link hostKey}) and the facts it was made from. */
  hostKey: string;
  hostFacts: Record<string, string>;
  /** When calibrate measured it, and when a run last updated it (ISO). */
  measuredAt: string;
  updatedAt: string;
  /** The scenario calibrate ran (file name or name), and the cell length its pairs used. */
  scenario: string;
  cellSeconds: number;
  /** One server, one long run with a per-second report. */
  perSecond: { seconds: number; cvPct: number; autocorr: number[]; blocks: BlockCv[] } | null;
  /** A/A pairs on fresh server instances: sd of log pair ratios within instances, and its degrees of freedom. */
  pairSdPct: number;
  pairDf: number;
  /** sd between server instances (log units × 100), and its df; null when only one instance ran. */
  instanceSdPct: number | null;
  instanceDf: number;
  /** Measured wall seconds per pair (both cells, overheads included) at cellSeconds, for planning. */
  secondsPerPair: number | null;
  /** Runs whose pooled residuals updated this calibration since calibrate measured it. */
  updates: number;
  /**
   * True when `pairSdPct` holds the instance level too (absent: it does not): every run folded in had a fresh
   * server instance each round, so a cell's spread was both levels together, and no instance sd is known.
   */
  pairHoldsInstances?: boolean;
  /**
   * What the last run here measured of its fixed costs (absent in files calibrate wrote before issue 25): seconds
   * from its start to its first measured cell without image builds, and its teardown.
   */
  setupSeconds?: number;
  teardownSeconds?: number;
  /** What the last run here measured for one change of server instance, per server (restore, start, prewarm). */
  restartSecondsPerServer?: number;
  /**
   * The data those costs were measured with (absent in files written before 2026-12-06): rows per server and the
   * storage kind. Set-up and restarts grow with the data ({@link sameCostShape}), so a plan reuses them only for a
   * scenario of the same shape.
   */
  costShape?: CostShape;
  /**
   * Pair sd against cell length (issue 28 §4; absent in older files): A/A pairs within one instance at each length
   * `calibrate --lengths` ran, sorted by length. The budget design (src/core/plan/design.ts) reads it when present.
   */
  cellLengthCurve?: CellLengthPoint[];
  /**
   * How unequal the cells of the last runs here were (absent in older files): per run (the newest
   * {@link CELL_SPREAD_RUNS}), each cell's variance of its undisturbed log pair ratios and its df. The forecast's prior
   * df of the cells' pair sds is fitted from them ({@link cellPriorDf}).
   */
  cellSpread?: CellSpreadRun[];
}

/** Rows per server (tables × tableSize) and storage kind of the run whose costs a calibration keeps. */
export interface CostShape {
  rows: number;
  storage: string;
}

/** A scenario's cost shape: its rows per server and its first server's storage kind. */
export function costShapeOf(s: Pick<Scenario, "workload" | "storage" | "servers">): CostShape {
  return { rows: s.workload.tables * s.workload.tableSize, storage: (s.servers[0]?.storage ?? s.storage).kind };
}

/**
 * Can a plan of `want` reuse costs measured at `had`? The same storage kind and rows within a factor of 2 (a quick
 * run's 10 k rows restart in about 3 s a server; a 2 M-row table on RAID 0 took 11–22 s, 2026-12-06). A calibration
 * without a shape (written before it was kept) is reused only for small data (at most 100 k rows), as those costs
 * came from the default scenario.
 */
export function sameCostShape(had: CostShape | undefined, want: CostShape): boolean {
  if (!had) return want.rows <= 100_000;
  return had.storage === want.storage && want.rows <= 2 * had.rows && had.rows <= 2 * want.rows;
}

/** One run's cells in {@link Calibration.cellSpread}. */
export interface CellSpreadRun {
  at: string;
  cells: CellVarianceObs[];
  /** The run's data (absent in files written before 2026-12-06): cells on other data are unequal in other ways. */
  shape?: CostShape;
  /** The run's cell length, seconds (absent before 2026-12-06 and for runs of events): {@link cellNoiseModel} needs it. */
  cellSeconds?: number;
}

/** Runs kept in {@link Calibration.cellSpread}: the host's recent state, not its history. */
export const CELL_SPREAD_RUNS = 10;

/** One point of the pair-sd-against-cell-length curve: A/A pairs at one cell length. */
export interface CellLengthPoint {
  cellSeconds: number;
  pairSdPct: number;
  pairDf: number;
}

/**
 * The curve of pair sd against cell length from calibrate's A/A runs: per length, the log pair ratios of each run
 * (one instance each) grouped by cell (nestedSd within instances). Lengths with no pair df are left out; sorted by
 * length. `runs[L]` holds, for each A/A run at length L, its pairs per cell.
 */
export function cellLengthCurve(
  runs: ReadonlyMap<number, ReadonlyArray<ReadonlyMap<string, readonly number[]>>>,
): CellLengthPoint[] {
  const out: CellLengthPoint[] = [];
  for (const [cellSeconds, instances] of runs) {
    const keys = [...new Set(instances.flatMap((p) => [...p.keys()]))];
    const sd = nestedSd(keys.map((k) => instances.map((p) => [...(p.get(k) ?? [])])));
    if (sd.pairDf > 0 && Number.isFinite(sd.pairSdPct))
      out.push({ cellSeconds, pairSdPct: sd.pairSdPct, pairDf: sd.pairDf });
  }
  return out.sort((a, b) => a.cellSeconds - b.cellSeconds);
}

/** Is `v` a usable cellSpread (what the calibration store accepts for the optional field)? */
export function isCellSpread(v: unknown): v is CellSpreadRun[] {
  return (
    Array.isArray(v) &&
    v.every(
      (r) =>
        r &&
        typeof r === "object" &&
        typeof r.at === "string" &&
        Array.isArray(r.cells) &&
        r.cells.every(
          (c: unknown) =>
            c &&
            typeof c === "object" &&
            [(c as VarianceObs).s2, (c as VarianceObs).df].every(
              (x) => typeof x === "number" && Number.isFinite(x) && x >= 0,
            ),
        ),
    )
  );
}

/** Is `v` a usable curve (what the calibration store accepts for the optional field)? */
export function isCellLengthCurve(v: unknown): v is CellLengthPoint[] {
  return (
    Array.isArray(v) &&
    v.every(
      (p) =>
        p &&
        typeof p === "object" &&
        [p.cellSeconds, p.pairSdPct, p.pairDf].every((x) => typeof x === "number" && Number.isFinite(x)) &&
        p.cellSeconds > 0 &&
        p.pairSdPct > 0,
    )
  );
}

/**
 * The key of a host's calibration: the facts that change its noise (CPU model, cores, kernel, the engine's
 * storage driver and cgroup version). Stable across runs on one machine; a different VM type gets its own.
 */
export function hostKey(facts: {
  cpuModel?: string;
  cpus?: number;
  kernel?: string;
  storageDriver?: string;
  cgroupVersion?: string | number;
}): string {
  const parts = [
    facts.cpuModel ?? "cpu?",
    `${facts.cpus ?? "?"}cpu`,
    facts.kernel ?? "kernel?",
    facts.storageDriver ?? "driver?",
    `cgroup${facts.cgroupVersion ?? "?"}`,
  ];
  return parts
    .join("_")
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, "-")
    .replace(/-+/g, "-")
    .slice(0, 120);
}

/** The facts of a host that its calibration key is made of, as strings. */
export function keyFacts(
  f: Pick<HostFacts, "cpuModel" | "cpus" | "kernel" | "storageDriver" | "cgroupVersion">,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of ["cpuModel", "cpus", "kernel", "storageDriver", "cgroupVersion"] as const)
    if (f[k] !== undefined) out[k] = String(f[k]);
  return out;
}

// ---- one server's per-second series -----------------------------------------------------------------------------

/** Block lengths (seconds) whose block-mean CV calibrate reports. */
export const BLOCK_SECONDS = [2, 5, 10, 20] as const;

/** A per-second series' CV (%), autocorrelation at lags 1..`lags` and the CV of its block means (pure). */
export function seriesStats(
  values: readonly number[],
  o: { lags?: number; blocks?: readonly number[] } = {},
): NonNullable<Calibration["perSecond"]> {
  const n = values.length;
  const m = mean(values);
  const cvPct = (xs: readonly number[]) =>
    xs.length >= 2 && mean(xs) !== 0 ? (stddev(xs) / Math.abs(mean(xs))) * 100 : Number.NaN;
  const cv = cvPct(values);
  const ss = values.reduce((a, x) => a + (x - m) ** 2, 0);
  const autocorr: number[] = [];
  for (let k = 1; k <= (o.lags ?? 5) && k < n; k++) {
    let c = 0;
    for (let t = 0; t + k < n; t++) c += (values[t] - m) * (values[t + k] - m);
    autocorr.push(ss > 0 ? c / ss : 0);
  }
  const blocks: BlockCv[] = [];
  for (const len of o.blocks ?? BLOCK_SECONDS) {
    const count = Math.floor(n / len);
    if (count < 2) continue; // one block has no spread
    const means = Array.from({ length: count }, (_, b) => mean(values.slice(b * len, (b + 1) * len)));
    blocks.push({ seconds: len, cvPct: cvPct(means), whiteNoiseCvPct: cv / Math.sqrt(len) });
  }
  return { seconds: n, cvPct: cv, autocorr, blocks };
}

// ---- A/A pairs on several server instances ----------------------------------------------------------------------

/** The pair and instance levels of A/A pairs, in log units × 100 (≈ %). */
export interface NestedSd {
  pairSdPct: number;
  pairDf: number;
  instanceSdPct: number | null;
  instanceDf: number;
  pairs: number;
}

/**
 * Nested sds of log pair ratios: `cells[c][i]` holds the log pair ratios of cell c on server instance i. The pair
 * sd pools the deviations from each (cell, instance) mean (df: pairs − groups). The instance sd is the method of
 * moments of the one-way layout, pooled over cells (as estimateRun's τ²): Q = Σ k_i (m_i − m)², E[Q] = (I − 1)σ² +
 * (n − Σk_i²/n) τ², floored at 0; its df is Σ (I_c − 1). Null when no cell ran on 2 instances.
 */
export function nestedSd(cells: ReadonlyArray<ReadonlyArray<readonly number[]>>): NestedSd {
  let ss = 0;
  let df = 0;
  let pairs = 0;
  for (const cell of cells)
    for (const g of cell) {
      if (g.length === 0) continue;
      const gm = mean(g);
      for (const x of g) ss += (x - gm) ** 2;
      df += g.length - 1;
      pairs += g.length;
    }
  const s2 = df > 0 ? ss / df : Number.NaN;
  let q = 0;
  let den = 0;
  let instanceDf = 0;
  for (const cell of cells) {
    const gs = cell.filter((g) => g.length > 0);
    if (gs.length < 2) continue;
    const n = gs.reduce((a, g) => a + g.length, 0);
    const m = gs.reduce((a, g) => a + g.reduce((x, y) => x + y, 0), 0) / n;
    q += gs.reduce((a, g) => a + g.length * (mean(g) - m) ** 2, 0) - (gs.length - 1) * (Number.isFinite(s2) ? s2 : 0);
    den += n - gs.reduce((a, g) => a + g.length ** 2, 0) / n;
    instanceDf += gs.length - 1;
  }
  return {
    pairSdPct: Math.sqrt(s2) * 100,
    pairDf: df,
    instanceSdPct: instanceDf > 0 && den > 0 ? Math.sqrt(Math.max(0, q / den)) * 100 : null,
    instanceDf,
    pairs,
  };
}

/** A run's pooled residual variance of log pair ratios (within cells and instances) and its df. */
export interface PooledResiduals {
  s2: number;
  df: number;
}

/**
 * A run's log pair ratios (qps of `num` over `den`, paired by repeat, each key's last attempt), grouped by cell
 * (host, test, threads) and, within a cell, by server instance: cells[c][i] holds cell c's log ratios on instance i.
 */
function pairGroups(
  records: readonly CellRecord[],
  num: string,
  den: string,
  o: { skipDisturbed?: boolean } = {},
): number[][][] {
  return keyedPairGroups(records, num, den, o).map((g) => g.groups);
}

/** {@link pairGroups} with each cell's name, "test@threads" (with its host first on a multi-host run, "host:test@threads"). */
function keyedPairGroups(
  records: readonly CellRecord[],
  num: string,
  den: string,
  o: { skipDisturbed?: boolean } = {},
): Array<{ cell: string; groups: number[][] }> {
  const value = (r: CellRecord | undefined) => {
    const v =
      r && r.status === "ok" && r.metrics && r.metrics.status !== "failed" ? metricValue(r.metrics, "qps") : null;
    return typeof v === "number" && Number.isFinite(v) && v > 0 ? v : null;
  };
  const measured = measureRecords(records);
  const key = (r: CellRecord) => `${r.host ?? ""}|${r.test}|${r.threads}|${r.repeat}`;
  const dens = new Map(measured.filter((r) => r.server === den).map((r) => [key(r), r]));
  const cells = new Map<string, Map<number, number[]>>();
  for (const a of measured) {
    if (a.server !== num) continue;
    const b = dens.get(key(a));
    const va = value(a);
    const vb = value(b);
    if (va === null || vb === null) continue;
    // A pair that outside work disturbed (its last attempt too) says how busy the machine was, not how noisy it is.
    if (o.skipDisturbed && (a.interference?.disturbed || b?.interference?.disturbed)) continue;
    const cell = `${a.host ?? ""}|${a.test}|${a.threads}`;
    const inst = a.instance ?? b?.instance ?? 0;
    const groups = cells.get(cell) ?? new Map<number, number[]>();
    groups.set(inst, [...(groups.get(inst) ?? []), Math.log(va / vb)]);
    cells.set(cell, groups);
  }
  return [...cells].map(([k, g]) => {
    const [host, test, threads] = k.split("|");
    return { cell: `${host ? `${host}:` : ""}${test}@${threads}`, groups: [...g.values()] };
  });
}

/**
 * The pooled within-cell variance of a run's log pair ratios (qps of `num` over `den`, paired by repeat, grouped by
 * test, threads and server instance): what a run tells about the host's pair sd. Null with no df.
 */
export function pooledResiduals(records: readonly CellRecord[], num: string, den: string): PooledResiduals | null {
  // Every (cell, instance) group is one group of nestedSd's single cell: only the within-group spread counts.
  const sd = nestedSd([pairGroups(records, num, den).flat()]);
  return sd.pairDf > 0 ? { s2: (sd.pairSdPct / 100) ** 2, df: sd.pairDf } : null;
}

/**
 * A run's noise at both levels the calibration stores: log pair ratios (qps of `num` over `den`, paired by repeat)
 * grouped by cell (host, test, threads) and, within a cell, by server instance; {@link nestedSd} of that layout.
 * Null when no cell has 2 pairs on one instance (no pair df).
 */
export function runNoise(
  records: readonly CellRecord[],
  num: string,
  den: string,
  o: { skipDisturbed?: boolean } = {},
): RunNoise | null {
  return runLevels(pairGroups(records, num, den, o));
}

/**
 * Each cell's variance of its log pair ratios about the cell's mean (its instances together: with a fresh instance
 * every round, as quick.yaml runs, that is all a cell shows) and its df, n − 1. Cells with fewer than 2 pairs are
 * left out.
 */
export function cellVariances(cells: ReadonlyArray<readonly number[]>): VarianceObs[] {
  return cells
    .filter((g) => g.length >= 2)
    .map((g) => {
      const m = mean(g);
      return { s2: g.reduce((a, x) => a + (x - m) ** 2, 0) / (g.length - 1), df: g.length - 1 };
    });
}

/** The log pair ratios (qps a/b) of an A/A run per cell (test|threads), paired by repeat; pairs disturbed by outside work in their last attempt are left out and counted. */
export function aaPairsByCell(cells: readonly CellRecord[]): { pairs: Map<string, number[]>; disturbed: number } {
  const qps = (r: CellRecord) => {
    const v = r.status === "ok" && r.metrics && r.metrics.status !== "failed" ? metricValue(r.metrics, "qps") : null;
    return typeof v === "number" && v > 0 ? v : null;
  };
  const measured = measureRecords(cells);
  const bs = new Map(measured.filter((r) => r.server === "b").map((r) => [`${r.test}|${r.threads}|${r.repeat}`, r]));
  const out = new Map<string, number[]>();
  let disturbed = 0;
  for (const a of measured.filter((r) => r.server === "a")) {
    const b = bs.get(`${a.test}|${a.threads}|${a.repeat}`);
    const va = qps(a);
    const vb = b ? qps(b) : null;
    if (va === null || vb === null) continue;
    // A pair disturbed by outside work in its last attempt too measures the machine's load, not its noise: runs
    // leave such pairs out of the host's calibration, and calibrate does too. Until 2026-12-06 it kept them: two
    // pairs disturbed by a compile (8.9 k q/s against 15.3 k) took its pair sd from about 5% to 13.9%.
    if (a.interference?.disturbed || b?.interference?.disturbed) {
      disturbed++;
      continue;
    }
    const k = `${a.test}|${a.threads}`;
    out.set(k, [...(out.get(k) ?? []), Math.log(va / vb)]);
  }
  return { pairs: out, disturbed };
}

/**
 * One cell's variance in {@link Calibration.cellSpread}, with the cell's name ("test@threads"; absent before
 * 2026-12-06). A forecast from each cell's own earlier variance alone was tried on 2026-12-06 and dropped: most
 * cells' noise did not carry over from one run to the next. {@link cellNoiseModel} uses the names with shrinkage:
 * what carries over (a cell that stalls in every run) is kept, the rest is spread between runs.
 */
export type CellVarianceObs = VarianceObs & { cell?: string };

/** A run's cells for {@link Calibration.cellSpread}: {@link cellVariances} of its undisturbed pairs (num over den), named. */
export function runCellSpread(records: readonly CellRecord[], num: string, den: string): CellVarianceObs[] {
  return keyedPairGroups(records, num, den, { skipDisturbed: true })
    .map((g) => ({ cell: g.cell, flat: g.groups.flat() }))
    .filter((g) => g.flat.length >= 2)
    .map((g) => ({ ...cellVariances([g.flat])[0]!, cell: g.cell }));
}

/**
 * A run's pair level as the typical cell's, for the host's calibration. The forecast draws each cell's variance as
 * s²·d0/χ²(d0) around the calibration's pair sd s (src/core/stats/simulate.ts drawCellSd), so s must be the scale of
 * the cells' variances (limma's prior variance, {@link fitVariancePrior}), not their mean: with unequal cells the
 * mean is ruled by the noisiest. On 2026-12-06 a reduced seed run (6 cells on RAID 0, one of them stalling at 64
 * threads) pooled to a pair sd of about 20%, where its typical cell had 5.5% (prior df 1.4); folded in as it was, it
 * took the host's pair sd from 4.4% to 17.2%. With cells alike (no spread beyond sampling) or fewer than 2 cells,
 * the run's figure stays as it is; it is only ever lowered to the scale, never raised.
 */
export function typicalNoise(noise: RunNoise, spread: readonly VarianceObs[]): RunNoise {
  const prior = fitVariancePrior(spread);
  if (!(prior.d0 > 0) || !Number.isFinite(prior.d0) || !(prior.s02 > 0)) return noise;
  const df = spread.reduce((a, o) => a + (o.df > 0 && o.s2 > 0 ? o.df : 0), 0);
  const meanS2 = spread.reduce((a, o) => a + (o.df > 0 && o.s2 > 0 ? o.df * o.s2 : 0), 0) / df;
  const k = prior.s02 / meanS2;
  return k < 1 ? { ...noise, pairSdPct: noise.pairSdPct * Math.sqrt(k) } : noise;
}

/** The prior df of the cells' pair sds that the forecast simulates with, and where it came from. */
export interface CellPriorDf {
  d0: number;
  /** "recorded": fitted to the runs in the calibration's cellSpread (and the run's own cells); "assumed": {@link ASSUMED_CELL_PRIOR_DF}. */
  source: "recorded" | "assumed";
  runs: number;
  cells: number;
}

/**
 * How unequal this host's cells are (the prior df of their pair variances): fitted over the runs the calibration
 * recorded and, during a run, its own cells so far ({@link fitPooledPriorDf}); {@link ASSUMED_CELL_PRIOR_DF} when no
 * run has 2 cells with df. Until 2026-12-04 the forecast always assumed 2.2 (fitted on 2026-12-01), while the runs
 * of 2026-12-03 showed far more equal cells: one simulated noisy cell then kept the forecast run going to the budget.
 */
export function cellPriorDf(
  cal: Pick<Calibration, "cellSpread"> | null,
  own: readonly VarianceObs[] = [],
  shape?: CostShape,
): CellPriorDf {
  // With a shape, only runs on data of that shape (2026-12-06: one quick run's six read-mostly cells on tmpfs gave
  // prior df 25, "cells alike", to a design of write cells on a 2 M-row RAID 0, where one cell read ±196% before).
  const runs = (cal?.cellSpread ?? []).filter((r) => shape === undefined || sameCostShape(r.shape, shape));
  const groups = [...runs.map((r) => r.cells), own];
  const fit = fitPooledPriorDf(groups);
  if (!fit) return { d0: ASSUMED_CELL_PRIOR_DF, source: "assumed", runs: 0, cells: 0 };
  return { d0: fit.d0, source: "recorded", runs: fit.groups, cells: fit.cells };
}

/** One cell's pair sd in a new run, as {@link cellNoiseModel} forecasts it: log-normal, sd = exp(logSd + logSdSpread · z). */
export interface CellNoise {
  cell: string;
  /** Mean and sd of ln(pair sd as a fraction) at the model's cell length, for a new run. */
  logSd: number;
  logSdSpread: number;
  /** The cell's own earlier runs in the model (0: a cell never run here, forecast as the typical cell). */
  runs: number;
  /** Its earlier runs' pair sds (%), oldest first. */
  pastSdPct: number[];
}

/**
 * How noisy each named cell will be in the next run on this data, from the last runs here (issue 28): a
 * two-level model of the cells' log variances, y(c, r) = μ + a(c) + e(c, r), with a the cell's own level (it
 * carries over between runs: on 2026-12-06 update_index at 64 threads stalled in both reduced seed runs, pair sd 47%
 * and 73%, where its neighbours had 1–9%) and e the run's (it does not: oltp_simple at 64 threads went from 6.4% to
 * 1.1%). Each y is a log sample variance, unbiased by ψ(ν/2) − ln(ν/2) and with sampling variance ψ'(ν/2); the
 * two variances are a one-way random-effects ANOVA by moments (within cells, between cells' means), each floored
 * at 0. A cell's forecast is its mean shrunk toward μ by τa² / (τa² + (τe² + ψ')/n), with the variance left after
 * that shrinkage plus τe²; a cell not run before gets μ with τa² + τe².
 *
 * It needs at least 2 runs on data of `shape` that recorded their cell length and named cells, sharing at least 2
 * cells; else null (the forecast keeps one pair sd with the prior df of {@link cellPriorDf}). Runs at other cell
 * lengths are moved to the newest run's length by `sdRatio(from, to)` (the pair-sd curve's ratio). The two
 * variances and μ are estimated from as few as 2 runs, so `draw` (what the design simulates with) first draws them
 * from their sampling distributions, then the cells. With the point estimates alone, a seeded test's 80% ranges
 * held 73–75% of the next run's widths (3 runs recorded); `logSd` and `logSdSpread` are those point estimates.
 */
export function cellNoiseModel(
  cal: Pick<Calibration, "cellSpread"> | null,
  shape: CostShape,
  cells: readonly string[],
  sdRatio: (fromSeconds: number, toSeconds: number) => number = () => 1,
): {
  cellSeconds: number;
  runs: number;
  muLogVar: number;
  between: number;
  within: number;
  cells: CellNoise[];
  /** One draw of the cells' pair sds (fractions, `cells` order) for a simulated run, the model's uncertainty included. */
  draw: (z: () => number, chi2: (df: number) => number) => number[];
} | null {
  const runs = (cal?.cellSpread ?? []).filter(
    (r) =>
      sameCostShape(r.shape, shape) && r.cellSeconds !== undefined && r.cellSeconds > 0 && r.cells.some((c) => c.cell),
  );
  if (runs.length < 2) return null;
  const at = runs[runs.length - 1]!.cellSeconds!;
  // Per cell, its runs' unbiased log variances at the newest run's length, and their sampling variances.
  const byCell = new Map<string, Array<{ y: number; v: number; sd: number }>>();
  for (const r of runs) {
    const k = sdRatio(r.cellSeconds!, at);
    for (const o of r.cells) {
      if (!o.cell || !(o.df > 0) || !(o.s2 > 0) || !Number.isFinite(o.s2)) continue;
      const s2 = o.s2 * k * k;
      const y = Math.log(s2) - digamma(o.df / 2) + Math.log(o.df / 2);
      byCell.set(o.cell, [...(byCell.get(o.cell) ?? []), { y, v: trigamma(o.df / 2), sd: Math.sqrt(s2) * 100 }]);
    }
  }
  const repeated = [...byCell.values()].filter((g) => g.length >= 2);
  if (repeated.length < 2) return null;
  // Within cells: the spread of a cell's runs about its mean, less sampling.
  let ssWithin = 0;
  let dfWithin = 0;
  let sampling = 0;
  let nObs = 0;
  for (const g of repeated) {
    const m = g.reduce((a, x) => a + x.y, 0) / g.length;
    ssWithin += g.reduce((a, x) => a + (x.y - m) ** 2, 0);
    dfWithin += g.length - 1;
  }
  for (const g of byCell.values()) for (const x of g) ((sampling += x.v), nObs++);
  const psi = sampling / nObs;
  const within = Math.max(0, ssWithin / dfWithin - psi);
  // Between cells: the spread of the cells' means, less what runs and sampling put into a mean of n runs.
  const means = [...byCell.values()].map((g) => ({ m: g.reduce((a, x) => a + x.y, 0) / g.length, n: g.length }));
  const mu = means.reduce((a, x) => a + x.m, 0) / means.length;
  const spreadOfMeans = means.length > 1 ? means.reduce((a, x) => a + (x.m - mu) ** 2, 0) / (means.length - 1) : 0;
  const noiseInMeans = means.reduce((a, x) => a + (within + psi) / x.n, 0) / means.length;
  const between = Math.max(0, spreadOfMeans - noiseInMeans);
  const out: CellNoise[] = cells.map((cell) => {
    const g = byCell.get(cell) ?? [];
    if (!g.length) return { cell, logSd: mu / 2, logSdSpread: Math.sqrt(between + within) / 2, runs: 0, pastSdPct: [] };
    const m = g.reduce((a, x) => a + x.y, 0) / g.length;
    const noise = (within + psi) / g.length;
    const b = between + noise > 0 ? between / (between + noise) : 0;
    return {
      cell,
      logSd: (mu + b * (m - mu)) / 2,
      logSdSpread: Math.sqrt(within + between * (1 - b)) / 2,
      runs: g.length,
      pastSdPct: g.map((x) => x.sd),
    };
  });
  // One draw of every cell's pair sd in a new run, with the model's own uncertainty drawn first: the mean squares
  // from their χ² sampling distributions (within on its df, the cells' means on k − 1), μ from its standard error.
  const k = means.length;
  const msWithin = ssWithin / dfWithin;
  const draw = (z: () => number, chi2: (df: number) => number): number[] => {
    const w = Math.max(0, (msWithin * dfWithin) / chi2(dfWithin) - psi);
    const spread = k > 1 ? (spreadOfMeans * (k - 1)) / chi2(k - 1) : 0;
    const bt = Math.max(0, spread - means.reduce((a, x) => a + (w + psi) / x.n, 0) / k);
    const m0 = mu + Math.sqrt(spreadOfMeans / k) * z();
    return cells.map((cell) => {
      const g = byCell.get(cell) ?? [];
      if (!g.length) return Math.exp((m0 + Math.sqrt(bt + w) * z()) / 2);
      const m = g.reduce((a, x) => a + x.y, 0) / g.length;
      const noise = (w + psi) / g.length;
      const b = bt + noise > 0 ? bt / (bt + noise) : 0;
      return Math.exp((m0 + b * (m - m0) + Math.sqrt(w + bt * (1 - b)) * z()) / 2);
    });
  };
  return { cellSeconds: at, runs: runs.length, muLogVar: mu, between, within, cells: out, draw };
}

/** The calibration's cellSpread with a run's cells appended (the newest {@link CELL_SPREAD_RUNS}); unchanged with fewer than 2 cells. */
function withSpread(
  cal: Pick<Calibration, "cellSpread">,
  spread: readonly CellVarianceObs[] | undefined,
  at: string,
  shape?: CostShape,
  cellSeconds?: number,
): Pick<Calibration, "cellSpread"> {
  if (!spread || spread.length < 2) return cal.cellSpread ? { cellSpread: cal.cellSpread } : {};
  const run: CellSpreadRun = {
    at,
    cells: [...spread],
    ...(shape ? { shape } : {}),
    ...(cellSeconds !== undefined && cellSeconds > 0 ? { cellSeconds } : {}),
  };
  return { cellSpread: [...(cal.cellSpread ?? []), run].slice(-CELL_SPREAD_RUNS) };
}

/** How many of a run's pairs (num over den, by repeat) outside work disturbed: those a calibration update leaves out. */
export function disturbedPairs(
  records: readonly CellRecord[],
  num: string,
  den: string,
): { pairs: number; disturbed: number } {
  const all = pairGroups(records, num, den).flat(2).length;
  const kept = pairGroups(records, num, den, { skipDisturbed: true }).flat(2).length;
  return { pairs: all, disturbed: all - kept };
}

/** A run's noise: both levels (`nested`), or, when no instance held 2 pairs of a cell, their sum only (`total`). */
export type RunNoise = NestedSd & { levels: "nested" | "total" };

/**
 * {@link nestedSd} of a run's pairs (cells[c][i]: cell c's log ratios on instance i). A layout with a new instance
 * every round (quick.yaml: min 4, a fresh instance each round) has no pair df within instances: then the spread of each cell's
 * pairs about its mean is the pair and instance levels together, reported as the pair sd with `levels: "total"` and
 * no instance sd. Null with no df at all.
 */
export function runLevels(cells: ReadonlyArray<ReadonlyArray<readonly number[]>>): RunNoise | null {
  const sd = nestedSd(cells);
  if (sd.pairDf > 0) return { ...sd, levels: "nested" };
  const total = nestedSd(cells.map((g) => [g.flat()]));
  return total.pairDf > 0 ? { ...total, instanceSdPct: null, instanceDf: 0, levels: "total" } : null;
}

/**
 * The pair variance in a total (pair + instance) variance, given the instance variance: the difference, floored at
 * a quarter of the total (the two estimates come from different data; a difference near 0 would claim a quiet host).
 */
export function pairShareOf(totalS2: number, instanceS2: number | null): number {
  return instanceS2 === null ? totalS2 : Math.max(totalS2 - instanceS2, totalS2 / 4);
}

/** What a run measured of its own costs, to keep beside its noise (see {@link Calibration} setupSeconds). */
export interface RunCosts {
  /** Gross seconds per measured cell (sysbench start-up included) at `cellSeconds`. */
  grossCellSeconds?: number | null;
  cellSeconds: number;
  servers: number;
  setupSeconds?: number;
  teardownSeconds?: number;
  /** Median seconds of one change of server instance (every server), when the run changed instances. */
  restartSeconds?: number | null;
  /** The data the run's costs were measured with. */
  shape?: CostShape;
}

const dfMean = (a: number | null, da: number, b: number | null, db: number): number | null => {
  if (a === null || !(da > 0)) return b !== null && db > 0 ? b : a;
  if (b === null || !(db > 0)) return a;
  return (da * a + db * b) / (da + db);
};

/**
 * Fold a run's noise into a calibration, at both levels: the pair variance and the instance variance each become
 * the df-weighted mean of the two (their df add up); `updates` counts the run. With `costs`, the run's measured
 * seconds per pair (rescaled to the calibration's cell length), set-up and teardown replace the stored ones.
 */
export function updateCalibration(
  cal: Calibration,
  r: PooledResiduals | RunNoise | NestedSd,
  at: string,
  costs?: RunCosts,
  spread?: readonly CellVarianceObs[],
): Calibration {
  const calInst = cal.instanceSdPct === null ? null : (cal.instanceSdPct / 100) ** 2;
  const n =
    "s2" in r
      ? { pairS2: r.s2, pairDf: r.df, instS2: null, instDf: 0 }
      : "levels" in r && r.levels === "total"
        ? { pairS2: pairShareOf((r.pairSdPct / 100) ** 2, calInst), pairDf: r.pairDf, instS2: null, instDf: 0 } // only the sum: its pair share
        : {
            pairS2: (r.pairSdPct / 100) ** 2,
            pairDf: r.pairDf,
            instS2: r.instanceSdPct === null ? null : (r.instanceSdPct / 100) ** 2,
            instDf: r.instanceDf,
          };
  if (!(n.pairDf > 0) || !Number.isFinite(n.pairS2)) return cal;
  const pooled = dfMean((cal.pairSdPct / 100) ** 2, cal.pairDf, n.pairS2, n.pairDf)!;
  const inst = dfMean(calInst, calInst === null ? 0 : cal.instanceDf, n.instS2, n.instDf);
  return {
    ...cal,
    pairSdPct: Math.sqrt(pooled) * 100,
    pairDf: cal.pairDf + n.pairDf,
    instanceSdPct: inst === null ? null : Math.sqrt(inst) * 100,
    instanceDf: (calInst === null ? 0 : cal.instanceDf) + (n.instS2 === null ? 0 : n.instDf),
    // Once a run has measured the instance level the pair level is its own; until then a run of both levels
    // together leaves them mixed in the pair figure.
    pairHoldsInstances:
      inst === null && (cal.pairHoldsInstances === true || ("levels" in r && r.levels === "total")) ? true : undefined,
    ...costsOf(costs, cal.cellSeconds, cal),
    ...withSpread(cal, spread, at, costs?.shape, costs?.cellSeconds),
    updatedAt: at,
    updates: cal.updates + 1,
  };
}

/**
 * A fresh `calibrate` over an older calibration of the same host: the new noise figures replace the old, but what
 * only runs measure stays: the measured set-up, teardown and restart costs with their data's shape, and the cells'
 * spread of the last runs (the forecast's prior df). So does the pair-sd curve when this calibrate measured none.
 * Before 2026-12-06 calibrate dropped them, and the next plan fell back to assumed costs and equal cells.
 */
export function recalibrated(fresh: Calibration, previous: Calibration | null): Calibration {
  if (!previous || previous.hostKey !== fresh.hostKey) return fresh;
  const keep: Partial<Calibration> = {};
  if (previous.setupSeconds !== undefined) keep.setupSeconds = previous.setupSeconds;
  if (previous.teardownSeconds !== undefined) keep.teardownSeconds = previous.teardownSeconds;
  if (previous.restartSecondsPerServer !== undefined) keep.restartSecondsPerServer = previous.restartSecondsPerServer;
  if (previous.costShape !== undefined) keep.costShape = previous.costShape;
  if (previous.cellSpread?.length) keep.cellSpread = previous.cellSpread;
  if (!fresh.cellLengthCurve?.length && previous.cellLengthCurve?.length)
    keep.cellLengthCurve = previous.cellLengthCurve;
  return { ...fresh, ...keep };
}

/**
 * Wall seconds of one pair at `atCellSeconds` from a run's gross seconds per measured cell (grossCellSeconds in
 * src/core/plan/forecast.ts) at its own cell length: both cells, each with the run's per-cell overhead (sysbench's
 * start-up, its re-runs). Runs and calibrate store it so; the plan reads secondsPerPair / 2 − cellSeconds back.
 */
export function pairSecondsAt(atCellSeconds: number, grossCellSeconds: number, cellSeconds: number): number {
  return 2 * (atCellSeconds + Math.max(0, grossCellSeconds - cellSeconds));
}

/** Runs whose seconds per pair the stored figure averages: the host's recent pace, not one run's re-runs. */
export const PAIR_COST_RUNS = 5;

function costsOf(
  c: RunCosts | undefined,
  calCellSeconds: number,
  prev?: Pick<Calibration, "secondsPerPair" | "updates" | "costShape">,
): Partial<Calibration> {
  if (!c) return {};
  const out: Partial<Calibration> = {};
  // A run on data of another shape: the stored set-up, teardown and restart were that other data's, so none of them
  // stays beside this run's (JSON drops the undefined keys).
  if (c.shape && prev && (prev.costShape?.rows !== c.shape.rows || prev.costShape?.storage !== c.shape.storage))
    Object.assign(out, {
      setupSeconds: undefined,
      teardownSeconds: undefined,
      restartSecondsPerServer: undefined,
      costShape: undefined,
    });
  // Seconds per pair at the calibration's cell length: the run's per-cell overhead is what carries over. The run's
  // figure holds its re-runs (attempts per kept cell), so one disturbed run would set the next run's cost alone
  // (2026-12-04: 3.6% dear after a run with re-runs): the stored figure is a running mean over the last
  // PAIR_COST_RUNS runs.
  if (c.grossCellSeconds && c.grossCellSeconds > 0 && c.servers === 2) {
    const run = pairSecondsAt(calCellSeconds, c.grossCellSeconds, c.cellSeconds);
    const weight = 1 / Math.min(PAIR_COST_RUNS, Math.max(1, (prev?.updates ?? 0) + 1));
    out.secondsPerPair =
      prev?.secondsPerPair && prev.secondsPerPair > 0
        ? prev.secondsPerPair + weight * (run - prev.secondsPerPair)
        : run;
  }
  if (c.setupSeconds !== undefined && c.setupSeconds > 0) out.setupSeconds = c.setupSeconds;
  if (c.teardownSeconds !== undefined && c.teardownSeconds > 0) out.teardownSeconds = c.teardownSeconds;
  if (c.restartSeconds != null && c.restartSeconds > 0 && c.servers > 0)
    out.restartSecondsPerServer = c.restartSeconds / c.servers;
  if (
    c.shape &&
    (out.setupSeconds !== undefined || out.teardownSeconds !== undefined || out.restartSecondsPerServer !== undefined)
  )
    out.costShape = c.shape;
  return out;
}

/**
 * A host's first calibration, from a run's own pairs (no `twinbench calibrate` before it): no per-second series,
 * the run's pair and instance levels, its measured costs. `updates` is 1: this run.
 */
export function calibrationFromRun(o: {
  hostKey: string;
  hostFacts: Record<string, string>;
  scenario: string;
  noise: RunNoise;
  costs: RunCosts;
  at: string;
  spread?: readonly CellVarianceObs[];
}): Calibration {
  const base: Calibration = {
    version: 1,
    hostKey: o.hostKey,
    hostFacts: o.hostFacts,
    measuredAt: o.at,
    updatedAt: o.at,
    scenario: `${o.scenario} (a run's own pairs${o.noise.levels === "total" ? "; pair and instance levels together" : ""})`,
    cellSeconds: o.costs.cellSeconds,
    perSecond: null,
    pairSdPct: o.noise.pairSdPct,
    pairDf: o.noise.pairDf,
    instanceSdPct: o.noise.instanceSdPct,
    instanceDf: o.noise.instanceSdPct === null ? 0 : o.noise.instanceDf,
    secondsPerPair: null,
    updates: 1,
    ...(o.noise.levels === "total" ? { pairHoldsInstances: true } : {}),
  };
  return {
    ...base,
    ...costsOf(o.costs, o.costs.cellSeconds),
    ...withSpread({}, o.spread, o.at, o.costs.shape, o.costs.cellSeconds),
  };
}

/**
 * Why calibrate's series run counts as disturbed by outside work (the interference reasons of its last ok measured
 * cell), or null: its CV and autocorrelation would then describe that work, not the machine.
 */
export function seriesDisturbance(records: readonly CellRecord[]): string | null {
  const r = measureRecords(records)
    .filter((c) => c.status === "ok")
    .at(-1);
  return r?.interference?.disturbed ? r.interference.reasons.join("; ") || "disturbed" : null;
}

// ---- predictions for plan ---------------------------------------------------------------------------------------

/** What plan assumes without a calibration: the pair sd measured here in A/A runs (notes §2: 10–13% per pair). */
export const ASSUMED_PAIR_SD_PCT = 11;
/** ... and the instance level: notes §2b found it about as large as half the pair level (up to ~9% per cell). */
export const ASSUMED_INSTANCE_SD_PCT = 5;

/** Inputs of the half-width model. */
export interface HalfWidthInput {
  pairSdPct: number;
  instanceSdPct: number | null;
  /** Pairs per cell, server instances per cell, cells in the run (they pool the variance). */
  pairs: number;
  instances: number;
  cells: number;
  confidence?: number;
}

/**
 * The expected half-width (%) of a cell's interval: exp(t(df) · sqrt(s_pair²/n + s_inst²/I)) − 1, as halfWidthPct
 * reads an interval. df is that of estimateRun's moderated variance when the cells agree: the pooled df
 * cells × (n − 1) with one instance, cells × (I − 1) with several (the instance is then the replication unit).
 * Infinity when the df is 0.
 */
export function predictHalfWidthPct(i: HalfWidthInput): number {
  const inst = Math.max(1, i.instances);
  const df = inst > 1 ? i.cells * (inst - 1) : i.cells * (i.pairs - 1);
  if (!(df > 0) || i.pairs < 2) return Number.POSITIVE_INFINITY;
  const sp = i.pairSdPct / 100;
  const si = inst > 1 || i.instanceSdPct !== null ? (i.instanceSdPct ?? 0) / 100 : 0;
  const se = Math.sqrt((sp * sp) / i.pairs + (si * si) / inst);
  const t = tQuantile(1 - (1 - (i.confidence ?? 0.95)) / 2, df);
  return (Math.exp(t * se) - 1) * 100;
}

/** One candidate of the precision plan: pairs per cell and instances, its half-width and its time. */
export interface PrecisionOption {
  pairs: number;
  /** Server instances the pairs of a cell are spread over. */
  instances: number;
  halfWidthPct: number;
  seconds: number;
  /** The `workload.instances` setting that gives this layout in an adaptive run (see `layoutFor`), when searched so. */
  setting?: number;
}

/**
 * The cheapest (pairs per cell, instances) whose predicted half-width reaches `precisionPct`, searching pairs from
 * `minPairs` to `maxPairs` and instances from `minInstances` (default 1) to `maxInstances` (default 6), at least
 * one pair per instance. `cost(pairs, instances)` gives the wall seconds. `reached` is false (with the best
 * width found) when nothing reaches the target, or nothing within `budgetSeconds`.
 */
export function planPrecision(o: {
  precisionPct: number;
  pairSdPct: number;
  instanceSdPct: number | null;
  cells: number;
  minPairs: number;
  maxPairs: number;
  minInstances?: number;
  maxInstances?: number;
  budgetSeconds?: number;
  cost: (pairs: number, instances: number) => number;
  /**
   * The instances an adaptive run reaches after `pairs` rounds with `workload.instances: setting` (a new instance
   * every ceil(min / setting) rounds). When given, the search runs over the settings minInstances..maxInstances
   * and this layout, instead of over free (pairs, instances) combinations.
   */
  layoutFor?: (pairs: number, setting: number) => number;
}): { best: PrecisionOption | null; reached: boolean; overBudget: boolean; narrowest: PrecisionOption | null } {
  let best: PrecisionOption | null = null;
  let narrowest: PrecisionOption | null = null;
  let overBudget = false;
  for (let setting = Math.max(1, o.minInstances ?? 1); setting <= (o.maxInstances ?? 6); setting++)
    for (let pairs = Math.max(2, o.minPairs, o.layoutFor ? 0 : setting); pairs <= o.maxPairs; pairs++) {
      const inst = o.layoutFor ? o.layoutFor(pairs, setting) : setting;
      const h = predictHalfWidthPct({
        pairSdPct: o.pairSdPct,
        instanceSdPct: o.instanceSdPct,
        pairs,
        instances: inst,
        cells: o.cells,
      });
      const seconds = o.cost(pairs, inst);
      const opt: PrecisionOption = {
        pairs,
        instances: inst,
        halfWidthPct: h,
        seconds,
        ...(o.layoutFor ? { setting } : {}),
      };
      const fits = o.budgetSeconds === undefined || seconds <= o.budgetSeconds;
      if (fits && (!narrowest || h < narrowest.halfWidthPct)) narrowest = opt;
      if (h > o.precisionPct) continue;
      if (!fits) {
        overBudget = true;
        continue;
      }
      if (!best || seconds < best.seconds) best = opt;
    }
  return { best, reached: best !== null, overBudget: best === null && overBudget, narrowest };
}

// ---- the A/A scenario calibrate runs ----------------------------------------------------------------------------

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

const fx = (x: number | null | undefined, d = 1) =>
  x === null || x === undefined || !Number.isFinite(x) ? "-" : x.toFixed(d);

/** A calibration as the lines `calibrate` and `calibrate --show` print. */
export function calibrationLines(c: Calibration, file?: string): string[] {
  const out = [`calibration of host ${c.hostKey}${file ? ` (${file})` : ""}`];
  out.push(
    `  host: ${Object.entries(c.hostFacts)
      .map(([k, v]) => `${k} ${v}`)
      .join(", ")}`,
  );
  out.push(
    `  measured ${c.measuredAt} from ${c.scenario}; updated ${c.updatedAt} by ${c.updates} run${c.updates === 1 ? "" : "s"}`,
  );
  if (c.perSecond) {
    const p = c.perSecond;
    out.push(
      `  one server, ${p.seconds} s per-second series: CV ${fx(p.cvPct)}%, autocorrelation lag 1..${p.autocorr.length}: ${p.autocorr.map((a) => fx(a, 2)).join(" ")}`,
    );
    for (const b of p.blocks)
      out.push(
        `    CV of ${b.seconds} s block means ${fx(b.cvPct)}% (white noise would give ${fx(b.whiteNoiseCvPct)}%)`,
      );
  } else out.push("  no per-second series");
  out.push(`  A/A pairs at ${c.cellSeconds} s cells: pair sd ${fx(c.pairSdPct)}% (df ${fx(c.pairDf, 0)})`);
  out.push(
    c.instanceSdPct === null
      ? "  between server instances: not measured (one instance)"
      : `  between server instances: sd ${fx(c.instanceSdPct)}% (df ${c.instanceDf}; method of moments, floored at 0)`,
  );
  out.push(`  wall time per pair: ${c.secondsPerPair === null ? "not measured" : `${fx(c.secondsPerPair)} s`}`);
  if (c.cellLengthCurve?.length) {
    out.push("  pair sd against cell length (A/A pairs within one instance per length):");
    for (const p of c.cellLengthCurve)
      out.push(`    ${p.cellSeconds} s cells: pair sd ${fx(p.pairSdPct)}% (df ${fx(p.pairDf, 0)})`);
  } else out.push("  pair sd against cell length: not measured (`twinbench calibrate --lengths 10,30,90`)");
  if (c.cellSpread?.length) {
    out.push(
      "  cells of the last runs (pair sd of each, over all its pairs; the design forecasts named cells from them):",
    );
    for (const r of c.cellSpread) {
      const where = [
        r.shape ? `${r.shape.rows} rows, ${r.shape.storage}` : "data not recorded",
        r.cellSeconds ? `${r.cellSeconds} s cells` : "cell length not recorded",
      ].join(", ");
      const cells = r.cells.map((x, i) => `${x.cell ?? `cell ${i + 1}`} ${fx(Math.sqrt(x.s2) * 100)}%`).join(", ");
      out.push(`    ${r.at} (${where}): ${cells}`);
    }
  }
  if (c.costShape || c.restartSecondsPerServer !== undefined)
    out.push(
      `  measured costs: set-up ${c.setupSeconds === undefined ? "-" : `${fx(c.setupSeconds, 0)} s`}, restart ${c.restartSecondsPerServer === undefined ? "-" : `${fx(c.restartSecondsPerServer)} s`} a server, ` +
        `teardown ${c.teardownSeconds === undefined ? "-" : `${fx(c.teardownSeconds)} s`}${c.costShape ? ` (on ${c.costShape.rows} rows, ${c.costShape.storage}: reused for data of that shape only)` : ""}`,
    );
  return out;
}
