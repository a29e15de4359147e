/** The metric a ratio table reads: its name, which way is better, the figure it reads, its label. */
import { describe, expect, it } from "vitest";
import { InputError } from "../../../src/core/base/errors.ts";
import { METRICS, isInverted, metricLabel, metricValue, parseMetric } from "../../../src/core/stats/metric.ts";
import { sysbench } from "../../support/record.ts";

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
      hint: "use one of qps, tps, p95, avg",
    });
  });
});

describe("isInverted", () => {
  it("latencies are inverted, rates are not", () => {
    expect(METRICS.filter(isInverted)).toEqual(["p95", "avg"]);
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
  ] as const)("%s reads %s", (metric, want) => expect(metricValue(m, metric)).toBe(want));
  it("is null without metrics or without a latency block", () => {
    expect(metricValue(null, "qps")).toBeNull();
    expect(metricValue(sysbench({ qps: 1 }), "p95")).toBeNull();
    expect(metricValue(sysbench({ qps: 1 }), "avg")).toBeNull();
  });
});

describe("metricLabel", () => {
  it("names the unit, with the printed percentile's rank", () => {
    expect(metricLabel("qps")).toBe("q/s");
    expect(metricLabel("tps")).toBe("t/s");
    expect(metricLabel("p95")).toBe("p95 latency");
    expect(metricLabel("p95", 99)).toBe("p99 latency");
    expect(metricLabel("avg")).toBe("avg latency");
  });
});
