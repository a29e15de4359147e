/**
 * The cross-run comparison for people: text, Markdown, CSV and JSON of a {@link RunComparison}
 * (src/core/stats/compare.ts), with the facts that differ and what explains a moved cell.
 */
import type { RatioTable } from "../stats/ratio-model.ts";
import { metricLabel } from "../stats/metric.ts";
import { ratioTableJson } from "../stats/ratio.ts";
import { ladderJson } from "../stats/ladder.ts";
import type { CostTable } from "../stats/costs.ts";
import type { RunComparison } from "../stats/compare.ts";
import type { FactDiff } from "../stats/run-differences.ts";
import { TABLE_TEXT, renderRatioText } from "./text.ts";
import { markdownLadder, renderLadderText } from "./ladder-render.ts";
import { markdownRatioTable } from "./markdown.ts";
import { ratioCsvLines, CSV_HEADER } from "./csv.ts";
import { costExplanation, costLines, costTableJson } from "./costs.ts";
import {
  LATENCY_CSV_HEADER,
  latencyCsvFields,
  latencyJson,
  latencyMarkdown,
  latencyTextLines,
  nopmMarkdown,
  nopmTextLines,
} from "./latency.ts";
import { escapeMarkdownCell } from "./escape.ts";

/** The sentence under a comparison's latency section: its intervals hold no level between runs. */
const LATENCY_RUNS_NOTE =
  "The latency intervals compare the repeats of the runs; they leave out the level between runs.";

/** The facts and effective variables that differ, as text lines (also under `compare --summary`). */
export function diffLines(cmp: RunComparison): string[] {
  const lines: string[] = [];
  const fmt = (d: FactDiff) => `  ${d.scope} ${d.field}: ${d.base ?? "(unset)"} -> ${d.new ?? "(unset)"}`;
  lines.push(
    cmp.factDiff.length ? "Host and server facts that differ (BASE -> NEW):" : "Host and server facts: no differences.",
  );
  lines.push(...cmp.factDiff.map(fmt));
  lines.push(
    cmp.variableDiff.length ? "Effective variables that differ (BASE -> NEW):" : "Effective variables: no differences.",
  );
  lines.push(...cmp.variableDiff.map(fmt));
  return lines;
}

/** A comparison as terminal text. */
export function renderComparisonText(cmp: RunComparison): string {
  const lines: string[] = [
    `Run comparison: NEW ${cmp.new.runId} / BASE ${cmp.base.runId} * 100 (above 100: NEW is faster)`,
    "",
  ];
  if (cmp.baseRuns.length > 1 || cmp.newRuns.length > 1) {
    lines.push(
      `BASE runs: ${cmp.baseRuns.map((r) => r.runId).join(", ")}; NEW runs: ${cmp.newRuns.map((r) => r.runId).join(", ")}`,
      "",
    );
  }
  for (const [label, runs] of [
    ["BASE", cmp.baseRuns],
    ["NEW", cmp.newRuns],
  ] as const) {
    for (const r of runs) if (r.status !== "ok") lines.push(`${label} run ${r.runId} is partial (status ${r.status}).`);
  }
  const level = betweenRunsLine(cmp);
  if (level) lines.push(level, "");
  if (cmp.forced)
    lines.push("FORCED: the runs differ in scenario, pins or config:", ...cmp.differences.map((d) => `  ${d}`), "");
  if (cmp.warnings.length) lines.push(...cmp.warnings.map((w) => `WARNING: ${w}`), "");
  if (cmp.ladder)
    lines.push(
      "Ladder: each pair's ratio in NEW / its ratio in BASE",
      "",
      ...renderLadderText(cmp.ladder, TABLE_TEXT),
      "",
    );
  cmp.tables.forEach((t, i) => {
    lines.push(`Server ${t.numerator}`, "", ...renderRatioText(t), "");
    const why = explanationLines(t, cmp.costs[i]);
    if (why.length) lines.push(...why, "");
    const costs = costLines(cmp.costs[i] ?? null);
    if (costs.length) lines.push(...costs, "");
  });
  if (cmp.nopm.length) lines.push(...nopmTextLines(cmp.nopm));
  if (cmp.latency)
    lines.push(...latencyTextLines(cmp.latency), ...(cmp.latency.tables.length ? [LATENCY_RUNS_NOTE] : []), "");
  lines.push(...diffLines(cmp));
  return lines.join("\n") + "\n";
}

/**
 * Why a server's cells moved: for each cell whose q/s is faster or slower, its cost figures that rose, fell or did
 * not move between the runs (unpaired intervals, NEW / BASE). Empty when no cell moved or no cost was recorded.
 */
