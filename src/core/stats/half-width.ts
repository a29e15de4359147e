/**
 * The expected half-width of a cell's interval (pure), from the pair and instance sds and the layout: the closed
 * formula the precision plan and the budget design choose with.
 */
import { tQuantile } from "../base/distributions.ts";

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
