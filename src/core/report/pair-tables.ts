/**
 * The ratio tables of every compared pair of a run (pure): one per pair of comparisonPairs (src/core/scenario/
 * pairs.ts), each with the two-server table's own estimator (ratioTableFromSides: paired repeats, the variance
 * prior pooled over that pair's cells, the sequential split when adaptive), so a ladder's column for a server
 * against the base reads exactly as a two-server table would. Only the multiple-testing reading changes: with more
 * than one pair the Benjamini–Hochberg q-values and the `fdr` readings are taken over every pair × cell of the run
 * ({@link adjustAcrossPairs}), since a ladder tests all of them at once. With one pair the table is untouched.
 */
import type { CellRecord, RunManifest } from "../results.ts";
import { benjaminiHochberg } from "../stats/estimate.ts";
import { comparisonPairs } from "../scenario/pairs.ts";
import { FDR, fdrOf } from "../verdict.ts";
import { buildRatioTable, type RatioTable, type RatioTableOptions } from "./ratio.ts";

/**
 * Benjamini–Hochberg over every cell of every table (in table, row, cell order): each cell's `q` and `fdr`, and
 * each table's `method.verdictsAtFdr`, recomputed from the cells' p-values (as rounded in the cells, 6 places; q rounded as ratio.ts does).
 * Returns new tables; one table (or none) comes back as it was.
 */
export function adjustAcrossPairs(tables: readonly RatioTable[], level = FDR): RatioTable[] {
  if (tables.length <= 1) return [...tables];
  const ps = tables.flatMap((t) => t.rows.flatMap((r) => r.cells.map((c) => c.p)));
  const qs = benjaminiHochberg(ps);
  let i = 0;
  return tables.map((t) => {
    const rows = t.rows.map((r) => ({
      ...r,
      cells: r.cells.map((c) => {
        const q = qs[i++];
        return { ...c, q: q === null ? null : Number(q.toFixed(6)), fdr: fdrOf(c.direction, q, level) };
      }),
    }));
    const verdictsAtFdr = rows.flatMap((r) => r.cells).filter((c) => (c.direction === "faster" || c.direction === "slower") && c.fdr === "holds").length;
    return { ...t, rows, method: { ...t.method, verdictsAtFdr } };
  });
}

/**
 * Every compared pair's ratio table, in pair order (the first is the primary pair), q-values over all of them.
 * Empty with fewer than two servers. `opts` as buildRatioTable's (metric, margin); numerator and denominator come
 * from the pairs.
 */
export function buildPairTables(manifest: RunManifest, cells: readonly CellRecord[], opts: RatioTableOptions = {}): RatioTable[] {
  const tables = comparisonPairs(manifest.scenario).flatMap((p) => {
    const t = buildRatioTable(manifest, cells, { ...opts, numerator: p.numerator, denominator: p.denominator });
    return t ? [t] : [];
  });
  return adjustAcrossPairs(tables);
}
