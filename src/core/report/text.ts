/**
 * Plain-text renderer. First the answer (first-screen.ts): the title, the seed layout (`Number of threads` header,
 * one row per test, `104.21`: the ratio of the medians), the answer table with each cell's verdict word, one
 * sentence per verdict and a three-line legend. Then, after a rule (or only with `--details`), the facts behind it:
 * the cost per query, the method, each cell's figures, the notes, the servers and the run.
 */
import {
  DIRECTION_WORDS,
  STATE_MARKS,
  STATE_WORDS,
  cellVerdictText,
  equivalenceWord,
  verdictSentence,
} from "../model/vocabulary.ts";
import { methodLines } from "./method.ts";
import { costSummary, costSummaryLines } from "./cost-summary.ts";
import {
  DETAILS_HINT,
  DETAILS_RULE,
  answerBlock,
  firstScreen,
  secondRunDetails,
  sideNames,
  type FirstScreen,
} from "./first-screen.ts";
import { hasLoadBound, verdictWordsLegend, wrap } from "./answer.ts";
import { type RatioCell, type RatioTable } from "../stats/ratio-model.ts";
import { metricLabel } from "../stats/metric.ts";
import type { RunReport } from "./model.ts";
import { textTable, type TextColumn } from "../base/text-table.ts";
import { renderLadderText, type TableText } from "./ladder-render.ts";
import { latencyTextLines, nopmTextLines } from "./latency.ts";

/** `failed`, `skipped`, `·` for cells without numbers (the vocabulary's state marks). */
export function statusText(c: RatioCell): string | null {
  return c.status === "ok" ? null : STATE_MARKS[c.status];
}

/** The seed's plain value: `104.21`. */
export function plainCell(c: RatioCell): string {
  return statusText(c) ?? (c.ratio === null ? STATE_MARKS.missing : c.ratio.toFixed(2));
}

/** `[101.3–107.2]`, or null without an interval. */
export function intervalText(c: RatioCell, digits = 1): string | null {
  return c.low === null || c.high === null ? null : `[${c.low.toFixed(digits)}–${c.high.toFixed(digits)}]`;
}

/**
 * `104.2 [101.3–107.2] faster`: the estimate, its interval, the verdict word (vocabulary.ts, the narrow form: `same`,
 * `load-bound`); `104.2 unclear` when there is no interval.
 */
export function uncertainCell(c: RatioCell): string {
  const s = statusText(c);
  if (s !== null) return s;
  if (c.estimate === null) return STATE_MARKS.missing;
  const ci = intervalText(c);
  return `${c.estimate.toFixed(1)}${ci ? ` ${ci}` : ""} ${cellVerdictText(c)}`;
}

/**
 * The seed layout. With the default width 8 this reproduces seed 000 byte for byte:
 * `                   Number of threads` / `                     1       4 …` / ` sysbench test` / `  delete            103.72 …`.
 */
export function seedTable(table: RatioTable, cell: (c: RatioCell) => string, rowLabel = " sysbench test"): string[] {
  const texts = table.rows.map((r) => r.cells.map(cell));
  const widest = Math.max(6, ...texts.flat().map((s) => s.length));
  const width = widest + 2;
  const labelWidth = Math.max(18, ...table.rows.map((r) => r.test.length + 2));
  const columns: TextColumn[] = [
    { width: labelWidth },
    ...table.threads.map((): TextColumn => ({ width, align: "right" })),
  ];
  // Seed widths: thread counts start one column right of where a 6-character value starts. Wider cells: right-aligned.
  const head = [
    "",
    ...table.threads.map((t) => (width === 8 ? " ".repeat(width - 5) + String(t).padEnd(5) : String(t))),
  ];
  return [
    " ".repeat(labelWidth + 1) + "Number of threads",
    ...textTable([head], { columns, gap: "" }),
    rowLabel,
    ...textTable(
      table.rows.map((r, i) => ["  " + r.test, ...texts[i]]),
      { columns, gap: "", trimEnd: false },
    ),
  ];
}

