/**
 * Reading a scanned draft into result fields: typed accessors for block values, the parts both generations read
 * the same way, and the check that a cumulative report is whole.
 */
import type { Fairness, LatencyMs } from "./result.ts";
import { SysbenchParseError } from "./error.ts";
import type { Slot, Value } from "./blocks.ts";
import type { Draft } from "./scan.ts";

export const intOf = (v: Value | undefined): number | null => (v?.kind === "int" ? v.n : null);
export const numOf = (v: Value | undefined): number | null => (v?.kind === "number" ? v.n : null);
export const countOf = (v: Value | undefined): number | null => (v?.kind === "countRate" ? v.n : null);
export const rateOf = (v: Value | undefined): number | null => (v?.kind === "countRate" ? v.perSec : null);

/** The `queries performed` counts and transactions, named and read the same way by 1.0 and 0.4/0.5 logs. */
export function statementCounts(st: Map<string, Value> | undefined) {
  return {
    reads: intOf(st?.get("read")),
    writes: intOf(st?.get("write")),
    other: intOf(st?.get("other")),
    totalQueries: intOf(st?.get("total")),
    transactions: countOf(st?.get("transactions")),
    tps: rateOf(st?.get("transactions")),
  };
}

export function emptyLatency(): LatencyMs {
  return { min: null, avg: null, max: null, sum: null, percentile: null, percentileValue: null };
}
export function emptyFairness(): Fairness {
  return { eventsAvg: null, eventsStddev: null, execAvg: null, execStddev: null };
}

/** Status, and the checks that a report is whole: shared by both generations. */
export function statusOf(d: Draft, reportSlots: Slot[]): "ok" | "failed" {
  const present = reportSlots.filter((s) => d.blocks[s] !== undefined);
  const names: Record<Slot, string> = {
    stats: "SQL statistics",
    general: "General statistics",
    latency: "Latency (ms)",
    fairness: "Threads fairness",
  };
  const anyReport = d.blocks.stats !== undefined || present.length > 0 || d.histogram !== null;
  // No report at all: the run failed (FATAL lines say why) or sysbench died without a word (a crash, SIGKILL):
  // also "failed", with whatever intervals came before.
  if (!anyReport) return "failed";
  const missing = reportSlots.filter((s) => d.blocks[s] === undefined);
  if (missing.length > 0) {
    const first =
      present.length > 0 ? d.blocks[present[0]]!.line : (d.blocks.stats?.line ?? d.histogramLine ?? d.lastLine);
    throw new SysbenchParseError(
      first,
      `incomplete cumulative report: no ${missing.map((s) => `'${names[s]}'`).join(", ")} block (truncated log?)`,
    );
  }
  return "ok";
}
