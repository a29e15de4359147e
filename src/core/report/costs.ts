/**
 * The cost-per-query comparison for people: the text section, a cell's factor and values, what moved between two
 * runs, and the JSON shape.
 */
import { COST_FIGURES, type CostCell, type CostFigureKey, type CostTable } from "../stats/costs.ts";

const label = (key: CostFigureKey) => COST_FIGURES.find((f) => f.key === key)!.label;

function figureText(c: CostCell, names: [string, string]): string {
  const sides = `${names[0]} ${costValueText(c.figure, c.numeratorMedian)}, ${names[1]} ${costValueText(c.figure, c.denominatorMedian)}`;
  const note = c.note ? `; ${c.note}` : "";
  const why = c.reason ? `, ${c.reason}` : "";
  return `${label(c.figure)} ${factorText(c)} (${sides}${why}${note})`;
}

/** The figures without an estimate, grouped by reason: "pages read, fsyncs not available (mysql: …)". */
function notAvailableText(fs: readonly CostCell[]): string[] {
  const by = new Map<string, string[]>();
  for (const f of fs) by.set(f.reason ?? "unknown", [...(by.get(f.reason ?? "unknown") ?? []), label(f.figure)]);
  return [...by].map(([reason, labels]) => `${labels.join(", ")} not available (${reason})`);
}

/** One cell's figures as text; a cell with no figure at all says so once. */
function cellText(c: CostTable["cells"][number], names: [string, string]): string {
  const ok = c.figures.filter((f) => f.status === "ok");
  const na = c.figures.filter((f) => f.status !== "ok");
  if (!ok.length && new Set(na.map((f) => f.reason)).size === 1) return `not available (${na[0]!.reason})`;
  return [...ok.map((f) => figureText(f, names)), ...notAvailableText(na)].join("; ");
}

/** A cost ratio as a factor: "1.06× [0.98–1.15]". */
export function factorText(c: Pick<CostCell, "estimate" | "low" | "high">): string {
  if (c.estimate === null) return "n/a";
  const f = (x: number) => (x / 100).toFixed(2);
  return c.low === null || c.high === null ? `${f(c.estimate)}×` : `${f(c.estimate)}× [${f(c.low)}–${f(c.high)}]`;
}

export function costValueText(key: CostFigureKey, v: number | null): string {
  const fig = COST_FIGURES.find((f) => f.key === key)!;
  return v === null ? "n/a" : `${v.toFixed(fig.digits)}${fig.unit}`;
}

/** The text section: one line per cell, every figure with its factor, interval and each side's median. */
export function costLines(t: CostTable | null): string[] {
  if (!t || !t.recorded) return [];
  const pct = Math.round(t.confidence * 100);
  const head =
    t.pairing === "paired"
      ? `Cost per query, ${t.numeratorLabel} / ${t.denominatorLabel} (paired repeats, ${pct}% interval; above 1×: ${t.numeratorLabel} costs more per query; medians per side):`
      : `Cost per query, ${t.numeratorLabel} / ${t.denominatorLabel} (unpaired, ${pct}% interval; above 1×: ${t.numeratorLabel} costs more per query; medians per side):`;
  const names: [string, string] = [
    t.numerator === t.denominator ? "NEW" : t.numerator,
    t.numerator === t.denominator ? "BASE" : t.denominator,
  ];
  return [
    head,
    ...t.cells.map((c) => `- ${c.test} at ${c.threads} thread${c.threads === 1 ? "" : "s"}: ${cellText(c, names)}`),
    t.hardware,
  ];
}

export function costTableJson(t: CostTable): object {
  return {
    numerator: t.numerator,
    denominator: t.denominator,
    numeratorLabel: t.numeratorLabel,
    denominatorLabel: t.denominatorLabel,
    pairing: t.pairing,
    confidence: t.confidence,
    recorded: t.recorded,
    figures: COST_FIGURES.map((f) => ({ key: f.key, label: f.label, unit: f.unit.trim(), source: f.source })),
    cells: t.cells,
    hardware: t.hardware,
  };
}

/**
 * What moved between two runs for one server (compare): for each cell whose q/s moved, the figures whose interval
 * lies wholly above or below 1×, and those that did not move, e.g. "server CPU rose 1.60× [1.40–1.80]; redo bytes
 * did not move (1.00× [0.97–1.03])".
 */
export function costExplanation(c: { figures: CostCell[] }): string {
  const ok = c.figures.filter((f) => f.status === "ok");
  const na = c.figures.filter((f) => f.status !== "ok");
  if (!ok.length && new Set(na.map((f) => f.reason)).size === 1) return `no cost per query (${na[0]!.reason})`;
  const parts = ok.map((f) => {
    if (f.moved === "higher") return `${label(f.figure)} per query rose ${factorText(f)}`;
    if (f.moved === "lower") return `${label(f.figure)} per query fell ${factorText(f)}`;
    if (f.moved === "none") return `${label(f.figure)} per query did not move (${factorText(f)})`;
    return `${label(f.figure)} per query ${factorText(f)}, no interval (${f.reason ?? "unknown"})`;
  });
  return [...parts, ...notAvailableText(na)].join("; ");
}
