/**
 * A calibration updated (pure): a run's noise and costs folded in, a fresh calibrate over an older one, a host's first
 * calibration from a run, and the pair-sd curve from calibrate's A/A runs.
 */
import {
  CELL_SPREAD_RUNS,
  type Calibration,
  type CellSpreadRun,
  type CellVarianceObs,
  type CostShape,
  type CellLengthPoint,
} from "./schema.ts";
import { type NestedSd, type RunNoise, pairShareOf, nestedSd } from "../../stats/nested-sd.ts";
import type { PooledResiduals } from "./pairs.ts";
import { type RunCosts, costsOf } from "./costs.ts";
import { type VarianceObs, fitVariancePrior } from "../../stats/prior.ts";

/**
 * A run's pair level as the typical cell's, for the host's calibration. The forecast draws each cell's variance as
 * s²·d0/χ²(d0) around the calibration's pair sd s (src/core/stats/simulate.ts drawCellSd), so s must be the scale of
 * the cells' variances (limma's prior variance, {@link fitVariancePrior}), not their mean: with unequal cells the
 * mean is ruled by the noisiest. A reduced seed run (6 cells on RAID 0, one of them stalling at 64
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
 * Dropping them would make the next plan fall back to assumed costs and equal cells.
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