/** `(MariaDB q/s / MySQL q/s * 100)`; inverted for latency. */
export function legend(table: RatioTable): string {
  const unit = metricLabel(table.metric, table.percentile);
  if (table.inverted) {
    return `(${table.denominatorLabel} ${unit} / ${table.numeratorLabel} ${unit} * 100: latency is inverted, above 100 means ${table.numeratorLabel} is faster)`;
  }
  return `(${table.numeratorLabel} ${unit} / ${table.denominatorLabel} ${unit} * 100)`;
}

/** Which figure each table shows. */
export function figuresLegend(table: RatioTable): string {
  const what = table.pairing === "paired" ? "paired repeats" : table.method.unit === "runs" ? "runs" : "repeats";
  return `Above: median / median over repeats, as in the seed tables. Below: the geometric mean of the ratios of ${what}, exp(mean ln ratio) * 100, with its ${Math.round(table.confidence * 100)}% interval.`;
}

export { methodLines };

/** The verdict words, then how the intervals were made and what they include. */
export function verdictLegend(table: RatioTable): string[] {
  const cells = table.method.intervals;
  return [
    ...verdictWordsLegend({
      marginPct: table.marginPct,
      together: `also when all ${cells} cell${cells === 1 ? "" : "s"} with an interval are read together`,
      loadBound: hasLoadBound(table),
    }),
    `No figures: ${STATE_WORDS.failed}, ${STATE_WORDS.skipped}, ${STATE_MARKS.missing} ${STATE_WORDS.missing}.`,
    ...methodLines(table),
  ];
}

/**
 * Every measured cell's figures in words: `oltp_read_only at 4 threads: 101.2 [100.4–102.0], 5 pairs: faster
 * (p 0.0021, BH q 0.0063: holds at 5% FDR); within ±5%`. Cells that failed or were not measured are left out (the
 * answer table shows them).
 */
export function verdictLines(table: RatioTable): string[] {
  const out: string[] = [];
  const unit = table.pairing === "paired" ? "pair" : "value";
  for (const r of table.rows) {
    for (const c of r.cells) {
      if (c.status !== "ok" || c.estimate === null) continue;
      const ci = intervalText(c);
      out.push(
        `${r.test} at ${c.threads} thread${c.threads === 1 ? "" : "s"}: ${c.estimate.toFixed(1)}${ci ? ` ${ci}` : ""}, ${c.n} ${unit}${c.n === 1 ? "" : "s"}: ${verdictSentence(c, table.marginPct)}`,
      );
    }
  }
  return out;
}

/** The head of {@link verdictRows}. */
export const VERDICT_HEAD = [
  "sysbench test",
  "threads",
  "estimate",
  "interval",
  "verdict",
  "direction",
  "p",
  "BH q",
  "at 5% FDR",
  "equivalence",
  "n",
] as const;

/**
 * Every measured cell's verdict as table rows (markdown, HTML): the effect size, the verdict word, the direction with its
 * p-value, its Benjamini–Hochberg q-value and whether it holds, and the equivalence reading.
 */
export function verdictRows(table: RatioTable): string[][] {
  const fp = (x: number | null) => (x === null ? "" : x < 0.0001 ? "<0.0001" : x.toPrecision(2));
  const out: string[][] = [];
  for (const r of table.rows) {
    for (const c of r.cells) {
      if (c.status !== "ok" || c.estimate === null) continue;
      out.push([
        r.test,
        String(c.threads),
        c.estimate.toFixed(1),
        intervalText(c) ?? "no interval",
        cellVerdictText(c, table.marginPct),
        DIRECTION_WORDS[c.direction],
        fp(c.p),
        fp(c.q),
        c.fdr === "holds" ? "holds" : c.fdr === "fails" ? "does not hold" : "",
        c.equivalence === "unknown" ? "" : equivalenceWord(c.equivalence, table.marginPct),
        String(c.n),
      ]);
    }
  }
  return out;
}

