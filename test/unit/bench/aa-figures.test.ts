import { describe, expect, it } from "vitest";
import {
  aaFigureNoise,
  costFigures,
  qpsAfter,
  steadyFigures,
  QPS_TOTAL,
  type AaFigure,
} from "../../../bench/lib/aa-figures.ts";
import type { CellRecord } from "../../../src/core/model/results.ts";
import { cellRecord, sysbench } from "../../support/record.ts";

/** A measured record whose per-second q/s is `series` and whose total is `total`. */
function rec(
  server: string,
  test: string,
  repeat: number,
  total: number,
  series: number[],
  serverCpuUs = 30,
): CellRecord {
  return cellRecord({
    server,
    test,
    repeat,
    metrics: sysbench({
      qps: total,
      queries: total * series.length,
      intervals: series.map((q, i) => ({ t: i + 1, qps: q, tps: q })),
    }),
    state: {
      perQuery: {
        queries: 1,
        rowsRead: 1,
        pagesRead: 0,
        pagesWritten: 0,
        logBytes: 0,
        fsyncs: 0,
        counters: { rowsRead: null, logBytes: null },
        serverCpuUs,
        clientCpuUs: 20,
      },
    },
  });
}

describe("A/A noise of a recorded run's figures", () => {
  // Two cells, three pairs each. b is constant; a's totals give known log ratios.
  const ds = { t1: [0.1, -0.1, 0], t2: [0.2, 0, 0.1] };
  const records: CellRecord[] = [];
  for (const [test, d] of Object.entries(ds))
    d.forEach((x, i) => {
      // The first second is a ramp on both sides, the same for every pair: a lead-in of 1 s leaves it out.
      records.push(
        rec("a", test, i + 1, 1000 * Math.exp(x), [200, 1000 * Math.exp(x), 1000 * Math.exp(x)], 30 * Math.exp(x / 2)),
      );
      records.push(rec("b", test, i + 1, 1000, [500, 1000, 1000], 30));
    });

  it("pair sd pooled around each cell's mean, with a chi-square interval", () => {
    const [total] = aaFigureNoise(records, "a", "b", [QPS_TOTAL]);
    // Residuals: t1 (0.1, -0.1, 0), t2 (0.1, -0.1, 0): ss 0.04 over df 4 → sd 0.1.
    expect(total!.sd!.sdPct).toBeCloseTo(10, 6);
    expect(total!.sd!.df).toBe(4);
    expect(total!.sd!.pairs).toBe(6);
    expect(total!.sd!.lowPct).toBeLessThan(10);
    expect(total!.sd!.highPct).toBeGreaterThan(10);
    expect(total!.cells).toBe(2);
  });

  it("steady: lead-ins change the series the figure is taken from; a figure against itself is 1 [1–1]", () => {
    const rows = aaFigureNoise(records, "a", "b", steadyFigures([0, 1]));
    expect(rows.map((r) => r.key)).toEqual(["qps", "lead0", "lead1"]);
    // After the 1 s lead-in the per-second mean is exactly the total: the same sd, ratio 1.
    expect(rows[2]!.sd!.sdPct).toBeCloseTo(10, 6);
    expect(rows[2]!.vsReference).toMatchObject({
      ratio: expect.closeTo(1, 6),
      low: expect.closeTo(1, 6),
      high: expect.closeTo(1, 6),
      pairs: 6,
    });
    // With the ramp second in, a's mean moves less than its total (the ramp differs between sides): not the same sd.
    expect(Math.abs(rows[1]!.sd!.sdPct - 10)).toBeGreaterThan(0.5);
    expect(qpsAfter(5).of(records[0]!)).toBeNull();
  });

  it("costs: q/s first, then every cost figure; server CPU at half the log spread is 0.5× q/s's", () => {
    const rows = aaFigureNoise(records, "a", "b", costFigures());
    expect(rows[0]!.key).toBe("qps");
    const cpu = rows.find((r) => r.key === "serverCpuUs")!;
    expect(cpu.sd!.sdPct).toBeCloseTo(5, 6);
    expect(cpu.vsReference!.ratio).toBeCloseTo(0.5, 6);
    // Identical on both sides in every pair: no spread at all.
    expect(rows.find((r) => r.key === "clientCpuUs")!.sd!.sdPct).toBe(0);
    // Zero on both sides: no pairs (a ratio of zeros is not a figure).
    expect(rows.find((r) => r.key === "fsyncs")!.sd).toBeNull();
  });

  it("a pair missing a side is left out; a server not in the run gives no pairs", () => {
    const fewer = records.filter((r) => !(r.server === "b" && r.test === "t1" && r.repeat === 3));
    expect(aaFigureNoise(fewer, "a", "b", [QPS_TOTAL])[0]!.sd!.pairs).toBe(5);
    const none: AaFigure[] = [QPS_TOTAL];
    expect(aaFigureNoise(records, "a", "zz", none)[0]!.sd).toBeNull();
  });
});
