/**
 * The unpaired estimator: one server in two sets of runs (compare), NEW against BASE, with the variance moderated over
 * the cells like the paired case.
 */
import { mean, tCdf, tQuantile } from "../base/distributions.ts";
import { verdictOf } from "../model/verdict.ts";
import { DEFAULT_MARGIN_PCT } from "../model/scenario/schema.ts";
import { DEFAULT_CONFIDENCE, type CellEstimate, type RunEstimate, type RunEstimateOptions } from "./estimate.ts";
import { fitVariancePrior, moderateRobust, type VarianceObs } from "./prior.ts";

export interface UnpairedInput {
  /** Log values of the NEW side and the BASE side: one per repeat (one run per side) or one per run. */
  a: readonly number[];
  b: readonly number[];
  floorSd?: number;
}

/**
 * Unpaired cells (compare): mean(a) − mean(b) with a pooled two-sample variance per cell, moderated over the cells
 * like the paired case. With one run per side, a and b are the repeats of that run; with several runs per side
 * they are the runs' own cell means, so the interval carries the variance between runs.
 */
export function estimateUnpaired(cells: readonly UnpairedInput[], opts: RunEstimateOptions = {}): RunEstimate {
  const confidence = opts.confidence ?? DEFAULT_CONFIDENCE;
  const marginPct = opts.marginPct ?? DEFAULT_MARGIN_PCT;
  const own: VarianceObs[] = cells.map((c) => {
    const df = c.a.length + c.b.length - 2;
    if (c.a.length < 1 || c.b.length < 1 || df <= 0) return { s2: 0, df: 0 };
    const ma = mean(c.a);
    const mb = mean(c.b);
    const ss = c.a.reduce((x, v) => x + (v - ma) ** 2, 0) + c.b.reduce((x, v) => x + (v - mb) ** 2, 0);
    return { s2: Math.max(ss / df, (c.floorSd ?? 0) ** 2 / 2), df };
  });
  const prior = fitVariancePrior(own);
  const out = cells.map((c, i): CellEstimate => {
    const n = Math.min(c.a.length, c.b.length);
    const m = c.a.length && c.b.length ? mean(c.a) - mean(c.b) : Number.NaN;
    const mod = moderateRobust(own[i], prior);
    const base = {
      n,
      instances: 1,
      meanLog: m,
      estimate: Number.isFinite(m) ? Math.exp(m) * 100 : null,
      s2: own[i].df > 0 ? own[i].s2 : null,
      s2Df: own[i].df,
      s2Moderated: mod.df > 0 ? mod.s2 : null,
    };
    const none = { low: null, high: null, se: null, df: null, p: null };
    if (n === 0) return { ...base, ...none, verdict: "unknown", reason: "no-data" };
    if (n < 2) return { ...base, ...none, verdict: "unknown", reason: "too-few-pairs" };
    const se = Math.sqrt(mod.s2 * (1 / c.a.length + 1 / c.b.length));
    if (!(se > 0) || !(mod.df > 0)) return { ...base, ...none, verdict: "unknown", reason: "zero-width" };
    const half = tQuantile(1 - (1 - confidence) / 2, mod.df) * se;
    const low = Math.exp(m - half) * 100;
    const high = Math.exp(m + half) * 100;
    const p = 2 * (1 - tCdf(Math.abs(m) / se, mod.df));
    return { ...base, low, high, se, df: mod.df, p, verdict: verdictOf(low, high, marginPct) };
  });
  return { cells: out, prior, instanceLevel: { tau2: null, df: 0, cells: 0 }, confidence, marginPct };
}