/** Cells worth a note: unstable cells, partially failed repeats, intervals of zero width. */
export function cellNotes(table: RatioTable): string[] {
  const out: string[] = [];
  for (const r of table.rows) {
    for (const c of r.cells) {
      const where = `${r.test} @ ${c.threads} threads`;
      for (const u of c.unstable) out.push(`${where}: unstable: ${u}`);
      if (c.reason === "zero-width")
        out.push(`${where}: the interval has zero width (every pair gave the same ratio): no verdict`);
      if (c.loadBound)
        out.push(
          `${where}: load-bound (sysbench saturated its cpuset in most repeats, the server did not): no verdict`,
        );
      if (c.status === "ok" && c.failedRepeats > 0) out.push(`${where}: ${c.failedRepeats} repeat(s) failed, left out`);
    }
  }
  return out;
}

export function fmtPct(x: number | null): string {
  return x === null ? "n/a" : `${x.toFixed(1)}%`;
}

export function serverLines(report: RunReport): string[] {
  const rows = report.servers.map((s) => {
    const pkg = s.packageVersion ? `, package ${s.packageVersion}` : "";
    const asym = s.asymmetries.length ? `; deliberate asymmetries: ${s.asymmetries.join(", ")}` : "";
    return [
      s.id,
      `${s.family} ${s.version ?? "(version unknown)"} (image ${s.image}${pkg}); storage: ${s.storage}${asym}`,
    ];
  });
  return textTable(rows, { indent: "  ", trimEnd: false });
}

export function configIdentityLine(report: RunReport): string {
  const ci = report.configIdentity;
  switch (ci.verdict) {
    case "identical":
      return `Config identity: identical (${ci.checked} must-match variables equal)`;
    case "deliberate":
      return `Config identity: identical except deliberate differences: ${ci.differing.map((r) => r.variable).join(", ")}`;
    case "differs":
      return `Config identity: DIFFERS in ${ci.differing
        .filter((r) => !r.deliberate)
        .map((r) => r.variable)
        .join(", ")}`;
    case "unknown":
      return "Config identity: unknown (no must-match table recorded)";
  }
}

export function runLine(report: RunReport): string {
  return `Run ${report.runId} (${report.scenarioName}): status ${report.status}, ${report.recorded}/${report.planned} cells recorded, ${report.failed} failed, ${report.skipped} skipped; started ${report.startedAt}${report.endedAt ? `, ended ${report.endedAt}` : ""}`;
}

/** How many measured attempts were retries (`--retries`), or null when none was. */
export function retriesLine(report: RunReport): string | null {
  return report.retries > 0
    ? `Retries: ${report.retries} measured attempt(s) repeated a failed cell; each cell counts its last attempt (every attempt is in cells.jsonl).`
    : null;
}

/**
 * The line a partial run leads with. A run its budget stopped before every planned cell ran can still have an
 * estimate in every cell of its table: then it says so, instead of pointing at marks the table does not show.
 */
export function partialLine(report: RunReport): string | null {
  if (!report.partial) return null;
  const head = `PARTIAL RUN (status ${report.status}): ${report.recorded} of ${report.planned} cells recorded`;
  const cells = report.table?.rows.flatMap((r) => r.cells) ?? [];
  const missing = cells.length === 0 || cells.some((c) => c.estimate === null);
  return missing
    ? `${head}; missing cells show as ${STATE_MARKS.missing}.`
    : `${head}; every cell of the table has an estimate.`;
}

export function renderRatioText(table: RatioTable): string[] {
  return [
    ...seedTable(table, plainCell),
    "",
    legend(table),
    figuresLegend(table),
    "",
    ...seedTable(table, uncertainCell),
    "",
    ...verdictLegend(table),
    "",
    `Verdicts (q: Benjamini–Hochberg over the table's ${table.method.intervals} cell${table.method.intervals === 1 ? "" : "s"} with an interval):`,
    ...verdictLines(table).map((l) => `  ${l}`),
    ...cellNotes(table).map((n) => `note: ${n}`),
  ];
}

