/** JSON renderer: report.json / `--format json`. The ratio table's fixed shape at the top, run facts under `run`. */
import type { RunReport } from "./model.ts";
import { ratioTableJson } from "./ratio.ts";
import { costTableJson } from "./costs.ts";

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
    // A ladder (more than one compared pair): one block per pair, each in the top-level table's shape. Absent for a
    // two-server run, whose JSON stays as it was.
    ...(report.pairs.length > 1 ? { pairs: report.pairs.map(ratioTableJson) } : {}),
  };
  if (!report.table) return { metric: null, numerator: null, denominator: null, threads: [], rows: [], run };
  return { ...ratioTableJson(report.table), run };
}

/** The report model as JSON text (report.json). */
export function renderJson(report: RunReport): string {
  return JSON.stringify(reportJson(report), null, 2) + "\n";
}
