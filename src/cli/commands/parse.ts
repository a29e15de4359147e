/**
 * `twinbench parse FILE... [--json]`: read sysbench logs (1.0.x, 0.5, 0.4) and print their figures.
 *
 * --json prints, for one file, that file's value; for several files, an array of the files' values in the
 * order given. A file's value is its one SysbenchResult object, or — for a file holding several outputs (runs
 * appended to one log, or seed 002's two 0.4 summaries) — an array of its results in file order.
 * So `parse one.log --json` is always an object when the log holds one run, and `jq '.tps'` works on it.
 * Without --json a readable summary is printed, derived figures (tps CV, stalls, error totals) included.
 *
 * An unreadable file is an InputError (exit 2); a malformed log is a TwinbenchError SYSBENCH_PARSE (exit 1)
 * whose message names the file and the line.
 */
import type { Command } from "commander";
import { InputError, TwinbenchError } from "../../core/base/errors.ts";
import { parseSysbenchFile } from "../../core/model/sysbench/parse.ts";
import { deriveFigures } from "../../core/model/sysbench/derived.ts";
import type { SysbenchResult } from "../../core/model/sysbench/result.ts";
import { buildParsedSummary, threadsInText } from "../../core/report/summary.ts";
import { renderSummaryText } from "../../core/report/summary-render.ts";
import { fixedOrDash } from "../../core/base/units.ts";

export interface ParseCliContext {
  out: (s: string) => void;
  readFile: (p: string) => Promise<string>;
}

export function registerParseCommand(program: Command, ctx: ParseCliContext): void {
  program
    .command("parse")
    .description("parse sysbench run output (1.0.x, 0.5, 0.4) and print its figures")
    .argument("<file...>", "sysbench logs (stdout and stderr merged)")
    .option("--json", "print JSON: one object per output; an array for several files or a file with several outputs")
    .option(
      "--summary",
      "the execution summaries of every output side by side, with effective concurrency and fairness",
    )
    .option(
      "--threads <n>",
      "configured threads, for logs that do not print them (sysbench 0.4); default: --num-threads=N found in the file",
    )
    .action(async (files: string[], o: { json?: boolean; summary?: boolean; threads?: string }) => {
      if (o.summary) return summaryCommand(ctx, files, { json: Boolean(o.json), threads: o.threads });
      await parseCommand(ctx, files, { json: Boolean(o.json) });
    });
}

export type ParsedFile = SysbenchResult | SysbenchResult[];

/** Read and parse every file (in order); throws on the first unreadable or malformed one. */
export async function parseFiles(
  ctx: Pick<ParseCliContext, "readFile">,
  files: string[],
  texts: string[] = [],
): Promise<SysbenchResult[][]> {
  const out: SysbenchResult[][] = [];
  for (const file of files) {
    let text: string;
    try {
      text = await ctx.readFile(file);
    } catch (e) {
      const reason = (e as NodeJS.ErrnoException).code ?? (e instanceof Error ? e.message : String(e));
      throw new InputError(`cannot read ${file}: ${reason}`, {
        code: "PARSE_FILE_UNREADABLE",
        hint: "pass paths of readable sysbench log files",
        cause: e,
      });
    }
    texts.push(text);
    try {
      out.push(parseSysbenchFile(text));
    } catch (e) {
      if (e instanceof TwinbenchError) {
        throw new TwinbenchError(`${file}: ${e.message}`, { code: e.code, hint: e.hint, details: e.details, cause: e });
      }
      throw e;
    }
  }
  return out;
}

/** The --json value: see the file comment. */
export function jsonValue(perFile: SysbenchResult[][]): ParsedFile | ParsedFile[] {
  const values: ParsedFile[] = perFile.map((rs) => (rs.length === 1 ? rs[0] : rs));
  return values.length === 1 ? values[0] : values;
}

export async function parseCommand(ctx: ParseCliContext, files: string[], o: { json: boolean }): Promise<void> {
  const perFile = await parseFiles(ctx, files);
  if (o.json) {
    ctx.out(JSON.stringify(jsonValue(perFile), null, 2));
    return;
  }
  const blocks: string[] = [];
  perFile.forEach((rs, i) => {
    rs.forEach((r, j) => blocks.push(formatSummary(rs.length > 1 ? `${files[i]} #${j + 1}` : files[i], r)));
  });
  ctx.out(blocks.join("\n\n"));
}

/**
 * `parse --summary`: every output of every file is one column (#1, #2, … in order); with two, A = #1 and B = #2.
 * Threads come from the log, else --threads, else a `--num-threads=N` / `--threads=N` in the file's text (seed 002
 * quotes its command line), and the legend says which.
 */
