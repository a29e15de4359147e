/**
 * sysbench 0.4 / 0.5 output → SysbenchResult. The lines are read by the shared scanner in scan.ts; this file
 * decides what is legacy and how its figures map.
 *
 * Mapping (same name only where the meaning is the same as in 1.0):
 * - `queries performed: read/write/other/total` → reads, writes, other, totalQueries.
 * - `transactions: N (X per sec.)` → transactions, tps.
 * - `ignored errors:` / `reconnects:` (0.5) → ignoredErrors(+PerSec), reconnects(+PerSec); absent in 0.4 → null.
 * - `queries`, `qps` → **null**. 1.0's `queries: N (X per sec.)` counts every statement, BEGIN/COMMIT included.
 *   0.4's `read/write requests: N (X per sec.)` counts reads + writes only (seed 002: 1000000 = read 1000000 +
 *   write 0, while total is 1040000), so it is not the same figure; it goes to legacy.readWriteRequests(PerSec),
 *   and `other operations: N (X per sec.)` to legacy.otherOperations(PerSec). `deadlocks:` → legacy.deadlocks(PerSec).
 * - `Test execution summary` (0.4) / `General statistics` (0.5): `total time` → totalTime (s), `total number of
 *   events` → events, `total time taken by event execution` (s) → latencyMs.sum (1.0's `sum` is the same sum of
 *   event times, in ms).
 * - `per-request statistics` (0.4) / `response time` (0.5): min/avg/max and `approx.  95 percentile`, printed in
 *   s (old 0.4) or ms → latencyMs.{min,avg,max,percentile,percentileValue} in ms. Seconds become milliseconds by
 *   moving the decimal point, so 13.5697 s is exactly 13569.7. legacy.latencyUnit records the unit printed.
 * - `Threads fairness`: `events (avg/stddev)` / `execution time (avg/stddev)` (0.4.10+, 0.5) → fairness.*.
 *   Early 0.4 prints `distribution: A/B` and `execution: A/B` instead; these are not avg/stddev (seed 002:
 *   300 threads, 20000 events, yet "distribution: 34.72/74.56"), so fairness.* stay null and the four numbers go
 *   to legacy.fairnessDistributionA/B and legacy.fairnessExecutionA/B, as printed.
 * - version: the header's (`sysbench 0.4.12:  multi-threaded system evaluation benchmark` → "0.4.12"); without a
 *   header it is inferred from the format: "0.4" (`Test execution summary`) or "0.5" (`General statistics` with
 *   `response time`). legacy.versionSource says which ("header" | "format").
 * - 0.5 interval lines → legacyIntervals (they have no qps and no other/s). 0.4 prints none.
 * - histogram, unfinishedTransactions, reportInterval's figures that 0.4/0.5 do not print → null / [].
 */
import type { SysbenchResult } from "./result.ts";
import { countOf, emptyFairness, emptyLatency, rateOf, statementCounts, statusOf } from "./draft-values.ts";
import { SysbenchParseError } from "./error.ts";
import type { Value } from "./blocks.ts";
import type { Draft } from "./scan.ts";

/** True when the output is in the 0.4/0.5 format (by its header or by a line only those versions print). */
export function isLegacyDraft(d: Draft): boolean {
  if (d.header?.form === "legacy") return true;
  if (d.legacyMarker) return true;
  const st = d.blocks.stats?.values;
  if (st && (st.has("deadlocks") || st.has("readWriteRequests") || st.has("otherOperations"))) return true;
  const gen = d.blocks.general?.values;
  if (gen && (gen.has("eventExecution") || gen.has("perRequest"))) return true;
  const fair = d.blocks.fairness?.values;
  if (fair && (fair.has("distribution") || fair.has("execution"))) return true;
  return d.legacyIntervals.length > 0;
}

const intOf = (v: Value | undefined): number | null => (v?.kind === "int" ? v.n : null);

