/**
 * Plain-text renderer: the seed layout (`Number of threads` header, one row per test, `104.21`: the ratio of the
 * medians), its legend, then the same table with the estimate, its 95% interval and the verdict mark
 * (`104.2 [101.3–107.2] +`), the legend of the marks and the method, then the facts behind it.
 */
import { replicationLines } from "./history.ts";
import {
  DIRECTION_WORDS,
  LOAD_BOUND,
  STATE_MARKS,
  equivalenceWord,
  longLegend,
  verdictMark,
  verdictSentence,
} from "../model/vocabulary.ts";
import { costLines } from "./costs.ts";
import { type RatioCell, type RatioTable } from "../stats/ratio-model.ts";
import { metricLabel } from "../stats/metric.ts";
import type { RunReport } from "./model.ts";
import { textTable, type TextColumn } from "../base/text-table.ts";
import { ladderTitle, renderLadderText, type TableText } from "./ladder-render.ts";

/** `fail`, `skip`, `·` for cells without numbers (the vocabulary's state marks). */
export function statusText(c: RatioCell): string | null {
  return c.status === "ok" ? null : STATE_MARKS[c.status];
}

/** The seed's plain value: `104.21`. */
export function plainCell(c: RatioCell): string {
  return statusText(c) ?? (c.ratio === null ? STATE_MARKS.missing : c.ratio.toFixed(2));
}

/** The verdict mark (vocabulary.ts: `L` for a load-bound cell, which has none), with `?` when its faster/slower
 * reading fails Benjamini–Hochberg, `!` when unstable. */
export function cellMark(c: RatioCell): string {
  return verdictMark(c);
}

/** `[101.3–107.2]`, or null without an interval. */
export function intervalText(c: RatioCell, digits = 1): string | null {
  return c.low === null || c.high === null ? null : `[${c.low.toFixed(digits)}–${c.high.toFixed(digits)}]`;
}

/** `104.2 [101.3–107.2] +`: the estimate, its interval, the verdict; `104.2 ?` when there is no interval. */
export function uncertainCell(c: RatioCell): string {
  const s = statusText(c);
  if (s !== null) return s;
  if (c.estimate === null) return STATE_MARKS.missing;
  const ci = intervalText(c);
  return `${c.estimate.toFixed(1)}${ci ? ` ${ci}` : ""} ${cellMark(c)}`;
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
  return `Above: median / median over repeats, as in the seed tables. Below: the geometric mean of the ratios of ${what}, exp(mean ln ratio) * 100, with its ${pct(table.confidence)} interval.`;
}

const pct = (x: number) => `${Math.round(x * 100)}%`;
const num = (x: number, d = 1) => (Number.isInteger(x) ? String(x) : x.toFixed(d));

/** The marks, then how the intervals were made and what they include. */
export function verdictLegend(table: RatioTable): string[] {
  return [
    ...longLegend({
      marginPct: table.marginPct,
      numerator: table.numeratorLabel,
      denominator: table.denominatorLabel,
      few: table.pairing === "paired" ? "pairs" : "values a side",
    }),
    ...(table.rows.some((r) => r.cells.some((c) => c.loadBound)) ? [`${LOAD_BOUND.mark} ${LOAD_BOUND.word}`] : []),
    ...methodLines(table),
  ];
}

/**
 * Every measured cell's verdict in words, with its effect size: `oltp_read_only @ 4 threads: 101.2 [100.4–102.0]
 * +=: faster (p 0.0021, BH q 0.0063: holds at 5% FDR); within ±5%`. Cells that failed or were not measured are left
 * out (the table shows them).
 */
export function verdictLines(table: RatioTable): string[] {
  const out: string[] = [];
  for (const r of table.rows) {
    for (const c of r.cells) {
      if (c.status !== "ok" || c.estimate === null) continue;
      const ci = intervalText(c);
      out.push(
        `${r.test} @ ${c.threads} thread${c.threads === 1 ? "" : "s"}: ${c.estimate.toFixed(1)}${ci ? ` ${ci}` : ""} ${cellMark(c)}, n=${c.n}: ${verdictSentence(c, table.marginPct)}`,
      );
    }
  }
  return out;
}

