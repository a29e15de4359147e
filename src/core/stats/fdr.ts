/**
 * Multiple testing over a table's cells: Benjamini–Hochberg q-values, and the false verdicts chance alone gives.
 */
import { DEFAULT_CONFIDENCE } from "./estimate.ts";

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
