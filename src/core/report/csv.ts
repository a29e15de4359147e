/**
 * CSV renderer: comparison.csv, one line per test × threads. Empty fields where there is no number. `estimate` is
 * exp(mean log ratio) * 100, the centre of [low, high]; `ratio` is the seed tables' median / median.
 * `verdict` is the kind (verdict.ts), `direction` and `equivalence` its two readings, `fdr` holds/fails under
 * Benjamini–Hochberg (empty unless the direction is faster or slower).
 */
import type { RunReport } from "./model.ts";
import type { RatioTable } from "./ratio.ts";

export function csvField(v: string | number | null | undefined): string {
  if (v === null || v === undefined) return "";
  const s = String(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export const CSV_HEADER = [
  "test", "threads", "metric", "numerator", "denominator", "status", "estimate", "low", "high", "verdict", "n", "ratio",
  "cv_numerator_pct", "cv_denominator_pct", "numerator_median", "denominator_median", "failed_repeats",
  "instances", "df", "p", "q", "unstable", "direction", "equivalence", "fdr",
] as const;

export function ratioCsvLines(t: RatioTable, prefix: Array<string | number> = []): string[] {
  const out: string[] = [];
  for (const r of t.rows) {
    for (const c of r.cells) {
      const row = [
        ...prefix, r.test, c.threads, t.metric, t.numerator, t.denominator, c.status, c.estimate, c.low, c.high, c.verdict, c.n, c.ratio,
        c.cvNumerator, c.cvDenominator, c.numeratorMedian, c.denominatorMedian, c.failedRepeats,
        c.instances, c.df, c.p, c.q, c.unstable.join("; "), c.direction, c.equivalence, c.fdr,
      ];
      out.push(row.map(csvField).join(","));
    }
  }
  return out;
}

/** The ratio table as CSV (comparison.csv). */
export function renderCsv(report: RunReport): string {
  const lines = [CSV_HEADER.join(",")];
  if (report.table) lines.push(...ratioCsvLines(report.table));
  return lines.join("\n") + "\n";
}