/** How the intervals were pooled, what they include, the order effect, and what chance alone gives. */
export function methodLines(table: RatioTable): string[] {
  const t = table.method;
  const out: string[] = [];
  const prior =
    t.priorDf === null || t.priorSd === null
      ? "nothing to pool"
      : `pooled sd ${(t.priorSd * 100).toFixed(1)}% with ${t.priorDf === Infinity ? "unbounded" : num(t.priorDf)} prior df, capped per cell at the other cells' df`;
  const dfs = t.dfRange
    ? t.dfRange[0] === t.dfRange[1]
      ? `${num(t.dfRange[0])} df`
      : `${num(t.dfRange[0])}–${num(t.dfRange[1])} df`
    : null;
  out.push(
    `Each cell's variance is moderated toward the table's (${prior}); a cell noisier than the prior keeps its own variance and df. The interval uses t with the combined df${dfs ? ` (${dfs})` : ""}.`,
  );
  if (table.pairing === "paired") {
    if (t.instanceCells > 0) {
      const within =
        (t.withinDf ?? 0) > 0
          ? `the variance within an instance has ${num(t.withinDf!)} df${t.instanceSd !== null ? `, the sd between instances is ${(t.instanceSd * 100).toFixed(1)}%` : ""}`
          : "every instance held one pair (a fresh instance each round), so the noise within an instance and between instances cannot be told apart: the interval holds both";
      out.push(
        `Replication unit: the server instance (${t.instanceCells} cell${t.instanceCells === 1 ? "" : "s"} ran on 2 or more); ${within}.`,
      );
    } else {
      out.push(
        "Replication unit: the pair, on one server instance per side: the intervals hold the noise between pairs, not the level between server restarts (workload.instances).",
      );
    }
    if ((t.splitCells ?? 0) > 0)
      out.push(
        `Stop rule: a cell stopped when its printed interval was within the precision target. Its variance comes from its first four units only (a two-stage rule), so stopping when a cell looks precise does not narrow the interval; the centre resists a wild pair (${t.splitCells} cell${t.splitCells === 1 ? "" : "s"}; simulated coverage in docs/stats.md).`,
      );
    const all = t.allUnitsCells ?? 0;
    if (all > 0)
      out.push(
        `${all} cell${all === 1 ? "" : "s"} stopped by the budget or the round limit (or still open): the stop rule never found ${all === 1 ? "it" : "them"} narrow, so ${all === 1 ? "its" : "their"} interval uses all ${all === 1 ? "its" : "their"} units (conservative; simulated coverage in docs/stats.md).`,
      );
    const o = t.order;
    if (o) {
      out.push(
        `Order effect: ${table.numeratorLabel} first against second reads ${o.estimate.toFixed(1)} [${o.low.toFixed(1)}–${o.high.toFixed(1)}] (${o.n} pairs); ABBA order cancels it in even repeat counts.`,
      );
    }
  } else if (t.unit === "runs") {
    out.push("Each run's cell value is one observation: the intervals include the variance between runs.");
  } else {
    out.push(
      "Fewer than 2 runs a side: the intervals hold only the variation between repeats, not between runs (restarts, the day); compare 2 or more runs a side for that.",
    );
  }
  if (t.intervals > 0) {
    out.push(
      `${t.intervals} cell${t.intervals === 1 ? "" : "s"} at ${pct(table.confidence)}: about ${t.expectedFalse.toFixed(1)} false faster/slower verdict${t.expectedFalse === 1 ? "" : "s"} expected by chance alone; ` +
        `${t.verdicts} given, ${t.verdictsAtFdr} of them ${t.verdictsAtFdr === 1 ? "holds" : "hold"} at a 5% false-discovery rate (Benjamini–Hochberg).`,
    );
  }
  return out;
}

/** The head of {@link verdictRows}. */
export const VERDICT_HEAD = [
  "sysbench test",
  "threads",
  "estimate",
  "interval",
  "mark",
  "direction",
  "p",
  "BH q",
  "at 5% FDR",
  "equivalence",
  "n",
] as const;

/**
 * Every measured cell's verdict as table rows (markdown, HTML): the effect size, the mark, the direction with its
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
        cellMark(c),
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

function title(report: RunReport, table: RatioTable | null): string {
  if (!table)
    return [`${report.servers.map((s) => s.family).join("/")} sysbench run`, report.durationText]
      .filter(Boolean)
      .join(". ");
  const names = `${table.numeratorLabel}/${table.denominatorLabel}`;
  const what = table?.inverted ? ` (${metricLabel(table.metric, table.percentile)}, inverted)` : "";
  return [`${names} sysbench benchmark comparison in %${what}`, report.durationText].filter(Boolean).join(" ");
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

export function partialLine(report: RunReport): string | null {
  return report.partial
    ? `PARTIAL RUN (status ${report.status}): ${report.recorded} of ${report.planned} cells recorded; missing cells show as ${STATE_MARKS.missing}.`
    : null;
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

/** The report as terminal text: the seeds' table, then the same cells with intervals and verdicts. */
export function renderText(report: RunReport): string {
  const t = report.table;
  const lines: string[] = [
    report.ladder ? [ladderTitle(report.ladder), report.durationText].filter(Boolean).join(" ") : title(report, t),
    "",
  ];
  const partial = partialLine(report);
  if (partial) lines.push(partial, "");
  if (report.ladder) lines.push(...renderLadderText(report.ladder, TABLE_TEXT), "");
  else if (t) lines.push(...renderRatioText(t), "");
  const second = replicationLines(report);
  if (second.length) lines.push(...second, "");
  const costs = costLines(report.costs);
  if (costs.length) lines.push(...costs, "");
  lines.push(...report.notes);
  lines.push("Servers:", ...serverLines(report), configIdentityLine(report));
  for (const r of report.configIdentity.differing) {
    const vals = Object.entries(r.values)
      .map(([k, v]) => `${k}=${v ?? "(unset)"}`)
      .join(" ");
    lines.push(`  ${r.variable}: ${vals}${r.deliberate ? " (deliberate)" : ""}${r.note ? ` - ${r.note}` : ""}`);
  }
  lines.push(runLine(report));
  const retried = retriesLine(report);
  if (retried) lines.push(retried);
  return lines.join("\n") + "\n";
}