export function toLegacyResult(d: Draft): SysbenchResult {
  if (d.intervals.length > 0) {
    throw new SysbenchParseError(d.startLine, "the output mixes 1.0 interval lines with a 0.4/0.5 report");
  }
  if (d.blocks.latency !== undefined) {
    throw new SysbenchParseError(d.blocks.latency.line, "a 1.0 'Latency (ms)' block in a 0.4/0.5 output");
  }
  const status = statusOf(d, ["general", "fairness"]);
  const st = d.blocks.stats?.values;
  const gen = d.blocks.general?.values;

  if (st && (!st.has("readWriteRequests") || !st.has("otherOperations"))) {
    throw new SysbenchParseError(
      d.blocks.stats!.line,
      "the 0.4/0.5 statistics block lacks 'read/write requests' or 'other operations'",
    );
  }
  if (st?.has("queries")) {
    throw new SysbenchParseError(d.blocks.stats!.line, "a 1.0 'queries:' line in a 0.4/0.5 statistics block");
  }

  const { latencyMs, latencyUnit } = legacyLatency(d);
  const { fairness, legacyFair } = legacyFairness(d);
  const { version, versionSource } = legacyVersion(d);

  return {
    status,
    fatal: d.fatal,
    alerts: d.alerts,
    warnings: d.warnings,
    version,
    threads: d.threads,
    ...statementCounts(st),
    queries: null,
    qps: null,
    ignoredErrors: countOf(st?.get("ignoredErrors")),
    reconnects: countOf(st?.get("reconnects")),
    ignoredErrorsPerSec: rateOf(st?.get("ignoredErrors")),
    reconnectsPerSec: rateOf(st?.get("reconnects")),
    reportInterval: d.reportInterval,
    totalTime: gen?.get("totalTime")?.kind === "number" ? (gen.get("totalTime") as { n: number | null }).n : null,
    events: intOf(gen?.get("events")),
    latencyMs,
    fairness,
    intervals: [],
    histogram: null,
    unfinishedTransactions: d.unfinished,
    legacy: {
      versionSource,
      deadlocks: countOf(st?.get("deadlocks")),
      deadlocksPerSec: rateOf(st?.get("deadlocks")),
      readWriteRequests: countOf(st?.get("readWriteRequests")),
      readWriteRequestsPerSec: rateOf(st?.get("readWriteRequests")),
      otherOperations: countOf(st?.get("otherOperations")),
      otherOperationsPerSec: rateOf(st?.get("otherOperations")),
      latencyUnit,
      ...legacyFair,
    },
    legacyIntervals: d.legacyIntervals,
  };
}

/** The per-request statistics of the general block: latency in ms, and the units the output used. */
function legacyLatency(d: Draft): { latencyMs: SysbenchResult["latencyMs"]; latencyUnit: string | null } {
  const gen = d.blocks.general?.values;
  const latencyMs = emptyLatency();
  let latencyUnit: string | null = null;
  if (gen) {
    const hasPer = gen.has("perRequest");
    const parts = ["min", "avg", "max", "approx"].filter((k) => gen.has(k));
    if (hasPer ? parts.length !== 4 : parts.length !== 0) {
      throw new SysbenchParseError(
        d.blocks.general!.line,
        "per-request statistics need all of min, avg, max and 'approx. NN percentile', after 'per-request statistics:'",
      );
    }
    const ms = (k: string): number | null => {
      const v = gen.get(k);
      if (v?.kind === "duration") return v.ms;
      if (v?.kind === "percentile") return v.n;
      return null;
    };
    const units = new Set(
      ["min", "avg", "max"].map((k) => gen.get(k)).map((v) => (v?.kind === "duration" ? v.unit : null)),
    );
    if (hasPer) {
      if (units.has("")) {
        throw new SysbenchParseError(d.blocks.general!.line, "per-request statistics without a unit (s or ms)");
      }
      latencyUnit = [...units].join(",");
    }
    const approx = gen.get("approx");
    Object.assign(latencyMs, {
      min: ms("min"),
      avg: ms("avg"),
      max: ms("max"),
      sum: ms("eventExecution"),
      percentile: approx?.kind === "percentile" ? approx.p : null,
      percentileValue: approx?.kind === "percentile" ? approx.n : null,
    });
  }

  return { latencyMs, latencyUnit };
}

/** Threads fairness: the 1.0-style events/execution time pairs, or 0.4's distribution and execution figures. */
function legacyFairness(d: Draft): { fairness: SysbenchResult["fairness"]; legacyFair: Record<string, number | null> } {
  const fair = d.blocks.fairness?.values;
  const fairness = emptyFairness();
  const legacyFair: Record<string, number | null> = {
    fairnessDistributionA: null,
    fairnessDistributionB: null,
    fairnessExecutionA: null,
    fairnessExecutionB: null,
  };
  if (fair) {
    const ev = fair.get("events");
    const ex = fair.get("execTime");
    const di = fair.get("distribution");
    const xe = fair.get("execution");
    if (ev?.kind === "pair" && ex?.kind === "pair" && !di && !xe) {
      Object.assign(fairness, { eventsAvg: ev.a, eventsStddev: ev.b, execAvg: ex.a, execStddev: ex.b });
    } else if (di?.kind === "pair" && xe?.kind === "pair" && !ev && !ex) {
      Object.assign(legacyFair, {
        fairnessDistributionA: di.a,
        fairnessDistributionB: di.b,
        fairnessExecutionA: xe.a,
        fairnessExecutionB: xe.b,
      });
    } else {
      throw new SysbenchParseError(
        d.blocks.fairness!.line,
        "Threads fairness needs either 'events (avg/stddev)' + 'execution time (avg/stddev)' or 'distribution' + 'execution'",
      );
    }
  }

  return { fairness, legacyFair };
}

/** The sysbench version: from the header, else guessed from the report's format (0.4 or 0.5). */
function legacyVersion(d: Draft): { version: string | null; versionSource: string | null } {
  let version: string | null = d.header?.version ?? null;
  let versionSource: string | null = version === null ? null : "header";
  if (version === null) {
    const generalHeader = d.blocks.general?.header;
    if (generalHeader === "Test execution summary:") version = "0.4";
    else if (generalHeader === "General statistics:") version = "0.5";
    else if (d.legacyIntervals.length > 0) version = "0.5";
    versionSource = version === null ? null : "format";
  }

  return { version, versionSource };
}
