/**
 * The one CellRecord builder of the unit tests: a measured, successful record of server a, oltp_read_only, 1 thread,
 * repeat 1, with no metrics; each test overrides what it reads. The key follows the plan's
 * `server/test/threads/repeat` unless given. `sysbench()` builds the metrics from the figures a test needs.
 */
import type { CellRecord } from "../../src/core/model/results.ts";
import type { IntervalSample, SysbenchResult } from "../../src/core/model/sysbench/result.ts";

/** A record with `over` applied; `key` defaults to `server/test/threads/repeat` of the result. */
export function cellRecord(over: Partial<CellRecord> = {}): CellRecord {
  const r: CellRecord = {
    key: "",
    server: "a",
    test: "oltp_read_only",
    threads: 1,
    repeat: 1,
    phase: "measure",
    status: "ok",
    metrics: null,
    raw: "",
    startedAt: "",
    endedAt: "",
    ...over,
  };
  if (over.key === undefined) r.key = `${r.server}/${r.test}/${r.threads}/${r.repeat}`;
  return r;
}

/**
 * sysbench metrics of a successful run with only the given figures (the rest absent: the code under test must not
 * read them); `intervals` may be given as per-second q/s, or as samples with only the fields that matter.
 */
export function sysbench(
  figures: Omit<Partial<SysbenchResult>, "intervals"> & { intervals?: Array<Partial<IntervalSample>> | number[] } = {},
): SysbenchResult {
  const { intervals, ...rest } = figures;
  return {
    status: "ok",
    ...rest,
    ...(intervals ? { intervals: intervals.map((x, i) => (typeof x === "number" ? { t: i + 1, qps: x } : x)) } : {}),
  } as SysbenchResult;
}
