/**
 * `twinbench report DIR` (the ratio table of one run, or `--summary`) and `twinbench compare DIR_A DIR_B`
 * (run B / run A per server, host-facts diff, `--fail-below` regression gate).
 */
import { betweenRunsFor, historyForReports } from "../../app/history.ts";
import { Option, type Command } from "commander";
import type { VerdictLevel } from "../../core/stats/host-level.ts";
import { InputError } from "../../core/base/errors.ts";
import { buildRunReport } from "../../core/report/model.ts";
import { parseMetric, type Metric } from "../../core/stats/metric.ts";
import { DEFAULT_MARGIN_PCT } from "../../core/model/scenario/schema.ts";
import { renderText } from "../../core/report/text.ts";
import { renderMarkdown } from "../../core/report/markdown.ts";
import { renderCsv } from "../../core/report/csv.ts";
import { renderJson } from "../../core/report/json.ts";
import { renderHtml } from "../../core/report/html.ts";
import { buildHtmlData } from "../../core/report/html-data.ts";
import { buildRunsSummary, buildSummary } from "../../core/report/summary.ts";
import { renderSummaryHtml, renderSummaryMarkdown, renderSummaryText } from "../../core/report/summary-render.ts";
import {
  comparisonJson,
  renderComparisonCsv,
  renderComparisonMarkdown,
  renderComparisonText,
  diffLines,
} from "../../core/report/compare.ts";
import { assertNoRegression, compareRuns } from "../../core/stats/compare.ts";
import { loadChartJsSource, writeFileAtomic, writeReports } from "../../adapters/report-files.ts";
import { describeFolder, readAnyResultsFolder, type AnyResultsFolder } from "../../adapters/results-folders.ts";
import { pairRuns, singleRun } from "./compare-runs.ts";
import { compareHosts, renderHostsHtml, renderHostsMarkdown, renderHostsText } from "../../core/report/hosts.ts";
import type { ExecutionSummary } from "../../core/report/summary.ts";
import { join } from "node:path";

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
    throw new InputError(`${flag} expects a non-negative number of percent, got "${v}"`, {
      code: "REPORT_NUMBER",
      hint: `e.g. ${flag} 5`,
    });
  }
  return n;
}

/** --margin: a percentage above 0 and below 100 ("5" or "5%"). */
function parseMargin(v: string): number {
  const n = parsePercent(v, "--margin");
  if (!(n > 0 && n < 100))
    throw new InputError(`--margin expects a percentage above 0 and below 100, got "${v}"`, {
      code: "REPORT_NUMBER",
      hint: "e.g. --margin 5%",
    });
  return n;
}

const collect = (v: string, prev: string[] = []) => [...prev, v];

/** --level run|host: which runs the verdicts speak for (default: host once the history has a level between runs). */
export function levelOption(): Option {
  return new Option(
    "--level <level>",
    "verdicts for this run (run) or for runs on this host, with the level between runs (host; the default once known)",
  ).choices(["run", "host"]);
}

const print = (ctx: ReportCommandContext, s: string) => ctx.out(s.replace(/\n$/, ""));

interface ReportFlags {
  format: string;
  metric: string;
  summary?: boolean;
  /** Absent: the scenario's report.margin, else 5%. */
  margin?: string;
  write: boolean;
  details?: boolean;
  level?: VerdictLevel;
}

interface CompareFlags {
  server?: string;
  host?: string;
  summary?: boolean;
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
    .description(
      "print the ratio table of a results folder: a single run, a sharded run or a host comparison (and rewrite its report files)",
    )
    .argument("<dir>", "results folder (results/<run-id>)")
    .option("--format <format>", `output format: ${FORMATS.join("|")}`, "text")
    .option(
      "--metric <metric>",
      "qps|tps|p50|p95|p99|avg|nopm (latency ratios are inverted: above 100 = numerator better)",
      "qps",
    )
    .option(
      "--summary",
      "the test execution summary side by side (servers of a run, or hosts), with effective concurrency and fairness",
    )
    .option(
      "--margin <pct>",
      "equivalence margin: a cell reads same within ±N% when its interval lies inside 100 ± N (default: the scenario's report.margin, else 5%)",
    )
    .addOption(levelOption())
    .option(
      "--no-write",
      "do not rewrite the report files (report.md/.html/.json, comparison.csv, costs.csv; report-hosts.md/.html)",
    )
    .option("--details", "after the answer: cost per query, method, each cell's figures, notes, servers (text)")
    .action(async (dir: string, o: ReportFlags) => {
      const format = parseFormat(o.format);
      const metric: Metric = parseMetric(o.metric);
      const marginPct = o.margin === undefined ? undefined : parseMargin(o.margin);
      const any = await readAnyResultsFolder(dir);
      for (const w of any.warnings) ctx.err?.(`warning: ${w}`);
      // What was read: on stdout with the text, on stderr when stdout is data.
      (format === "text" ? ctx.out : (ctx.err ?? (() => undefined)))(describeFolder(any));
      if (any.kind === "hosts")
        return reportHosts(ctx, any, {
          format,
          metric,
          marginPct: marginPct ?? DEFAULT_MARGIN_PCT,
          summary: Boolean(o.summary),
          write: o.write,
        });
      const folder = any.folder;
      const { entries: history } = await historyForReports();
      if (o.write) await writeReports(dir, { metric, marginPct, history, level: o.level });
      if (o.summary) {
        const s = buildSummary(folder.manifest, folder.cells);
        printSummary(ctx, s, format);
        return;
      }
      const report = buildRunReport(folder.manifest, folder.cells, { metric, marginPct, history, level: o.level });
      switch (format) {
        case "text":
          return print(ctx, renderText(report, { details: Boolean(o.details) }));
        case "markdown":
          return print(ctx, renderMarkdown(report));
        case "csv":
          return print(ctx, renderCsv(report));
        case "json":
          return print(ctx, renderJson(report));
        case "html":
          return print(
            ctx,
            renderHtml(buildHtmlData(folder.manifest, folder.cells, report), await loadChartJsSource()),
          );
      }
    });

