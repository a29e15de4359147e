/**
 * Latency percentiles from sysbench's printed histogram: the bucket grid, a printed value put back on it, the
 * percentile read as sysbench reads its own (checked against every recorded log that prints both), and the
 * resolution of a ratio of two percentiles.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseSysbench } from "../../../src/core/model/sysbench/parse.ts";
import {
  BUCKET_LOG_WIDTH,
  bucketIndex,
  bucketValue,
  histogramPercentile,
  narrowerThanBucket,
  onGrid,
} from "../../../src/core/stats/histogram.ts";

const root = join(import.meta.dirname, "../../fixtures/sysbench/1.0");
const withBoth = readdirSync(root)
  .filter((n) => n.endsWith(".log"))
  .sort()
  .map((name) => ({ name, r: parseSysbench(readFileSync(join(root, name), "utf8")) }))
  .filter(({ r }) => r.histogram?.length && r.latencyMs.percentile !== null && r.latencyMs.percentile > 0);

describe("the bucket grid", () => {
  it("1024 buckets from 0.001 ms to 100 000 ms, about 1.8% apart", () => {
    expect(BUCKET_LOG_WIDTH).toBeCloseTo(Math.log(1e8) / 1023, 12);
    expect(Math.exp(BUCKET_LOG_WIDTH) - 1).toBeCloseTo(0.01817, 4);
    expect(bucketValue(0)).toBeCloseTo(0.001, 12);
    expect(bucketValue(1023)).toBeCloseTo(100_000, 6);
  });

  it("a latency goes to its nearest grid point, clamped at the ends", () => {
    for (const ms of [0.0123, 0.5, 1, 2.5, 77.7, 9999]) {
      const v = bucketValue(bucketIndex(ms));
      expect(Math.abs(Math.log(v / ms))).toBeLessThanOrEqual(BUCKET_LOG_WIDTH / 2 + 1e-12);
    }
    expect(bucketIndex(1e-9)).toBe(0);
    expect(bucketIndex(1e9)).toBe(1023);
  });

  it("a printed value goes back to the grid value it was printed from, when three decimals tell them apart", () => {
    const i = bucketIndex(0.2);
    expect(onGrid(Number(bucketValue(i).toFixed(3)))).toBe(bucketValue(i));
    // 0.2055 prints from no grid value: kept as printed
    expect(onGrid(0.2055)).toBe(0.2055);
  });
});

describe("histogramPercentile", () => {
  it("the first bucket whose running count reaches round(events · p / 100)", () => {
    const rows: Array<[number, number]> = [
      [1, 50],
      [2, 45],
      [3, 4],
      [4, 1],
    ];
    expect(histogramPercentile(rows, 50)).toBe(onGrid(1));
    expect(histogramPercentile(rows, 51)).toBe(onGrid(2));
    expect(histogramPercentile(rows, 95)).toBe(onGrid(2));
    expect(histogramPercentile(rows, 99)).toBe(onGrid(3));
    expect(histogramPercentile(rows, 100)).toBe(onGrid(4));
  });

  it("null for an empty histogram or a rank outside (0, 100]", () => {
    expect(histogramPercentile([], 95)).toBeNull();
    expect(histogramPercentile([[1, 3]], 0)).toBeNull();
    expect(histogramPercentile([[1, 3]], 101)).toBeNull();
  });

  it("the recorded logs hold both figures", () => expect(withBoth.length).toBeGreaterThanOrEqual(10));

  it.each(withBoth.map((x) => [x.name, x.r] as const))(
    "%s: the histogram's percentile at the printed rank is sysbench's printed one",
    (_, r) => {
      const v = histogramPercentile(r.histogram!, r.latencyMs.percentile!)!;
      // sysbench prints the percentile with two decimals, the histogram's values with three
      expect(Math.abs(v - r.latencyMs.percentileValue!)).toBeLessThanOrEqual(0.005 + 1e-9);
    },
  );
});

describe("narrowerThanBucket", () => {
  it("an interval spanning less than one bucket is at the histogram's resolution", () => {
    expect(narrowerThanBucket(99.5, 100.5)).toBe(true);
    expect(narrowerThanBucket(99, 101)).toBe(false);
    expect(narrowerThanBucket(null, 101)).toBe(false);
    expect(narrowerThanBucket(101, 99)).toBe(false);
  });
});
