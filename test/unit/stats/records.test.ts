/** Which records of a cell count and what they read. */
import { describe, expect, it } from "vitest";
import type { RunManifest } from "../../../src/core/model/results.ts";
import {
  adaptiveStops,
  groupByCell,
  latencySource,
  measureRecords,
  measureRuns,
  repeatValues,
  sideStatus,
  usableValue,
} from "../../../src/core/stats/records.ts";
import { cellRecord, sysbench } from "../../support/record.ts";

const LAT = { min: null, avg: null, max: null, sum: null, percentile: 95, percentileValue: 2.5 };
const ok = (qps: number, over = {}) => cellRecord({ metrics: sysbench({ qps, tps: qps / 20 }), ...over });

describe("measureRecords", () => {
  it("leaves out warm-up records and keeps the last attempt of each key, per host", () => {
    const first = ok(100, { repeat: 1, raw: "first" });
    const retry = ok(110, { repeat: 1, raw: "retry" });
    const warm = ok(50, { repeat: 1, phase: "warmup" });
    const other = ok(120, { repeat: 1, host: "h2" });
    const got = measureRecords([first, warm, ok(90, { repeat: 2 }), retry, other]);
    expect(got.map((r) => [r.repeat, r.raw, r.host ?? ""])).toEqual([
      [2, "", ""],
      [1, "retry", ""],
      [1, "", "h2"],
    ]);
    expect(measureRuns([[first, retry], [warm]]).map((rs) => rs.map((r) => r.raw))).toEqual([["retry"], []]);
  });
});

describe("usableValue", () => {
  it("a measured positive figure", () => {
    expect(usableValue(ok(2000), "qps")).toBe(2000);
    expect(usableValue(ok(2000), "tps")).toBe(100);
  });
  it("null for a failed record, failed metrics, no metrics, zero or a missing figure", () => {
    expect(usableValue(ok(2000, { status: "failed" }), "qps")).toBeNull();
    expect(usableValue(cellRecord({ metrics: { ...sysbench({ qps: 5 }), status: "failed" } }), "qps")).toBeNull();
    expect(usableValue(cellRecord(), "qps")).toBeNull();
    expect(usableValue(ok(0), "qps")).toBeNull();
    expect(usableValue(ok(2000), "p95")).toBeNull();
  });
  it("the trimmed rates stand for q/s and t/s when the record has them, not for latencies", () => {
    const r = cellRecord({
      metrics: sysbench({ qps: 2000, tps: 100, latencyMs: { avg: 3 } as never }),
      trimmed: { seconds: 2, samples: 8, qps: 2100, tps: 105 },
    });
    expect(usableValue(r, "qps")).toBe(2100);
    expect(usableValue(r, "tps")).toBe(105);
    expect(usableValue(r, "avg")).toBe(3);
  });
});

describe("sideStatus", () => {
  it("ok when any record is usable, else failed, skipped or missing in that order", () => {
    expect(sideStatus([cellRecord({ status: "failed" }), ok(1)], "qps")).toBe("ok");
    expect(sideStatus([cellRecord({ status: "skipped" }), cellRecord({ status: "failed" })], "qps")).toBe("failed");
    expect(sideStatus([cellRecord({ metrics: { ...sysbench(), status: "failed" } })], "qps")).toBe("failed");
    expect(sideStatus([cellRecord({ status: "skipped" })], "qps")).toBe("skipped");
    expect(sideStatus([], "qps")).toBe("missing");
    expect(sideStatus([cellRecord()], "qps")).toBe("missing");
  });
});

describe("groupByCell and repeatValues", () => {
  it("groups by test and threads, and puts each repeat's figure at its index", () => {
    const rs = [
      ok(10, { repeat: 1 }),
      ok(30, { repeat: 3 }),
      ok(99, { threads: 4, repeat: 1 }),
      cellRecord({ repeat: 2, status: "failed" }),
    ];
    const g = groupByCell(rs);
    expect([...g.keys()]).toEqual(["oltp_read_only|1", "oltp_read_only|4"]);
    expect(repeatValues(g.get("oltp_read_only|1")!, "qps", 4)).toEqual([10, null, 30, null]);
  });
});

describe("adaptiveStops", () => {
  it("how each cell of an adaptive run stopped; open when it had not; empty for a fixed count", () => {
    const m = {
      adaptive: {
        cells: [
          { test: "oltp_read_only", threads: 1, done: "precision" },
          { test: "oltp_read_only", threads: 4 },
        ],
      },
    } as unknown as RunManifest;
    expect([...adaptiveStops(m)]).toEqual([
      ["oltp_read_only|1", "precision"],
      ["oltp_read_only|4", "open"],
    ]);
    expect(adaptiveStops({} as RunManifest).size).toBe(0);
  });
});

describe("latencySource", () => {
  const hist = (repeat: number) =>
    cellRecord({ repeat, metrics: sysbench({ latencyMs: LAT, histogram: [[1.5, 10]] }) });
  const plain = (repeat: number) => cellRecord({ repeat, metrics: sysbench({ latencyMs: LAT }) });
  it("the histograms when every measured record has one, else the printed percentile for all", () => {
    expect(latencySource([hist(1), hist(2)], "p99")).toBe("histogram");
    expect(latencySource([hist(1), plain(2)], "p95")).toBe("printed");
    expect(latencySource([], "p50")).toBe("printed");
    expect(latencySource([hist(1)], "qps")).toBeUndefined();
  });
  it("warm-ups and failed records do not count", () => {
    const warm = cellRecord({ phase: "warmup", metrics: sysbench({ latencyMs: LAT }) });
    const failed = cellRecord({ repeat: 2, status: "failed", metrics: null });
    expect(latencySource([hist(1), warm, failed], "p50")).toBe("histogram");
  });
  it("a table of mixed records reads one source: the printed p95 of every repeat", () => {
    const rs = [hist(1), plain(2)];
    expect(repeatValues(rs, "p95", 2, latencySource(rs, "p95"))).toEqual([2.5, 2.5]);
    expect(repeatValues(rs, "p50", 2, latencySource(rs, "p50"))).toEqual([null, null]);
  });
});