  program
    .command("compare")
    .description("compare two runs of the same scenario cell by cell: NEW (DIR_B) / BASE (DIR_A) * 100 per server")
    .argument("<dirA>", "BASE results folder (a single run, a sharded run or a host comparison)")
    .argument("<dirB>", "NEW results folder (idem)")
    .option("--server <id>", "compare only this server")
    .option("--host <id>", "in a host comparison folder, compare only this host's run (hosts are paired by id)")
    .option(
      "--summary",
      "the execution summaries side by side: A = BASE, B = NEW, and B/A, with effective concurrency and fairness",
    )
    .option("--force", "compare even when scenario, pins or config differ (lists the differences)")
    .option("--fail-below <pct>", "exit 1 when any cell's 95% interval lies wholly below this (e.g. 95)")
    .option("--format <format>", "output format: text|markdown|csv|json", "text")
    .option("--metric <metric>", "qps|tps|p50|p95|p99|avg|nopm", "qps")
    .option(
      "--margin <pct>",
      "equivalence margin: a cell reads same within ±N% when its interval lies inside 100 ± N",
      "5%",
    )
    .option(
      "--also-base <dir>",
      "another BASE run of the same scenario (repeatable): with 2+ runs a side the interval includes the variance between runs",
      collect,
    )
    .option("--also-new <dir>", "another NEW run of the same scenario (repeatable)", collect)
    .action((dirA: string, dirB: string, o: CompareFlags) => compareCommand(ctx, dirA, dirB, o));
}

/**
 * `twinbench compare DIR_A DIR_B`: read both folders (and --also-base/--also-new), pair their runs, compare each pair
 * and print the comparisons (or the summaries side by side); --fail-below fails on a regression.
 */
async function compareCommand(ctx: ReportCommandContext, dirA: string, dirB: string, o: CompareFlags): Promise<void> {
  const format = parseFormat(o.format);
  const metric = parseMetric(o.metric);
  const marginPct = parseMargin(o.margin);
  const failBelow = o.failBelow === undefined ? undefined : parsePercent(o.failBelow, "--fail-below");
  const [fa, fb] = await Promise.all([readAnyResultsFolder(dirA), readAnyResultsFolder(dirB)]);
  for (const w of [...fa.warnings, ...fb.warnings]) ctx.err?.(`warning: ${w}`);
  const say = format === "text" ? ctx.out : (ctx.err ?? (() => undefined));
  say(describeFolder(fa).replace(/^read: /, "read BASE: "));
  say(describeFolder(fb).replace(/^read: /, "read NEW:  "));
  const pairs = pairRuns(fa, fb, o.host);
  // --also-base/--also-new: more runs a side, so that the interval includes the variance between runs.
  const extra = async (dirs: string[] | undefined) =>
    (await Promise.all((dirs ?? []).map((d) => readAnyResultsFolder(d)))).map((f) => {
      for (const w of f.warnings) ctx.err?.(`warning: ${w}`);
      say(describeFolder(f).replace(/^read: /, "read also: "));
      return singleRun(f);
    });
  const [moreBase, moreNew] = await Promise.all([extra(o.alsoBase), extra(o.alsoNew)]);
  if ((moreBase.length || moreNew.length) && pairs.length > 1)
    throw new InputError("--also-base/--also-new compare single runs, not host comparisons", {
      code: "COMPARE_HOST",
      hint: "pick one host with --host ID",
    });
  const oneEach = moreBase.length === 0 && moreNew.length === 0;
  const cmps = await Promise.all(
    pairs.map(async (p) => ({
      ...p,
      cmp: compareRuns([p.a, ...moreBase], [p.b, ...moreNew], {
        server: o.server,
        force: o.force,
        metric,
        marginPct,
        betweenRuns: oneEach
          ? await betweenRunsFor(p.a.manifest, metric, [p.a.manifest.runId, p.b.manifest.runId])
          : undefined,
      }),
    })),
  );
  const heading = (host: string | undefined) => (cmps.length > 1 && host ? `Host ${host}:\n` : "");
  // The text comparison prints its warnings itself; the other formats and --summary get them on stderr.
  if (format !== "text" || o.summary) for (const c of cmps) for (const w of c.cmp.warnings) ctx.err?.(`warning: ${w}`);
  if (o.summary) {
    const sums = cmps.map(({ host, a, b, cmp }) =>
      buildRunsSummary(
        { label: "A", manifest: a.manifest, cells: a.cells },
        { label: "B", manifest: b.manifest, cells: b.cells },
        cmp.servers,
        [
          `A = BASE ${dirA}${host ? ` host ${host}` : ""} (run ${a.manifest.runId})`,
          `B = NEW ${dirB}${host ? ` host ${host}` : ""} (run ${b.manifest.runId})`,
        ],
      ),
    );
    if (format === "text")
      print(
        ctx,
        cmps
          .map((c, i) => heading(c.host) + renderSummaryText(sums[i]!) + diffLines(c.cmp).join("\n") + "\n")
          .join("\n"),
      );
    else printSummary(ctx, sums.length === 1 ? sums[0]! : sums, format);
  } else {
    switch (format) {
      case "text":
        print(ctx, cmps.map((c) => heading(c.host) + renderComparisonText(c.cmp)).join("\n"));
        break;
      case "markdown":
        print(
          ctx,
          cmps
            .map((c) => (c.host && cmps.length > 1 ? `# Host ${c.host}\n\n` : "") + renderComparisonMarkdown(c.cmp))
            .join("\n"),
        );
        break;
      case "csv":
        print(ctx, cmps.map((c) => renderComparisonCsv(c.cmp)).join("\n"));
        break;
      case "json":
        print(
          ctx,
          JSON.stringify(
            cmps.length === 1
              ? comparisonJson(cmps[0]!.cmp)
              : cmps.map((c) => ({ host: c.host, ...comparisonJson(c.cmp) })),
            null,
            2,
          ),
        );
        break;
      case "html":
        throw new InputError("compare has no html format", {
          code: "REPORT_FORMAT",
          hint: "use --format text, markdown, csv or json",
        });
    }
  }
  if (failBelow !== undefined) for (const c of cmps) assertNoRegression(c.cmp, failBelow);
}

