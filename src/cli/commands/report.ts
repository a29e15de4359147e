/**
 * `twinbench report DIR` (the ratio table of one run, or `--summary`) and `twinbench compare DIR_A DIR_B`
 * (run B / run A per server, host-facts diff, `--fail-below` regression gate).
 */
import type { Command } from "commander";
import { InputError } from "../../core/errors.ts";
import { buildRunReport } from "../../core/report/model.ts";
import { parseMetric, type Metric } from "../../core/report/ratio.ts";
import { renderText } from "../../core/report/text.ts";
import { renderMarkdown } from "../../core/report/markdown.ts";
import { renderCsv } from "../../core/report/csv.ts";
import { renderJson } from "../../core/report/json.ts";
import { buildHtmlData, renderHtml } from "../../core/report/html.ts";
import { buildSummary, renderSummaryMarkdown, renderSummaryText } from "../../core/report/summary.ts";
import {
  assertNoRegression,
  compareRuns,
  comparisonJson,
  renderComparisonCsv,
  renderComparisonMarkdown,
  renderComparisonText,
} from "../../core/report/compare.ts";
import { loadChartJsSource, readResultsFolder, writeReports } from "../../adapters/report-files.ts";

export { writeReports };

export const FORMATS = ["text", "markdown", "csv", "json", "html"] as const;
export type Format = (typeof FORMATS)[number];

export interface ReportCommandContext {
  /** Print text; a trailing newline is added by the callee. */
  out: (text: string) => void;
  err?: (text: string) => void;
}

function parseFormat(v: string): Format {
  if ((FORMATS as readonly string[]).includes(v)) return v as Format;
  throw new InputError(`unknown format "${v}"`, { code: "REPORT_FORMAT", hint: `use one of ${FORMATS.join(", ")}` });
}

function parsePercent(v: string, flag: string): number {
  const n = Number(v.trim().replace(/%$/, ""));
  if (v.trim() === "" || !Number.isFinite(n) || n < 0) {
    throw new InputError(`${flag} expects a non-negative number of percent, got "${v}"`, { code: "REPORT_NUMBER", hint: `e.g. ${flag} 5` });
  }
  return n;
}

/** --margin: a percentage above 0 and below 100 ("5" or "5%"). */
function parseMargin(v: string): number {
  const n = parsePercent(v, "--margin");
  if (!(n > 0 && n < 100)) throw new InputError(`--margin expects a percentage above 0 and below 100, got "${v}"`, { code: "REPORT_NUMBER", hint: "e.g. --margin 5%" });
  return n;
}

const collect = (v: string, prev: string[] = []) => [...prev, v];

const print = (ctx: ReportCommandContext, s: string) => ctx.out(s.replace(/\n$/, ""));

interface ReportFlags {
  format: string;
  metric: string;
  summary?: boolean;
  margin: string;
  write: boolean;
}

interface CompareFlags {
  server?: string;
  force?: boolean;
  failBelow?: string;
  format: string;
  metric: string;
  margin: string;
  alsoBase?: string[];
  alsoNew?: string[];
}

export function registerReportCommands(program: Command, ctx: ReportCommandContext): void {
  program
    .command("report")
    .description("print the ratio table of a results folder (and rewrite its report files)")
    .argument("<dir>", "results folder (results/<run-id>)")
    .option("--format <format>", `output format: ${FORMATS.join("|")}`, "text")
    .option("--metric <metric>", "qps|tps|p95|avg (latency ratios are inverted: above 100 = numerator better)", "qps")
    .option("--summary", "the test execution summary, side by side per server")
    .option("--margin <pct>", "equivalence margin: a cell is = (equivalent) when its interval lies inside 100 ± this", "5%")
    .option("--no-write", "do not rewrite report.md, report.html, comparison.csv, report.json")
    .action(async (dir: string, o: ReportFlags) => {
      const format = parseFormat(o.format);
      const metric: Metric = parseMetric(o.metric);
      const marginPct = parseMargin(o.margin);
      const folder = await readResultsFolder(dir);
      for (const w of folder.warnings) ctx.err?.(`warning: ${w}`);
      if (o.write) await writeReports(dir, { metric, marginPct });
      if (o.summary) {
        const s = buildSummary(folder.manifest, folder.cells);
        if (format === "text") print(ctx, renderSummaryText(s));
        else if (format === "markdown") print(ctx, renderSummaryMarkdown(s));
        else if (format === "json") print(ctx, JSON.stringify(s, null, 2));
        else throw new InputError(`--summary cannot be printed as ${format}`, { code: "REPORT_FORMAT", hint: "use --format text, markdown or json" });
        return;
      }
      const report = buildRunReport(folder.manifest, folder.cells, { metric, marginPct });
      switch (format) {
        case "text":
          return print(ctx, renderText(report));
        case "markdown":
          return print(ctx, renderMarkdown(report));
        case "csv":
          return print(ctx, renderCsv(report));
        case "json":
          return print(ctx, renderJson(report));
        case "html":
          return print(ctx, renderHtml(buildHtmlData(folder.manifest, folder.cells, report), await loadChartJsSource()));
      }
    });

  program
    .command("compare")
    .description("compare two runs of the same scenario cell by cell: NEW (DIR_B) / BASE (DIR_A) * 100 per server")
    .argument("<dirA>", "BASE results folder")
    .argument("<dirB>", "NEW results folder")
    .option("--server <id>", "compare only this server")
    .option("--force", "compare even when scenario, pins or config differ (lists the differences)")
    .option("--fail-below <pct>", "exit 1 when any cell's 95% interval lies wholly below this (e.g. 95)")
    .option("--format <format>", "output format: text|markdown|csv|json", "text")
    .option("--metric <metric>", "qps|tps|p95|avg", "qps")
    .option("--margin <pct>", "equivalence margin: a cell is = (equivalent) when its interval lies inside 100 ± this", "5%")
    .option("--also-base <dir>", "another BASE run of the same scenario (repeatable): with 2+ runs a side the interval includes the variance between runs", collect)
    .option("--also-new <dir>", "another NEW run of the same scenario (repeatable)", collect)
    .action(async (dirA: string, dirB: string, o: CompareFlags) => {
      const format = parseFormat(o.format);
      const metric = parseMetric(o.metric);
      const marginPct = parseMargin(o.margin);
      const failBelow = o.failBelow === undefined ? undefined : parsePercent(o.failBelow, "--fail-below");
      const read = (dirs: string[]) => Promise.all(dirs.map((d) => readResultsFolder(d)));
      const [base, next] = await Promise.all([read([dirA, ...(o.alsoBase ?? [])]), read([dirB, ...(o.alsoNew ?? [])])]);
      for (const w of [...base, ...next].flatMap((f) => f.warnings)) ctx.err?.(`warning: ${w}`);
      const cmp = compareRuns(base, next, { server: o.server, force: o.force, metric, marginPct });
      switch (format) {
        case "text":
          print(ctx, renderComparisonText(cmp));
          break;
        case "markdown":
          print(ctx, renderComparisonMarkdown(cmp));
          break;
        case "csv":
          print(ctx, renderComparisonCsv(cmp));
          break;
        case "json":
          print(ctx, JSON.stringify(comparisonJson(cmp), null, 2));
          break;
        case "html":
          throw new InputError("compare has no html format", { code: "REPORT_FORMAT", hint: "use --format text, markdown, csv or json" });
      }
      if (failBelow !== undefined) assertNoRegression(cmp, failBelow);
    });
}
