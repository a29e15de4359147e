/**
 * The few cost figures that explain a difference, read like the q/s table: the server's CPU per query in every
 * cell, and each other figure per query that moved in some cell, its reading held over every cell × figure tested
 * (Benjamini–Hochberg, 5% false discoveries). Each figure is the denominator's cost / the numerator's × 100, so
 * above 100 means the numerator does the same query for less (as above 100 in the q/s table means it is faster).
 * Every figure of every cell stays in costs.csv and report.json.
 */
import { benjaminiHochberg } from "../stats/fdr.ts";
import { FDR } from "../model/verdict.ts";
import { COST_FIGURES, type CostCell, type CostFigureKey, type CostTable } from "../stats/costs.ts";
import { textTable } from "../base/text-table.ts";

/** One figure of one cell, turned to read like q/s (above 100: the numerator costs less per query). */
export interface CostPoint {
  estimate: number;
  low: number | null;
  high: number | null;
  /** The interval lies wholly off 100 and the reading holds over every cell × figure tested. */
  moved: boolean;
}

export interface CostSummary {
  numeratorLabel: string;
  denominatorLabel: string;
  /** Server CPU first, then each figure that moved in some cell, in COST_FIGURES order. */
  figures: Array<{ key: CostFigureKey; label: string }>;
  rows: Array<{ test: string; threads: number; points: Array<CostPoint | null> }>;
}

/** At most this many figures besides the server's CPU (the table stays within the line width). */
export const MAX_MOVED_FIGURES = 3;

const flip = (x: number | null) => (x === null || x === 0 ? null : 10000 / x);

function point(c: CostCell | undefined, q: number | null): CostPoint | null {
  if (!c || c.status !== "ok" || c.estimate === null) return null;
  const moved = q !== null && q <= FDR && (c.moved === "higher" || c.moved === "lower");
  return { estimate: 10000 / c.estimate, low: flip(c.high), high: flip(c.low), moved };
}

/** The summary of a cost table; null when the run recorded no cost readings. */
export function costSummary(t: CostTable | null): CostSummary | null {
  if (!t || !t.recorded || t.cells.length === 0) return null;
  const all = t.cells.flatMap((c) => c.figures.filter((f) => f.status === "ok" && f.p !== null));
  const qs = benjaminiHochberg(all.map((f) => f.p));
  const qOf = new Map(all.map((f, i) => [f, qs[i] ?? null]));
  const movedKeys = COST_FIGURES.map((f) => f.key).filter(
    (k) =>
      k !== "serverCpuUs" &&
      t.cells.some(
        (c) =>
          point(
            c.figures.find((f) => f.figure === k),
            q(k, c),
          )?.moved,
      ),
  );
  function q(k: CostFigureKey, c: CostTable["cells"][number]): number | null {
    const f = c.figures.find((x) => x.figure === k);
    return f ? (qOf.get(f) ?? null) : null;
  }
  const keys: CostFigureKey[] = ["serverCpuUs", ...movedKeys.slice(0, MAX_MOVED_FIGURES)];
  return {
    numeratorLabel: t.numeratorLabel,
    denominatorLabel: t.denominatorLabel,
    figures: keys.map((key) => ({ key, label: COST_FIGURES.find((f) => f.key === key)!.label })),
    rows: t.cells.map((c) => ({
      test: c.test,
      threads: c.threads,
      points: keys.map((k) =>
        point(
          c.figures.find((f) => f.figure === k),
          q(k, c),
        ),
      ),
    })),
  };
}

/** `117.4 [110.9–124.3]`, with `moved` after it when the reading holds; `-` without a figure. */
export function costPointText(p: CostPoint | null): string {
  if (!p) return "-";
  const iv = p.low === null || p.high === null ? "" : ` [${p.low.toFixed(1)}–${p.high.toFixed(1)}]`;
  return `${p.estimate.toFixed(1)}${iv}${p.moved ? " moved" : ""}`;
}

/** The explanation above the table, in one line. */
export function costSummaryHead(s: CostSummary): string {
  return (
    `Cost per query, ${s.denominatorLabel} / ${s.numeratorLabel} × 100 (above 100: ${s.numeratorLabel} ` +
    `does the same work for less):`
  );
}

/** The text table: one row per cell, one column per figure. */
export function costSummaryLines(s: CostSummary | null): string[] {
  if (!s) return [];
  const rows = s.rows.map((r) => [`${r.test} @ ${r.threads}`, ...r.points.map(costPointText)]);
  return [
    costSummaryHead(s),
    ...textTable(rows, {
      head: [["cell", ...s.figures.map((f) => `${f.label} per query`)]],
      indent: "  ",
      columns: [{}, ...s.figures.map(() => ({ align: "right" as const }))],
    }),
    "moved: the interval lies off 100 and holds over every cell and figure tested (5% false discoveries).",
  ];
}
