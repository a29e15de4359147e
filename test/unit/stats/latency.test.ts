/**
 * The latency section: one ratio table per percentile from the shipped engine, one Benjamini–Hochberg adjustment over
 * every reading, the plain latency ratio read back from the engine's inverted one, and what it says without one.
 */
import { describe, expect, it } from "vitest";
import { benjaminiHochberg } from "../../../src/core/stats/fdr.ts";
import { atHistogramResolution, latencyRatio, latencySection } from "../../../src/core/stats/latency.ts";
import type { LatencyPercentile } from "../../../src/core/stats/metric.ts";
import { ratioTableFromSides } from "../../../src/core/stats/ratio.ts";
import type { CellRecord } from "../../../src/core/model/results.ts";
import { cellRecord, sysbench } from "../../support/record.ts";
import { latencyRecord } from "../../support/latency.ts";

/** Two tests, 4 repeats; server a's latency is `factor` × b's (with a little noise per repeat). */
function run(factor: number): CellRecord[] {
  const out: CellRecord[] = [];
  const wobble = [1, 1.03, 0.98, 1.01];
  for (const test of ["oltp_read_only", "oltp_point_select"])
    for (let r = 1; r <= 4; r++) {
      const base: [number, number, number] = [1, 2, 4];
      out.push(latencyRecord("b", r, base, { test }));
      const w = wobble[r - 1]!;
      out.push(latencyRecord("a", r, [factor * w, 2 * factor * w, (4 * factor) / w], { test }));
    }
  return out;
}

const builder = (records: CellRecord[]) => (metric: LatencyPercentile) => [
  ratioTableFromSides(
    { id: "a", label: "A", records: records.filter((r) => r.server === "a") },
    { id: "b", label: "B", records: records.filter((r) => r.server === "b") },
    ["oltp_read_only", "oltp_point_select"],
    [1],
    { metric, pairing: "paired" },
  ),
];

describe("latencySection", () => {
  const records = run(0.8);
  const s = latencySection(builder(records), records)!;

  it("one table per percentile, in order, each read by the engine for that percentile", () => {
    expect(s.tables.map((t) => [t.percentile, t.table.metric])).toEqual([
      ["p50", "p50"],
      ["p95", "p95"],
      ["p99", "p99"],
    ]);
    expect(s.readings).toBe(6);
    expect(s.withHistogram).toBe(16);
    expect(s.withoutHistogram).toBe(0);
    expect(s.bucketPct).toBe(1.8);
  });

  it("lower latency of the numerator reads faster, and its plain ratio is about 0.8", () => {
    for (const { table } of s.tables)
      for (const c of table.rows.flatMap((r) => r.cells)) {
        expect(c.direction).toBe("faster");
        expect(latencyRatio(c)!.ratio).toBeCloseTo(0.8, 1);
      }
  });

  it("q is Benjamini–Hochberg over every latency reading of the report, not per table", () => {
    const cells = s.tables.flatMap((t) => t.table.rows.flatMap((r) => r.cells));
    const qs = benjaminiHochberg(cells.map((c) => c.p));
    cells.forEach((c, i) => expect(c.q).toBeCloseTo(qs[i]!, 6));
    expect(s.verdicts).toBe(6);
    expect(s.verdictsAtFdr).toBe(cells.filter((c) => c.fdr === "holds").length);
    expect(s.expectedFalse).toBeCloseTo(0.3, 12);
  });

  it("without any histogram there are no readings, and the section says how many records lacked one", () => {
    const plain = [1, 2, 3].flatMap((r) =>
      ["a", "b"].map((server) =>
        cellRecord({
          server,
          repeat: r,
          metrics: sysbench({
            qps: 1,
            latencyMs: { min: null, avg: null, max: null, sum: null, percentile: 95, percentileValue: 2 },
          }),
        }),
      ),
    );
    const none = latencySection(builder(plain), plain)!;
    expect(none.tables).toEqual([]);
    expect(none).toMatchObject({ readings: 0, withHistogram: 0, withoutHistogram: 6 });
  });

  it("null when there is no pair to compare", () => {
    expect(latencySection(() => [], records)).toBeNull();
  });
});

describe("latencyRatio and atHistogramResolution", () => {
  it("reads the engine's inverted figure back as numerator / denominator", () => {
    const r = latencyRatio({ estimate: 125, low: 120, high: 130 })!;
    expect(r.ratio).toBeCloseTo(0.8, 12);
    expect(r.low).toBeCloseTo(100 / 130, 12);
    expect(r.high).toBeCloseTo(100 / 120, 12);
    expect(latencyRatio({ estimate: null, low: null, high: null })).toBeNull();
    expect(latencyRatio({ estimate: 100, low: null, high: null })).toEqual({ ratio: 1, low: null, high: null });
  });
  it("an interval narrower than one bucket (1.8%) is at the histogram's resolution", () => {
    expect(atHistogramResolution({ low: 99.6, high: 100.4 })).toBe(true);
    expect(atHistogramResolution({ low: 98, high: 102 })).toBe(false);
  });
});
