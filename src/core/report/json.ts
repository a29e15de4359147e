/** JSON renderer: report.json / `--format json`. The ratio table's fixed shape at the top, run facts under `run`. */
import type { RunReport } from "./model.ts";
import { ratioTableJson } from "../stats/ratio.ts";
import { costTableJson } from "./costs.ts";
import { ladderJson } from "../stats/ladder.ts";

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
  const none = { metric: null, numerator: null, denominator: null, threads: [], rows: [] };
  // A ladder: the two-server table (when the run has one) keeps the fixed shape at the top; `ladder` has one block per pair.
  if (report.ladder)
    return { ...(report.table ? ratioTableJson(report.table) : none), ladder: ladderJson(report.ladder), run };
  if (!report.table) return { ...none, run };
  return { ...ratioTableJson(report.table), run };
}

/** The report model as JSON text (report.json). */
export function renderJson(report: RunReport): string {
  return JSON.stringify(reportJson(report), null, 2) + "\n";
}
