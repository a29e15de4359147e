/**
 * How the intervals were made, in plain words, for the details part of a report: how each cell's noise was
 * estimated, what the intervals include, how the stop rule kept its interval honest, the order effect, and what
 * chance alone gives over many cells.
 */
import type { RatioTable } from "../stats/ratio-model.ts";

const pct = (x: number) => `${Math.round(x * 100)}%`;
const num = (x: number, d = 1) => (Number.isInteger(x) ? String(x) : x.toFixed(d));
const cellsText = (n: number) => `${n} cell${n === 1 ? "" : "s"}`;

/** The noise estimate: each cell's own, pooled with the other cells' when those are alike. */
function noiseLine(table: RatioTable): string {
  const t = table.method;
  const pooled =
    t.priorSd === null
      ? "There were too few cells to pool their noise: each interval uses its own cell's pairs only."
      : `Each interval uses its own cell's repeats plus what the other cells say about the noise (about ` +
        `${(t.priorSd * 100).toFixed(1)}% a repeat); a cell noisier than the others keeps its own.`;
  const dfs = t.dfRange
    ? t.dfRange[0] === t.dfRange[1]
      ? num(t.dfRange[0])
      : `${num(t.dfRange[0])} to ${num(t.dfRange[1])}`
    : null;
  return `${pooled} The intervals are Student t intervals${dfs ? ` (${dfs} degrees of freedom)` : ""}.`;
}

/** The method lines, each one paragraph (the renderers wrap them). */
export function methodLines(table: RatioTable): string[] {
  const t = table.method;
  const out: string[] = [noiseLine(table)];
  if (table.pairing === "paired") {
    if (t.instanceCells > 0) {
      const within =
        (t.withinDf ?? 0) > 0
          ? `the noise within a server start and between starts are told apart${t.instanceSd !== null ? ` (between starts: ${(t.instanceSd * 100).toFixed(1)}%)` : ""}`
          : "each start held one pair, so the noise within a start and between starts cannot be told apart: the interval holds both";
      out.push(`The servers were restarted between rounds in ${cellsText(t.instanceCells)}; ${within}.`);
    } else {
      out.push(
        "Each server was started once: the intervals hold the noise between pairs, not the difference a server restart " +
          "can make (workload.instances restarts them).",
      );
    }
    if ((t.splitCells ?? 0) > 0)
      out.push(
        `${cellsText(t.splitCells!)} stopped once their printed interval was within the target. Each takes its noise ` +
          "from its first pairs only (a two-stage rule), so stopping when a cell looks precise does not make its " +
          "interval too narrow, and its centre resists one wild pair (simulated coverage in docs/stats.md).",
      );
    const all = t.allUnitsCells ?? 0;
    if (all > 0)
      out.push(
        `${cellsText(all)} stopped on the budget or the round limit before ${all === 1 ? "it was" : "they were"} ` +
          "narrow enough: their intervals use all their pairs.",
      );
    const o = t.order;
    if (o)
      out.push(
        `Order: ${table.numeratorLabel} measured first against second reads ${o.estimate.toFixed(1)} ` +
          `[${o.low.toFixed(1)}–${o.high.toFixed(1)}] (${o.n} pairs); alternating the order cancels it over an even number of rounds.`,
      );
  } else if (t.unit === "runs") {
    out.push("Each run's value of a cell counts once: the intervals include the differences between runs.");
  } else {
    out.push(
      "Fewer than 2 runs a side: the intervals hold only the noise between repeats, not between runs (restarts, " +
        "another day); compare 2 or more runs a side for that.",
    );
  }
  if (t.intervals > 0)
    out.push(
      `Over ${cellsText(t.intervals)} at ${pct(table.confidence)}, chance alone would call about ` +
        `${t.expectedFalse.toFixed(1)} of them faster or slower; ${t.verdicts} ${t.verdicts === 1 ? "was" : "were"} called, ` +
        `${t.verdictsAtFdr} of them still ${t.verdictsAtFdr === 1 ? "holds" : "hold"} when all cells are read together ` +
        "(Benjamini–Hochberg, 5% false discoveries).",
    );
  return out;
}