async function summaryCommand(
  ctx: ParseCliContext,
  files: string[],
  o: { json: boolean; threads?: string },
): Promise<void> {
  let given: number | null = null;
  if (o.threads !== undefined) {
    given = Number(o.threads);
    if (!Number.isInteger(given) || given <= 0)
      throw new InputError(`--threads expects a positive integer, got "${o.threads}"`, {
        code: "PARSE_THREADS",
        hint: "e.g. --threads 300",
      });
  }
  const texts: string[] = [];
  const perFile = await parseFiles(ctx, files, texts);
  const outputs: Array<{ label: string; result: SysbenchResult; threads: number | null }> = [];
  const legend: string[] = [];
  perFile.forEach((rs, i) => {
    const found = threadsInText(texts[i]!);
    rs.forEach((r, j) => {
      const label = `#${outputs.length + 1}`;
      const threads = r.threads ?? given ?? found;
      const from =
        r.threads !== null
          ? "as printed"
          : given !== null
            ? "from --threads"
            : found !== null
              ? `from the command line in the file`
              : "unknown";
      outputs.push({ label, result: r, threads });
      legend.push(
        `${label} = ${files[i]}${rs.length > 1 ? `, output ${j + 1} of ${rs.length}` : ""} (sysbench ${r.version ?? "?"}, ${r.status}; threads ${threads ?? "?"} ${from})`,
      );
    });
  });
  const s = buildParsedSummary(outputs, legend);
  ctx.out(o.json ? JSON.stringify(s, null, 2) : renderSummaryText(s).trimEnd());
}

const n0 = (n: number | null | undefined): string => (n === null || n === undefined ? "-" : String(n));

/** A readable summary of one result. */
export function formatSummary(name: string, r: SysbenchResult): string {
  const lines: string[] = [];
  const head = [`sysbench ${r.version ?? "?"}`, r.threads === null ? null : `${r.threads} threads`, r.status]
    .filter((x) => x !== null)
    .join(", ");
  lines.push(`${name}: ${head}`);
  if (r.status === "ok") {
    lines.push(
      `  tps ${fixedOrDash(r.tps)}  qps ${fixedOrDash(r.qps)}  transactions ${n0(r.transactions)}  events ${n0(r.events)}  time ${fixedOrDash(r.totalTime, 4)} s`,
    );
    if (r.totalQueries !== null) {
      lines.push(
        `  queries r/w/o/total ${n0(r.reads)}/${n0(r.writes)}/${n0(r.other)}/${n0(r.totalQueries)}  ignored errors ${n0(r.ignoredErrors)}  reconnects ${n0(r.reconnects)}`,
      );
    }
    const l = r.latencyMs;
    const pct = l.percentile === null ? "percentile disabled" : `p${l.percentile} ${fixedOrDash(l.percentileValue)}`;
    lines.push(
      `  latency ms: min ${fixedOrDash(l.min)}  avg ${fixedOrDash(l.avg)}  ${pct}  max ${fixedOrDash(l.max)}  sum ${fixedOrDash(l.sum)}`,
    );
    const fa = r.fairness;
    if (fa.eventsAvg !== null) {
      lines.push(
        `  fairness: events ${fixedOrDash(fa.eventsAvg, 4)}/${fixedOrDash(fa.eventsStddev)}  execution ${fixedOrDash(fa.execAvg, 4)}/${fixedOrDash(fa.execStddev)} s`,
      );
    }
    if (r.unfinishedTransactions !== null)
      lines.push(`  unfinished transactions on forced shutdown: ${r.unfinishedTransactions}`);
    if (r.histogram !== null) lines.push(`  histogram: ${r.histogram.length} rows`);
  }
  if (r.legacy) {
    const lg = r.legacy;
    lines.push(
      `  legacy: read/write requests ${n0(lg.readWriteRequests as number | null)} (${fixedOrDash(lg.readWriteRequestsPerSec as number | null)}/s)  other operations ${n0(lg.otherOperations as number | null)}  deadlocks ${n0(lg.deadlocks as number | null)}`,
    );
  }
  const samples = r.intervals.length > 0 ? r.intervals.length : (r.legacyIntervals?.length ?? 0);
  if (samples > 0) {
    const d = deriveFigures(r);
    lines.push(
      `  intervals ${samples}: tps CV ${d.tpsCv === null ? "-" : (d.tpsCv * 100).toFixed(1) + "%"}  stalls ${d.stalls}  errors ≈${fixedOrDash(d.errorsTotal)}  reconnects ≈${fixedOrDash(d.reconnectsTotal)}`,
    );
  }
  for (const m of r.fatal) lines.push(`  FATAL: ${m.length > 300 ? m.slice(0, 300) + "…" : m}`);
  for (const m of r.alerts) lines.push(`  ALERT: ${m}`);
  for (const m of r.warnings) lines.push(`  WARNING: ${m}`);
  return lines.join("\n");
}
