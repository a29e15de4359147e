/** The metric a ratio table reads: its name, which way is better, the figure it reads, its label. */
import { describe, expect, it } from "vitest";
import { InputError } from "../../../src/core/base/errors.ts";
import {
  LATENCY_PERCENTILES,
  METRICS,
  isInverted,
  labelRank,
  metricLabel,
  metricValue,
  parseMetric,
  percentileRank,
  readsHistogram,
  recordMetric,
} from "../../../src/core/stats/metric.ts";
import { onGrid } from "../../../src/core/stats/histogram.ts";
import { cellRecord, sysbench } from "../../support/record.ts";

describe("parseMetric", () => {
  it.each(METRICS)("accepts %s", (m) => expect(parseMetric(m)).toBe(m));
  it("refuses another name with an InputError naming it and the choices", () => {
    let err: unknown;
    try {
      parseMetric("qps95");
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InputError);
    expect(err).toMatchObject({
      code: "REPORT_METRIC",
      message: 'unknown metric "qps95"',
      hint: "use one of qps, tps, p95, avg, p50, p99, nopm",
    });
  });
});

describe("isInverted, readsHistogram, percentileRank", () => {
  it("latencies are inverted; rates and NOPM are not", () => {
    expect(METRICS.filter(isInverted)).toEqual(["p95", "avg", "p50", "p99"]);
  });
  it("the percentiles read the histogram, at their rank", () => {
    expect(METRICS.filter(readsHistogram)).toEqual(["p95", "p50", "p99"]);
    expect(LATENCY_PERCENTILES.map(percentileRank)).toEqual([50, 95, 99]);
    expect(percentileRank("qps")).toBeNull();
  });
});

describe("metricValue", () => {
  const m = sysbench({
    qps: 2000,
    tps: 100,
    latencyMs: { min: 1, avg: 4.5, max: 20, percentile: 99, percentileValue: 12.3, sum: 1 },
  });
  it.each([
    ["qps", 2000],
    ["tps", 100],
    ["p95", 12.3],
    ["avg", 4.5],
    ["p99", 12.3],
    ["p50", null],
    ["nopm", null],
  ] as const)("without a histogram %s reads %s", (metric, want) => expect(metricValue(m, metric)).toBe(want));
  it("is null without metrics or without a latency block", () => {
    expect(metricValue(null, "qps")).toBeNull();
    expect(metricValue(sysbench({ qps: 1 }), "p95")).toBeNull();
    expect(metricValue(sysbench({ qps: 1 }), "avg")).toBeNull();
  });
  it("with a histogram every percentile reads it, the printed one aside", () => {
    const h = sysbench({
      latencyMs: { min: 1, avg: 2, max: 9, percentile: 99, percentileValue: 8.0, sum: 1 },
      histogram: [
        [1.0, 50],
        [2.0, 45],
        [3.0, 4],
        [8.0, 1],
      ],
    });
    expect(metricValue(h, "p50")).toBe(onGrid(1.0));
    expect(metricValue(h, "p95")).toBe(onGrid(2.0));
    expect(metricValue(h, "p99")).toBe(onGrid(3.0));
    // a table that reads the printed percentile for all its records (records.ts latencySource)
    expect(metricValue(h, "p95", "printed")).toBe(8.0);
    expect(metricValue(h, "p99", "printed")).toBe(8.0);
    expect(metricValue(h, "p50", "printed")).toBeNull();
    expect(metricValue(m, "p95", "histogram")).toBeNull();
  });
});

describe("recordMetric", () => {
  it("NOPM from the record's TPC-C-like figures, the rest from its sysbench result", () => {
    const r = cellRecord({ metrics: sysbench({ qps: 5 }), tpcc: { nopm: 1234 } });
    expect(recordMetric(r, "nopm")).toBe(1234);
    expect(recordMetric(r, "qps")).toBe(5);
    expect(recordMetric(cellRecord({ metrics: sysbench({ qps: 5 }) }), "nopm")).toBeNull();
  });
});

describe("labelRank", () => {
  it("p95 names the printed rank when read from the printed percentile, its own otherwise", () => {
    expect(labelRank("p95", "printed", 99)).toBe(99);
    expect(labelRank("p95", "histogram", 99)).toBe(95);
    expect(labelRank("p99", "printed", 95)).toBe(99);
    expect(labelRank("qps", undefined, 95)).toBe(95);
  });
});

describe("metricLabel", () => {
  it("names the unit, with the percentile's rank", () => {
    expect(metricLabel("qps")).toBe("q/s");
    expect(metricLabel("tps")).toBe("t/s");
    expect(metricLabel("p95")).toBe("p95 latency");
    expect(metricLabel("p95", 99)).toBe("p99 latency");
    expect(metricLabel("avg")).toBe("avg latency");
    expect(metricLabel("p50")).toBe("p50 latency");
    expect(metricLabel("p99", 95)).toBe("p99 latency");
    expect(metricLabel("nopm")).toBe("NOPM");
  });
});
