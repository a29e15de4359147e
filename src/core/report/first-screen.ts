/**
 * What a report shows first, in every front end: one title line, the answer table (estimate, interval, verdict
 * word), one sentence per cell with a verdict, the legend, and the line on other runs when the host has no
 * history. The seeds' table sits between the title and the answer; text.ts draws it. Everything else is details.
 */
import { formatSeconds } from "../base/units.ts";
import { textTable } from "../base/text-table.ts";
import type { RatioTable } from "../stats/ratio-model.ts";
import {
  MAX_LINE,
  answerHead,
  answerLegend,
  answerRows,
  answerSentences,
  sideNamesOf,
  wrap,
  type SideNames,
} from "./answer.ts";
import { NO_LEVEL_YET, levelLine, replicationLines } from "./history.ts";
import type { RunReport } from "./model.ts";

/** `11.8.9` of `11.8.9-MariaDB-4`. */
const fullVersion = (v: string | null) => (v ? (/^\d+(?:\.\d+)*/.exec(v)?.[0] ?? v) : null);

function server(report: RunReport, id: string) {
  return report.servers.find((s) => s.id === id);
}

/** The sentences' names of the table's two sides: `MariaDB 11.8`, or the server ids when those would read alike. */
export function sideNames(report: RunReport, t: RatioTable): SideNames {
  return sideNamesOf(
    report.servers,
    { numerator: t.numerator, denominator: t.denominator },
    { numerator: t.numeratorLabel, denominator: t.denominatorLabel },
  );
}

/** `MariaDB 11.8.9 vs MySQL 9.7.4: quick, on <CPU model>, <n> CPUs, <start date and time> UTC, took 9m 12s`. */
export function titleLine(report: RunReport): string {
  const t = report.table;
  // A ladder compares every server with the base: name them all.
  const ids = t && !report.ladder ? [t.numerator, t.denominator] : report.servers.map((s) => s.id);
  const servers = ids
    .map((id) => server(report, id))
    .filter((s) => s !== undefined)
    .map((s) => [s.family, fullVersion(s.version)].filter(Boolean).join(" "))
    .join(" vs ");
  const when = `${report.startedAt.slice(0, 10)} ${report.startedAt.slice(11, 16)} UTC`;
  const took = report.wallSeconds === null ? null : `took ${formatSeconds(report.wallSeconds)}`;
  const host = report.host ? `on ${report.host.length > 50 ? `${report.host.slice(0, 49)}…` : report.host}` : null;
  return [`${servers || "sysbench run"}: ${report.scenarioName}`, host, when, took].filter(Boolean).join(", ");
}

/** The first screen's parts, for a front end to lay out. */
export interface FirstScreen {
  title: string;
  /** The partial-run warning, or null. */
  partial: string | null;
  /** The answer table: head and rows (test, threads, estimate, interval, verdict); empty without a table. */
  head: string[];
  rows: string[][];
  /** One sentence per cell with a verdict. */
  sentences: string[];
  /** At most three lines. */
  legend: string[];
  /** The sentence that no level between runs has been measured on this host, or null. */
  noHistory: string | null;
  /** Whether the verdicts are for this run or for runs on this host (`--level`); empty when not said. */
  level: string[];
  /** How much outside work disturbed the run, and what that cost the answer; null when nothing was disturbed. */
  disturbance: string | null;
}

/**
 * The first screen's sentence on outside work, when some measured cell was disturbed: how many, what happened to
 * their pairs, and how many cells were left without an interval for it (the answer's blanks need a reason).
 */
export function disturbanceLine(report: RunReport): string | null {
  const d = report.disturbance;
  if (d.disturbed === 0) return null;
  const what =
    d.bySpeed === 0
      ? "Outside work"
      : d.bySpeed === d.disturbed
        ? "A change in CPU speed"
        : "Outside work or a change in CPU speed";
  const head = `${what} disturbed ${d.disturbed} of ${d.measured} measured cells`;
  if (d.counted) return `${head}; their pairs were counted (--no-rerun-disturbed), so the intervals include it.`;
  const cells = report.table?.rows.flatMap((r) => r.cells) ?? [];
  const bare = cells.filter((c) => c.status === "ok" && (c.low === null || c.high === null)).length;
  return bare === 0
    ? `${head}; their pairs were left out of the estimates.`
    : `${head}; their pairs were left out, and ${bare} cell${bare === 1 ? " has" : "s have"} too few clean pairs ` +
        "for an interval. Run again when the machine is quieter (--details names what disturbed them).";
}

export function firstScreen(report: RunReport, partial: string | null): FirstScreen {
  const t = report.table;
  return {
    title: titleLine(report),
    partial,
    head: t ? answerHead(t) : [],
    rows: t ? answerRows(t) : [],
    sentences: t ? answerSentences(t, sideNames(report, t)) : [],
    legend: t ? answerLegend(t) : [],
    noHistory: report.replication === null ? NO_LEVEL_YET : null,
    level: levelLine(report),
    disturbance: disturbanceLine(report),
  };
}

/** The hint the first screen ends with, where the details are not shown. */
export const DETAILS_HINT =
  "More (method, cost per query, latency percentiles, notes, servers): twinbench report <results folder> --details";

/** The rule between the first screen and the details. */
export const DETAILS_RULE = `${"─".repeat(40)} details ${"─".repeat(40)}`;

/**
 * The answer as text lines, the same in the text report and the TUI's final screen: the answer table, the sentences
 * (wrapped to `width`) and the legend.
 */
export function answerBlock(t: RatioTable, names: SideNames, width = MAX_LINE): string[] {
  const lines = textTable(answerRows(t), {
    head: [answerHead(t)],
    indent: "  ",
    columns: [{}, { align: "right" }, { align: "right" }],
  });
  const sentences = answerSentences(t, names).flatMap((x) => wrap(x, width));
  if (sentences.length) lines.push("", ...sentences);
  return [...lines, "", ...answerLegend(t).flatMap((l) => wrap(l, width))];
}

/** Where a second run on this host lands, for the details: what the first screen already says left out. */
export function secondRunDetails(report: RunReport): string[] {
  const shown = new Set([NO_LEVEL_YET, ...levelLine(report)]);
  return replicationLines(report).filter((l) => !shown.has(l));
}