export function explanationLines(t: RatioTable, costs: CostTable | undefined): string[] {
  if (!costs?.recorded) return [];
  const out: string[] = [];
  for (const r of t.rows) {
    for (const c of r.cells) {
      if (c.direction !== "faster" && c.direction !== "slower") continue;
      const cc = costs.cells.find((x) => x.test === r.test && x.threads === c.threads);
      if (!cc) continue;
      const q = `${((c.estimate ?? 0) / 100).toFixed(2)}× [${((c.low ?? 0) / 100).toFixed(2)}–${((c.high ?? 0) / 100).toFixed(2)}]`;
      out.push(
        `- ${t.numerator} ${r.test} at ${c.threads} thread${c.threads === 1 ? "" : "s"} got ${c.direction} (${metricLabel(t.metric, t.percentile)} ${q}): ${costExplanation(cc)}`,
      );
    }
  }
  return out.length
    ? [
        `Why ${t.numerator}'s cells moved (cost per query, NEW / BASE, unpaired ${Math.round(costs.confidence * 100)}% intervals):`,
        ...out,
      ]
    : [];
}

/** What a one-run-a-side comparison's intervals hold of the level between runs, in one sentence; null otherwise. */
export function betweenRunsLine(cmp: Pick<RunComparison, "betweenRuns">): string | null {
  const b = cmp.betweenRuns;
  if (!b) return null;
  if (b.widened === 0)
    return "One run a side: the intervals leave out the level between runs, which no history of this host measures yet.";
  return `The intervals include each server's level between runs on this host, from up to ${b.runs} earlier runs.`;
}

/** A comparison as Markdown. */
export function renderComparisonMarkdown(cmp: RunComparison): string {
  const lines: string[] = [`# Run comparison: NEW \`${cmp.new.runId}\` / BASE \`${cmp.base.runId}\``, ""];
  if (cmp.forced)
    lines.push(
      "> **FORCED**: the runs differ in scenario, pins or config:",
      "",
      ...cmp.differences.map((d) => `- ${d}`),
      "",
    );
  if (cmp.warnings.length) lines.push(...cmp.warnings.map((w) => `> **Warning**: ${w}`), "");
  const level = betweenRunsLine(cmp);
  if (level) lines.push(level, "");
  if (cmp.ladder)
    lines.push(
      "## Ladder: each pair's ratio in NEW / its ratio in BASE",
      "",
      ...markdownLadder(cmp.ladder, TABLE_TEXT),
      "",
    );
  cmp.tables.forEach((t, i) => {
    lines.push(`## ${t.numerator}`, "", ...markdownRatioTable(t), "");
    const why = [...explanationLines(t, cmp.costs[i]), ...costLines(cmp.costs[i] ?? null)];
    if (why.length) lines.push(...why, "");
  });
  if (cmp.nopm.length) lines.push(...nopmMarkdown(cmp.nopm, escapeMarkdownCell));
  if (cmp.latency)
    lines.push(
      "## Latency percentiles",
      "",
      ...latencyMarkdown(cmp.latency, escapeMarkdownCell),
      ...(cmp.latency.tables.length ? [LATENCY_RUNS_NOTE, ""] : []),
    );
  lines.push("## Differences", "", "```", ...diffLines(cmp), "```", "");
  return lines.join("\n");
}

/**
 * A comparison as CSV, one line per server, test and thread count; the latency percentiles and NOPM of the server's
 * cell (NEW / BASE) at the end of its line (LATENCY_CSV_HEADER), empty on the ladder's lines.
 */
export function renderComparisonCsv(cmp: RunComparison): string {
  const lines = [["server", ...CSV_HEADER, ...LATENCY_CSV_HEADER].join(",")];
  for (const t of cmp.tables)
    lines.push(...ratioCsvLines(t, [t.numerator], latencyCsvFields(cmp.latency, cmp.nopm, t.numerator, t.denominator)));
  // A ladder's change: server = "numerator/base", numerator/denominator = the pair (NEW / BASE of its ratio).
  const none = () => LATENCY_CSV_HEADER.map(() => null);
  for (const t of cmp.ladder?.blocks ?? []) lines.push(...ratioCsvLines(t, [`${t.numerator}/${t.denominator}`], none));
  return lines.join("\n") + "\n";
}

/** A comparison as a JSON-ready object. */
export function comparisonJson(cmp: RunComparison): object {
  return {
    base: cmp.base,
    new: cmp.new,
    baseRuns: cmp.baseRuns,
    newRuns: cmp.newRuns,
    betweenRuns: cmp.betweenRuns,
    servers: cmp.servers,
    tables: cmp.tables.map(ratioTableJson),
    costs: cmp.costs.map(costTableJson),
    latency: latencyJson(cmp.latency),
    nopm: cmp.nopm.map(ratioTableJson),
    ...(cmp.ladder ? { ladder: ladderJson(cmp.ladder) } : {}),
    differences: cmp.differences,
    forced: cmp.forced,
    factDiff: cmp.factDiff,
    variableDiff: cmp.variableDiff,
    warnings: cmp.warnings,
  };
}
