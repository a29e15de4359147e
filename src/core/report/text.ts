/**
 * Plain-text renderer: the seed layout (`Number of threads` header, one row per test, `104.21`), its legend,
 * then the same table with the 95% interval and verdict mark (`104.2 ±1.8 +`), then the facts behind it.
 */
import { verdictMark } from "../stats.ts";
import { metricLabel, type RatioCell, type RatioTable } from "./ratio.ts";
import type { RunReport } from "./model.ts";

/** `fail`, `skip`, `--` for cells without numbers. */
export function statusText(c: RatioCell): string | null {
  return c.status === "failed" ? "fail" : c.status === "skipped" ? "skip" : c.status === "missing" ? "--" : null;
}

/** The seed's plain value: `104.21`. */
export function plainCell(c: RatioCell): string {
  return statusText(c) ?? (c.ratio === null ? "--" : c.ratio.toFixed(2));
}

/** `104.2 ±1.8 +`; `104.2 ?` when there is no interval. The ± is half the interval width. */
export function uncertainCell(c: RatioCell): string {
  const s = statusText(c);
  if (s !== null) return s;
  if (c.ratio === null) return "--";
  const mark = verdictMark(c.verdict);
  if (c.low === null || c.high === null) return `${c.ratio.toFixed(1)} ${mark}`;
  return `${c.ratio.toFixed(1)} ±${((c.high - c.low) / 2).toFixed(1)} ${mark}`;
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
  const lines: string[] = [];
  lines.push(" ".repeat(labelWidth + 1) + "Number of threads");
  // Seed widths: thread counts start one column right of where a 6-character value starts. Wider cells: right-aligned.
  const head = table.threads
    .map((t) => (width === 8 ? " ".repeat(width - 5) + String(t).padEnd(5) : String(t).padStart(width)))
    .join("");
  lines.push((" ".repeat(labelWidth) + head).trimEnd());
  lines.push(rowLabel);
  table.rows.forEach((r, i) => {
    lines.push(("  " + r.test).padEnd(labelWidth) + texts[i].map((s) => s.padStart(width)).join(""));
  });
  return lines;
}

/** `(MariaDB q/s / MySQL q/s * 100)`; inverted for latency. */
export function legend(table: RatioTable): string {
  const unit = metricLabel(table.metric, table.percentile);
  if (table.inverted) {
    return `(${table.denominatorLabel} ${unit} / ${table.numeratorLabel} ${unit} * 100: latency is inverted, above 100 means ${table.numeratorLabel} is faster)`;
  }
  return `(${table.numeratorLabel} ${unit} / ${table.denominatorLabel} ${unit} * 100)`;
}

export function verdictLegend(table: RatioTable): string[] {
  const method =
    table.pairing === "paired"
      ? "t-interval on the log ratios of paired repeats"
      : "Welch t-interval on the difference of mean log values";
  return [
    `${Math.round(table.confidence * 100)}% confidence interval (${method}); ± is half its width.`,
    `+ ${table.numeratorLabel} faster (interval above 100)   - slower (interval below 100)   ~ same (interval includes 100)`,
    `? unknown (fewer than 2 repeats, or a side's coefficient of variation above ${table.cvThreshold}%)`,
    "fail = failed   skip = skipped   -- = missing",
  ];
}

/** Cells worth a note: noisy sides, partially failed repeats. */
export function cellNotes(table: RatioTable): string[] {
  const out: string[] = [];
  for (const r of table.rows) {
    for (const c of r.cells) {
      const where = `${r.test} @ ${c.threads} threads`;
      if (c.reason === "noisy") {
        out.push(`${where}: noisy (CV ${table.numerator} ${fmtPct(c.cvNumerator)}, ${table.denominator} ${fmtPct(c.cvDenominator)})`);
      }
      if (c.status === "ok" && c.failedRepeats > 0) out.push(`${where}: ${c.failedRepeats} repeat(s) failed, left out`);
    }
  }
  return out;
}

export function fmtPct(x: number | null): string {
  return x === null ? "n/a" : `${x.toFixed(1)}%`;
}

function title(report: RunReport, table: RatioTable | null): string {
  if (!table) return [`${report.servers.map((s) => s.family).join("/")} sysbench run`, report.durationText].filter(Boolean).join(". ");
  const names = `${table.numeratorLabel}/${table.denominatorLabel}`;
  const what = table?.inverted ? ` (${metricLabel(table.metric, table.percentile)}, inverted)` : "";
  return [`${names} sysbench benchmark comparison in %${what}`, report.durationText].filter(Boolean).join(" ");
}

export function serverLines(report: RunReport): string[] {
  const w = Math.max(0, ...report.servers.map((s) => s.id.length));
  return report.servers.map((s) => {
    const pkg = s.packageVersion ? `, package ${s.packageVersion}` : "";
    const asym = s.asymmetries.length ? `; deliberate asymmetries: ${s.asymmetries.join(", ")}` : "";
    return `  ${s.id.padEnd(w)}  ${s.family} ${s.version ?? "(version unknown)"} (image ${s.image}${pkg}); storage: ${s.storage}${asym}`;
  });
}

export function configIdentityLine(report: RunReport): string {
  const ci = report.configIdentity;
  switch (ci.verdict) {
    case "identical":
      return `Config identity: identical (${ci.checked} must-match variables equal)`;
    case "deliberate":
      return `Config identity: identical except deliberate differences: ${ci.differing.map((r) => r.variable).join(", ")}`;
    case "differs":
      return `Config identity: DIFFERS in ${ci.differing.filter((r) => !r.deliberate).map((r) => r.variable).join(", ")}`;
    case "unknown":
      return "Config identity: unknown (no must-match table recorded)";
  }
}

export function runLine(report: RunReport): string {
  return `Run ${report.runId} (${report.scenarioName}): status ${report.status}, ${report.recorded}/${report.planned} cells recorded, ${report.failed} failed, ${report.skipped} skipped; started ${report.startedAt}${report.endedAt ? `, ended ${report.endedAt}` : ""}`;
}

export function partialLine(report: RunReport): string | null {
  return report.partial
    ? `PARTIAL RUN (status ${report.status}): ${report.recorded} of ${report.planned} cells recorded; missing cells show as --.`
    : null;
}

export function renderRatioText(table: RatioTable): string[] {
  return [
    ...seedTable(table, plainCell),
    "",
    legend(table),
    "",
    ...seedTable(table, uncertainCell),
    "",
    ...verdictLegend(table),
    ...cellNotes(table).map((n) => `note: ${n}`),
  ];
}

/** The report as terminal text: the seeds' table, then the same cells with intervals and verdicts. */
export function renderText(report: RunReport): string {
  const t = report.table;
  const lines: string[] = [title(report, t), ""];
  const partial = partialLine(report);
  if (partial) lines.push(partial, "");
  if (t) lines.push(...renderRatioText(t), "");
  lines.push(...report.notes);
  lines.push("Servers:", ...serverLines(report), configIdentityLine(report));
  for (const r of report.configIdentity.differing) {
    const vals = Object.entries(r.values).map(([k, v]) => `${k}=${v ?? "(unset)"}`).join(" ");
    lines.push(`  ${r.variable}: ${vals}${r.deliberate ? " (deliberate)" : ""}${r.note ? ` - ${r.note}` : ""}`);
  }
  lines.push(runLine(report));
  return lines.join("\n") + "\n";
}
