/**
 * The verdict of a ratio cell (pure), decided here and nowhere else. A verdict says two things that do not exclude
 * each other, from the cell's interval [low, high] in percent:
 * - direction: `faster` when the interval lies above 100, `slower` when below, `none` (no clear difference) when it
 *   includes 100, `unknown` without an interval (fewer than 2 pairs, or zero width);
 * - equivalence against the margin m: `within` when the interval lies inside 100 − m … 100 + m (the TOST idea),
 *   `beyond` when it lies wholly outside that band, `undetermined` when it straddles an edge, `unknown` without an
 *   interval.
 * A cell at 101.2 [100.4–102.0] with a ±5% margin is `faster` and `within`: faster, but by less than the margin.
 * The two combine into one {@link Verdict} kind, whose mark and words live in vocabulary.ts.
 *
 * The multiple-testing reading: a faster/slower direction `holds` when its Benjamini–Hochberg q-value over the
 * table's cells is at most {@link FDR}, and `fails` otherwise. The p-value behind q is the paired t-test (log scale)
 * with the interval's own se and df (stats/estimate.ts), so p < 0.05 exactly when the 95% interval excludes 100.
 */

/** Where the interval lies against 100. */
export type Direction = "faster" | "slower" | "none" | "unknown";
/** Where the interval lies against the equivalence band 100 ± margin. */
export type Equivalence = "within" | "beyond" | "undetermined" | "unknown";
/** Whether a faster/slower direction survives Benjamini–Hochberg at {@link FDR}; null for the other directions. */
export type FdrReading = "holds" | "fails" | null;

/** Every verdict kind, in the order legends list them. */
export const VERDICTS = [
  "faster-beyond",
  "faster",
  "faster-within",
  "equivalent",
  "inconclusive",
  "slower-within",
  "slower",
  "slower-beyond",
  "unknown",
] as const;

/**
 * A cell's verdict, direction and equivalence in one: `faster-beyond` (faster by more than the margin), `faster`
 * (faster; cannot tell whether by more than the margin), `faster-within` (faster by less than the margin),
 * `equivalent` (no clear difference, within the margin), `inconclusive` (no clear difference, cannot tell), the three
 * `slower` kinds, and `unknown` (no interval).
 */
export type Verdict = (typeof VERDICTS)[number];

/** The false-discovery rate at which a faster/slower direction is said to hold (Benjamini–Hochberg). */
export const FDR = 0.05;

/** The direction from an interval in percent. */
export function directionOf(low: number | null, high: number | null): Direction {
  if (low === null || high === null || !Number.isFinite(low) || !Number.isFinite(high)) return "unknown";
  if (low > 100) return "faster";
  if (high < 100) return "slower";
  return "none";
}

/** The equivalence reading of an interval in percent against 100 ± marginPct. */
export function equivalenceOf(low: number | null, high: number | null, marginPct: number): Equivalence {
  if (low === null || high === null || !Number.isFinite(low) || !Number.isFinite(high)) return "unknown";
  if (low >= 100 - marginPct && high <= 100 + marginPct) return "within";
  if (low > 100 + marginPct || high < 100 - marginPct) return "beyond";
  return "undetermined";
}

/** The kind that a direction and an equivalence reading make together. */
export function kindOf(direction: Direction, equivalence: Equivalence): Verdict {
  if (direction === "unknown" || equivalence === "unknown") return "unknown";
  if (direction === "none") return equivalence === "within" ? "equivalent" : "inconclusive";
  if (equivalence === "within") return `${direction}-within`;
  if (equivalence === "beyond") return `${direction}-beyond`;
  return direction;
}

/** The direction of a kind. */
export function directionOfKind(v: Verdict): Direction {
  if (v === "unknown") return "unknown";
  if (v === "equivalent" || v === "inconclusive") return "none";
  return v.startsWith("faster") ? "faster" : "slower";
}

/** The equivalence reading of a kind. */
export function equivalenceOfKind(v: Verdict): Equivalence {
  if (v === "unknown") return "unknown";
  if (v === "equivalent" || v.endsWith("-within")) return "within";
  if (v.endsWith("-beyond")) return "beyond";
  return "undetermined";
}

/** The verdict kind of an interval in percent (null bounds: no interval). */
export function verdictOf(low: number | null, high: number | null, marginPct: number): Verdict {
  return kindOf(directionOf(low, high), equivalenceOf(low, high, marginPct));
}

/** Does a faster/slower direction hold at the false-discovery rate, given its Benjamini–Hochberg q-value? */
export function fdrOf(direction: Direction, q: number | null, level = FDR): FdrReading {
  if (direction !== "faster" && direction !== "slower") return null;
  return q !== null && Number.isFinite(q) && q <= level ? "holds" : "fails";
}

/** A cell's whole verdict: the kind, its two readings and the multiple-testing reading. */
export interface CellVerdict {
  verdict: Verdict;
  direction: Direction;
  equivalence: Equivalence;
  fdr: FdrReading;
}

/** The verdict of a cell from its interval and its q-value. */
export function cellVerdict(
  c: { low: number | null; high: number | null; q: number | null },
  marginPct: number,
  level = FDR,
): CellVerdict {
  const direction = directionOf(c.low, c.high);
  const equivalence = equivalenceOf(c.low, c.high, marginPct);
  return { verdict: kindOf(direction, equivalence), direction, equivalence, fdr: fdrOf(direction, c.q, level) };
}
