/**
 * Multiple testing over a table's cells: Benjamini–Hochberg q-values, and the false verdicts chance alone gives;
 * and one adjustment over several tables' cells together (a ladder's pairs, a report's latency percentiles).
 */
import { FDR, fdrOf } from "../model/verdict.ts";
import { DEFAULT_CONFIDENCE } from "./estimate.ts";
import type { RatioCell, RatioTable } from "./ratio-model.ts";

/** Benjamini–Hochberg adjusted p-values (q-values), in input order; null stays null. */
export function benjaminiHochberg(ps: ReadonlyArray<number | null>): Array<number | null> {
  const idx = ps.map((p, i) => [p, i] as const).filter((x): x is readonly [number, number] => x[0] !== null);
  const m = idx.length;
  const sorted = [...idx].sort((a, b) => a[0] - b[0]);
  const q: Array<number | null> = ps.map(() => null);
  let min = 1;
  for (let r = m - 1; r >= 0; r--) {
    const [p, i] = sorted[r];
    min = Math.min(min, (p * m) / (r + 1));
    q[i] = min;
  }
  return q;
}

/** False faster/slower verdicts that chance alone gives over `cells` intervals when no server differs. */
export function expectedFalseVerdicts(cells: number, confidence = DEFAULT_CONFIDENCE): number {
  return cells * (1 - confidence);
}

/**
 * Several tables read as one family: their q-values and FDR readings are re-read under one Benjamini–Hochberg
 * adjustment over every cell with a p-value (each table's own q covered that table only), and each table's verdict
 * counts follow. The direction, equivalence and verdict kind do not depend on q and stay; load-bound cells keep no
 * verdict (their fdr is null). The tables are copied, not changed.
 */
export function jointFdr(tables: readonly RatioTable[]): RatioTable[] {
  const out = tables.map((t) => structuredClone(t));
  const cells: RatioCell[] = out.flatMap((t) => t.rows.flatMap((r) => r.cells));
  const qs = benjaminiHochberg(cells.map((c) => c.p));
  cells.forEach((c, i) => {
    c.q = qs[i] === null ? null : Number(qs[i]!.toFixed(6));
    c.fdr = c.loadBound ? null : fdrOf(c.direction, qs[i], FDR);
  });
  for (const t of out) {
    const decided = t.rows.flatMap((r) => r.cells).filter((c) => c.direction === "faster" || c.direction === "slower");
    t.method = {
      ...t.method,
      verdicts: decided.length,
      verdictsAtFdr: decided.filter((c) => c.fdr === "holds").length,
    };
  }
  return out;
}