/** The two-server table helpers the ladder's renderers reuse (src/core/report/ladder-render.ts). */
export const TABLE_TEXT: TableText = {
  seedTable,
  plainCell,
  intervalText: (c) => intervalText(c),
  statusText,
  methodLines,
  cellNotes,
};

/** The first screen as text: title, seeds' table, answer table, sentences, legend. */
export function firstScreenText(report: RunReport): string[] {
  const t = report.table;
  const s: FirstScreen = firstScreen(report, partialLine(report));
  const lines: string[] = [s.title, ""];
  if (s.partial) lines.push(...wrap(s.partial), "");
  const nopm = report.nopm.length ? ["", ...nopmTextLines(report.nopm)] : [];
  if (nopm.length && nopm[nopm.length - 1] === "") nopm.pop();
  if (report.ladder) return [...lines, ...renderLadderText(report.ladder, TABLE_TEXT), ...nopm];
  if (!t) return [...lines, ...report.notes.flatMap((n) => wrap(n))];
  lines.push(...seedTable(t, plainCell), legend(t), "", ...answerBlock(t, sideNames(report, t)), ...nopm);
  const runs = [...(s.disturbance ? [s.disturbance] : []), ...(s.noHistory ? [s.noHistory] : []), ...s.level];
  if (runs.length) lines.push("", ...runs.flatMap((l) => wrap(l)));
  return lines;
}

/** Everything after the first screen. */
export function detailLines(report: RunReport): string[] {
  const t = report.table;
  const lines: string[] = [];
  const costs = costSummaryLines(costSummary(report.costs));
  if (costs.length) lines.push(...costs, "");
  const second = secondRunDetails(report);
  if (second.length) lines.push(...second, "");
  if (t && !report.ladder) {
    lines.push(
      ...wrap(
        `The seeds' table shows the ratio of the medians; the answer table the geometric mean of the pairs' ratios, ` +
          `with its ${Math.round(t.confidence * 100)}% interval. ${report.durationText}`.trimEnd(),
      ),
    );
    lines.push(...methodLines(t).flatMap((l) => wrap(l)), "");
    lines.push("Each cell in figures (p: the chance reading; q: the same over all cells, Benjamini–Hochberg):");
    lines.push(...verdictLines(t).flatMap((l) => wrap(`- ${l}`)));
    lines.push(...cellNotes(t).flatMap((n) => wrap(`note: ${n}`)), "");
  }
  if (report.latency) lines.push(...latencyTextLines(report.latency), "");
  lines.push(...report.notes.flatMap((n) => wrap(n)));
  if (report.costs?.recorded)
    lines.push("Every cost figure per query, with each side's median: costs.csv, report.json.", report.costs.hardware);
  lines.push("", "Servers:", ...serverLines(report).flatMap((l) => wrap(l, undefined, "      ")));
  lines.push(...wrap(configIdentityLine(report)));
  for (const r of report.configIdentity.differing) {
    const vals = Object.entries(r.values)
      .map(([k, v]) => `${k}=${v ?? "(unset)"}`)
      .join(" ");
    lines.push(
      ...wrap(`- ${r.variable}: ${vals}${r.deliberate ? " (deliberate)" : ""}${r.note ? ` - ${r.note}` : ""}`),
    );
  }
  lines.push(...wrap(runLine(report)));
  const retried = retriesLine(report);
  if (retried) lines.push(...wrap(retried));
  return lines;
}

/**
 * The report as terminal text: the first screen, then the details after a rule; without `details`, the first
 * screen and the hint that says how to get them.
 */
export function renderText(report: RunReport, opts: { details?: boolean } = {}): string {
  const lines = firstScreenText(report);
  if (opts.details) lines.push("", DETAILS_RULE, "", ...detailLines(report));
  else lines.push("", DETAILS_HINT);
  return lines.join("\n") + "\n";
}
