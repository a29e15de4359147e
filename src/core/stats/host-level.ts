/**
 * The level of a verdict. A run's own interval holds for this run: its pairs and its server instances. Whether a
 * second run on this host would agree is another question, answered by the level between runs that the host's
 * history measures (replication.ts). At the host level a cell's interval is this run's estimate with the level
 * between runs added to its own variance (hostLevelInterval), and never narrower than the run's own. The verdicts and the multiple-testing reading are then taken
 * from those intervals exactly as at the run level (model/verdict.ts). A cell whose history holds fewer than two
 * comparable runs keeps its run-level interval, and the table says how many cells were widened.
 */
import { tCdf, tQuantile } from "../base/distributions.ts";
import { cellVerdict, FDR } from "../model/verdict.ts";
import { benjaminiHochberg } from "./fdr.ts";
import type { RatioCell, RatioTable } from "./ratio-model.ts";
import { seFromInterval, welchDf } from "./replication.ts";

export { welchDf };

/** Which runs a verdict speaks for: this run alone, or runs on this host. */
export type VerdictLevel = "run" | "host";

/**
 * The level between runs of one cell on this host, from `k` runs: τ (log units) and the runs' own variance `within`
 * (mean se²), whose sum s̃² (the moderated variance of a run's estimate about the host's level) is on `df`.
 */
export interface CellLevel {
  tau: number;
  within: number;
  df: number;
  k: number;
}

/** A table at the host level: which cells were widened, from how many runs at most. */
export interface HostLevelResult {
  table: RatioTable;
  widened: number;
  runs: number;
}

/** The key a cell's level is found under: `test|threads`. */
export const levelKey = (test: string, threads: number): string => `${test}|${threads}`;

/**
 * The table with each cell's interval widened by its level between runs (see the header), its verdict and q-value
 * taken again over the table. Cells without a level keep their figures; the input is not changed.
 */
export function atHostLevel(
  table: RatioTable,
  levels: ReadonlyMap<string, CellLevel>,
  marginPct: number,
): HostLevelResult {
  if (levels.size === 0) return { table, widened: 0, runs: 0 };
  let widened = 0;
  let runs = 0;
  const rows = table.rows.map((row) => ({
    ...row,
    cells: row.cells.map((c) => {
      const l = levels.get(levelKey(row.test, c.threads));
      const w = l ? widen(c, l, table.confidence) : null;
      if (!w || !l) return { ...c };
      widened++;
      runs = Math.max(runs, l.k);
      return { ...c, ...w };
    }),
  }));
  const cells = rows.flatMap((r) => r.cells);
  const qs = benjaminiHochberg(cells.map((c) => (c.low === null || c.high === null ? null : c.p)));
  cells.forEach((c, i) => {
    if (c.low === null || c.high === null || c.loadBound) return;
    Object.assign(c, cellVerdict({ low: c.low, high: c.high, q: qs[i] }, marginPct, FDR), { q: qs[i] });
  });
  return { table: { ...table, rows }, widened, runs };
}

/** One cell's host-level interval, p-value and df; null when the cell has no interval to widen. */
function widen(c: RatioCell, l: CellLevel, confidence: number): Pick<RatioCell, "low" | "high" | "df" | "p"> | null {
  if (c.estimate === null || c.low === null || c.high === null || c.df === null) return null;
  const se = seFromInterval(c.low, c.high, c.df, confidence);
  if (se === null) return null;
  const h = hostLevelInterval(Math.log(c.estimate / 100), se, c.df, l, confidence);
  // The min and max keep the run's own bound where the host's is the same but rounded.
  const low = Math.min(c.low, round(Math.exp(h.low) * 100));
  return { low, high: Math.max(c.high, round(Math.exp(h.high) * 100)), df: round(h.df), p: h.p };
}

/**
 * A run's estimate y (log units, with its se on `seDf` df) as an estimate of the host's level. A run's estimate
 * varies about that level by τ² + its own se²; the history estimates τ² + mean(se²) as s̃² on `df`, so the interval is
 *   y ± t_df · √(s̃² + max(0, se² − mean(se²))),
 * where only a run noisier than the history's widens it (a quieter one cannot remove the level between runs), and
 * the two-sided p-value of "no difference" (y = 0) is read on the same t.
 */
export function hostLevelInterval(
  y: number,
  se: number,
  seDf: number,
  level: Pick<CellLevel, "tau" | "df" | "within">,
  confidence: number,
): { low: number; high: number; df: number; p: number } {
  const total = level.tau * level.tau + level.within;
  const extra = Math.max(0, se * se - level.within);
  const v = total + extra;
  const df = extra > 0 ? welchDf(total, level.df, extra, seDf) : level.df;
  // Never narrower than the run's own interval: a run on few pairs (few df) keeps its own uncertainty, which the
  // history's variance, estimated on more df, would otherwise hide.
  const half = Math.max(tQuantile((1 + confidence) / 2, df) * Math.sqrt(v), tQuantile((1 + confidence) / 2, seDf) * se);
  const p = Math.max(2 * (1 - tCdf(Math.abs(y) / Math.sqrt(v), df)), 2 * (1 - tCdf(Math.abs(y) / se, seDf)));
  return { low: y - half, high: y + half, df, p };
}

const round = (x: number) => Math.round(x * 1000) / 1000;

/**
 * Two runs compared (NEW / BASE of one server), one run a side: each cell's interval with the level between runs of
 * that server added twice (once per run), y ± t · √(se² + 2τ²) on the Welch–Satterthwaite df.
 */
export function acrossTwoRuns(
  table: RatioTable,
  levels: ReadonlyMap<string, CellLevel>,
  marginPct: number,
): HostLevelResult {
  const twice = new Map(
    [...levels].map(([k, l]) => [k, { tau: Math.SQRT2 * l.tau, within: 0, df: l.df, k: l.k }] as const),
  );
  return atHostLevel(table, twice, marginPct);
}
