/**
 * Plain progress lines for non-terminal output (and --no-tui): one line per phase change and per cell.
 * Intervals are not printed (they would flood logs); --json-events carries them.
 */
import type { RunEvent } from "../core/model/events.ts";
import { roundLine } from "../core/plan/adaptive.ts";
import { calibrationUpdatedLine, forecastLine } from "../core/report/forecast.ts";
import { fixedOrDash } from "../core/base/units.ts";

function shorten(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max - 1)}…`;
}

export function plainLine(e: RunEvent): string | undefined {
  switch (e.type) {
    case "plan-ready":
      return `plan: ${e.scenario}: ${e.cells.length} cells, estimated ${Math.round(e.estimateSeconds)} s; servers ${e.servers.map((s) => `${s.id}=${s.image}`).join(", ")}; storage ${e.storage}; transport ${e.transport}; results ${e.dir}`;
    case "image-progress":
      return e.line === undefined ? `image ${e.image}: ${e.step}` : undefined;
    case "progress":
      return `  ${e.phase} ${e.subject}: ${e.seconds} s${e.detail ? `: ${shorten(e.detail, 140)}` : ""}`;
    case "image-ready":
      return `image ${e.image}: ready (${e.tag})`;
    case "server-starting":
      return `server ${e.server}: starting (${e.image})`;
    case "server-ready":
      return `server ${e.server}: ready in ${e.seconds.toFixed(1)} s, ${e.version}`;
    case "server-failed":
      return [`server ${e.server}: FAILED: ${e.message}`, ...e.logTail.map((l) => `  ${l}`)].join("\n");
    case "server-restarted":
      return `server ${e.server}: restarted (${e.reason})`;
    case "config-identity":
      return e.differences === 0
        ? `config identity: ok (${e.rows.length} must-match variables equal)`
        : `config identity: ${e.differences} difference(s)`;
    case "phase":
      if (e.phase === "measure" || e.phase === "warmup") return undefined; // cell-started covers these
      return `phase ${e.phase}${e.server ? ` ${e.server}` : ""}${e.test ? ` ${e.test}` : ""}${e.detail ? `: ${e.detail}` : ""}`;
    case "cell-started":
      return `${e.phase === "warmup" ? "warm-up" : `cell ${e.cell.index + 1}`} ${e.cell.server} ${e.cell.test} threads=${e.cell.threads}${e.phase === "measure" ? ` repeat=${e.cell.repeat}` : ""}${e.seconds ? ` (${e.seconds} s)` : ""}`;
    case "interval":
      return undefined;
    case "cell-finished": {
      const m = e.record.metrics;
      return `  ok: qps ${fixedOrDash(m?.qps)} tps ${fixedOrDash(m?.tps)} p${m?.latencyMs.percentile ?? "-"} ${fixedOrDash(m?.latencyMs.percentileValue)} ms`;
    }
    case "cell-failed":
      return `  ${e.record.status}: ${e.cell.key}: ${e.record.error ?? "unknown error"}${e.record.errorCode ? ` [${e.record.errorCode}]` : ""}${e.retry ? ` (retrying: attempt ${e.retry})` : ""}${e.record.hint ? `\n    hint: ${e.record.hint}` : ""}`;
    case "round-finished":
      return roundLine(e);
    case "forecast":
      return e.forecast ? forecastLine(e.forecast) : `forecast: ${e.note ?? "none"}`;
    case "calibration-updated":
      return calibrationUpdatedLine(e);
    case "second-run":
      return undefined; // the report printed at the end holds the same sentences
    case "warning":
      return `warning: ${e.message}`;
    case "cancelling":
      return `cancelling: ${e.reason}; cleaning up...`;
    case "run-finished":
      return `run ${e.status}: ${e.cellsOk} cells ok, ${e.cellsFailed} failed; results in ${e.dir}${e.message ? ` (${e.message})` : ""}`;
  }
}