function printSummary(ctx: ReportCommandContext, s: ExecutionSummary | ExecutionSummary[], format: Format): void {
  const all = Array.isArray(s) ? s : [s];
  if (format === "text") print(ctx, all.map(renderSummaryText).join("\n"));
  else if (format === "markdown") print(ctx, all.map((x) => renderSummaryMarkdown(x)).join("\n"));
  else if (format === "json") print(ctx, JSON.stringify(Array.isArray(s) ? all : s, null, 2));
  else if (format === "html") print(ctx, all.map(renderSummaryHtml).join("\n"));
  else
    throw new InputError(`--summary cannot be printed as ${format}`, {
      code: "REPORT_FORMAT",
      hint: "use --format text, markdown, json or html",
    });
}

/** A host comparison folder: each host's table, the host comparison (with the summaries), or only the summaries. */
async function reportHosts(
  ctx: ReportCommandContext,
  f: Extract<AnyResultsFolder, { kind: "hosts" }>,
  o: { format: Format; metric: Metric; marginPct: number; summary: boolean; write: boolean },
): Promise<void> {
  const cmp = compareHosts(f.runs, { metric: o.metric, marginPct: o.marginPct, notes: f.notes });
  if (o.write) {
    await writeFileAtomic(join(f.dir, "report-hosts.md"), renderHostsMarkdown(cmp));
    await writeFileAtomic(join(f.dir, "report-hosts.html"), renderHostsHtml(cmp));
  }
  if (o.summary) return printSummary(ctx, cmp.summaries, o.format);
  const withData = f.runs.filter((r) => r.manifest && r.cells);
  switch (o.format) {
    case "text": {
      const perHost = withData.map(
        (r) =>
          `Host ${r.id} (${r.dir}):\n${renderText(buildRunReport(r.manifest!, r.cells!, { metric: o.metric, marginPct: o.marginPct })).trimEnd()}\n`,
      );
      return print(ctx, [...perHost, renderHostsText(cmp)].join("\n"));
    }
    case "markdown": {
      const perHost = withData.map(
        (r) =>
          `# Host ${r.id}\n\n${renderMarkdown(buildRunReport(r.manifest!, r.cells!, { metric: o.metric, marginPct: o.marginPct })).trimEnd()}\n`,
      );
      return print(ctx, [...perHost, renderHostsMarkdown(cmp)].join("\n"));
    }
    case "json": {
      const { hosts, ...rest } = cmp;
      return print(
        ctx,
        JSON.stringify({ hosts: hosts.map(({ manifest: _m, cells: _c, ...h }) => h), ...rest }, null, 2),
      );
    }
    case "html":
      return print(ctx, renderHostsHtml(cmp));
    case "csv":
      throw new InputError("a host comparison has no csv form", {
        code: "REPORT_FORMAT",
        hint: `use --format text, markdown, json or html, or report one host's folder (${f.dir}/hosts/<id>) as csv`,
      });
  }
}
