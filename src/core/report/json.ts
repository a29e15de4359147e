/** JSON renderer: report.json / `--format json`. The ratio table's fixed shape at the top, run facts under `run`. */
import type { RunReport } from "./model.ts";
import { ratioTableJson } from "../stats/ratio.ts";
import { costTableJson } from "./costs.ts";
import { ladderJson } from "../stats/ladder.ts";
import type { RatioTable } from "../stats/ratio-model.ts";
import { cellVerdictText, verdictWordOf } from "../model/vocabulary.ts";
import { costSummary } from "./cost-summary.ts";
import { firstScreen } from "./first-screen.ts";
import { latencyJson } from "./latency.ts";

/**
 * The ratio table's fixed shape, each cell with its verdict in the report's words: `verdictWord` (faster, slower,
 * same, unclear; null when not measured) and `verdictText` (as the report prints it, `same within ±5%`).
 */
function tableJson(t: RatioTable): object {
  const j = ratioTableJson(t) as { rows: Array<{ cells: object[] }> };
  return {
    ...j,
    rows: j.rows.map((r, i) => ({
      ...r,
      cells: r.cells.map((c, k) => {
        const cell = t.rows[i]!.cells[k]!;
        return { ...c, verdictWord: verdictWordOf(cell), verdictText: cellVerdictText(cell, t.marginPct) };
      }),
    })),
  };
}

export function reportJson(report: RunReport): object {
  const run = {
    runId: report.runId,
    scenario: report.scenarioName,
    status: report.status,
    partial: report.partial,
    planned: report.planned,
    recorded: report.recorded,
    failed: report.failed,
    skipped: report.skipped,
    retries: report.retries,
    disturbance: report.disturbance,
    startedAt: report.startedAt,
    endedAt: report.endedAt,
    host: report.host,
    wallSeconds: report.wallSeconds,
    servers: report.servers,
    configIdentity: {
      verdict: report.configIdentity.verdict,
      checked: report.configIdentity.checked,
      differing: report.configIdentity.differing,
    },
    notes: report.notes,
    cellStates: report.cellStates,
    windows: report.windows,
    costs: report.costs && report.costs.recorded ? costTableJson(report.costs) : null,
    costSummary: costSummary(report.costs),
    ...(report.replication === undefined
      ? {}
      : {
          replication: report.replication
            ? { runs: report.replication.runs, cells: Object.fromEntries(report.replication.cells) }
            : null,
        }),
    ...(report.level
      ? {
          level: {
            level: report.level.level,
            asked: report.level.asked,
            widened: report.level.widened,
            runs: report.level.runs,
            ...(report.level.runTable ? { runTable: ratioTableJson(report.level.runTable) } : {}),
          },
        }
      : {}),
  };
  const s = firstScreen(report, null);
  const answer = { title: s.title, sentences: s.sentences, legend: s.legend };
  // The latency percentiles (plain latency ratios, q over every latency reading) and the TPC-C-like cells' NOPM.
  const figures = { latency: latencyJson(report.latency), nopm: report.nopm.map(tableJson) };
  const none = { metric: null, numerator: null, denominator: null, threads: [], rows: [] };
  // A ladder: the two-server table (when the run has one) keeps the fixed shape at the top; `ladder` has one block per
  // pair, each cell with its verdict words as the table's.
  if (report.ladder)
    return {
      ...(report.table ? tableJson(report.table) : none),
      ladder: { ...ladderJson(report.ladder), pairs: report.ladder.blocks.map(tableJson) },
      ...figures,
      answer,
      run,
    };
  if (!report.table) return { ...none, ...figures, answer, run };
  return { ...tableJson(report.table), ...figures, answer, run };
}

/** The report model as JSON text (report.json). */
export function renderJson(report: RunReport): string {
  return JSON.stringify(reportJson(report), null, 2) + "\n";
}
