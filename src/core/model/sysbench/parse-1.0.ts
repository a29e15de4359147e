/**
 * sysbench 1.0.x output (as sysbench 1.0.20 prints it) → SysbenchResult. The lines are read by scan.ts.
 */
import type { SysbenchResult } from "./result.ts";
import {
  countOf,
  emptyFairness,
  emptyLatency,
  numOf,
  intOf,
  rateOf,
  statementCounts,
  statusOf,
} from "./draft-values.ts";
import { SysbenchParseError } from "./error.ts";
import type { Draft } from "./scan.ts";

export function toResult10(d: Draft): SysbenchResult {
  const status = statusOf(d, ["general", "latency", "fairness"]);
  const st = d.blocks.stats?.values;
  if (st) {
    for (const k of ["queries", "ignoredErrors", "reconnects"]) {
      if (!st.has(k)) {
        throw new SysbenchParseError(d.blocks.stats!.line, `the SQL statistics block has no '${k}' line`);
      }
    }
  }
  const gen = d.blocks.general?.values;
  const lat = d.blocks.latency?.values;
  const fair = d.blocks.fairness?.values;
  if (fair && (!fair.has("events") || !fair.has("execTime"))) {
    throw new SysbenchParseError(
      d.blocks.fairness!.line,
      "the Threads fairness block lacks 'events' or 'execution time'",
    );
  }
  const latencyMs = emptyLatency();
  if (lat) {
    const p = lat.get("percentile");
    Object.assign(latencyMs, {
      min: numOf(lat.get("min")),
      avg: numOf(lat.get("avg")),
      max: numOf(lat.get("max")),
      sum: numOf(lat.get("sum")),
      percentile: p?.kind === "percentile" ? p.p : null,
      percentileValue: p?.kind === "percentile" ? p.n : null,
    });
  }
  const fairness = emptyFairness();
  const ev = fair?.get("events");
  const ex = fair?.get("execTime");
  if (ev?.kind === "pair" && ex?.kind === "pair") {
    Object.assign(fairness, { eventsAvg: ev.a, eventsStddev: ev.b, execAvg: ex.a, execStddev: ex.b });
  }
  return {
    status,
    fatal: d.fatal,
    alerts: d.alerts,
    warnings: d.warnings,
    version: d.header?.version ?? null,
    threads: d.threads,
    ...statementCounts(st),
    queries: countOf(st?.get("queries")),
    qps: rateOf(st?.get("queries")),
    ignoredErrors: countOf(st?.get("ignoredErrors")),
    reconnects: countOf(st?.get("reconnects")),
    ignoredErrorsPerSec: rateOf(st?.get("ignoredErrors")),
    reconnectsPerSec: rateOf(st?.get("reconnects")),
    reportInterval: d.reportInterval,
    totalTime: numOf(gen?.get("totalTime")),
    events: intOf(gen?.get("events")),
    latencyMs,
    fairness,
    intervals: d.intervals,
    histogram: d.histogram,
    unfinishedTransactions: d.unfinished,
  };
}
