/** deriveFigures: tps CV, stalls, error/reconnect totals from intervals (table-driven, plus real fixtures). */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { deriveFigures, median } from "../../../../src/core/model/sysbench/derived.ts";
import { parseSysbench, parseSysbenchFile } from "../../../../src/core/model/sysbench/parse.ts";
import type { IntervalSample, SysbenchResult } from "../../../../src/core/model/sysbench/result.ts";

const root = join(import.meta.dirname, "../../../fixtures/sysbench");
const fixture = (dir: string, name: string): SysbenchResult =>
  parseSysbench(readFileSync(join(root, dir, name), "utf8"));

function iv(t: number, tps: number, err = 0, reconn = 0): IntervalSample {
  return {
    t,
    threads: 1,
    tps,
    qps: tps,
    readsPerSec: tps,
    writesPerSec: 0,
    otherPerSec: 0,
    latencyPercentile: 95,
    latencyMs: 1,
    errorsPerSec: err,
    reconnectsPerSec: reconn,
  };
}
function withIntervals(intervals: IntervalSample[]): SysbenchResult {
  const base = fixture("1.0", "default-no-interval.log");
  return { ...base, intervals };
}

describe("deriveFigures on synthetic intervals", () => {
  it.each([
    { name: "no intervals", ivs: [], want: { tpsCv: null, stalls: 0, errorsTotal: 0, reconnectsTotal: 0 } },
    {
      name: "one interval: no CV",
      ivs: [iv(1, 100)],
      want: { tpsCv: null, stalls: 0, errorsTotal: 0, reconnectsTotal: 0 },
    },
    {
      name: "steady",
      ivs: [iv(1, 100), iv(2, 100), iv(3, 100)],
      want: { tpsCv: 0, stalls: 0, errorsTotal: 0, reconnectsTotal: 0 },
    },
    // mean 100, population stddev 50 → 0.5
    {
      name: "CV 0.5",
      ivs: [iv(1, 50), iv(2, 150)],
      want: { tpsCv: 0.5, stalls: 0, errorsTotal: 0, reconnectsTotal: 0 },
    },
    // median 100: 9.99 < 10 is a stall, 10 is not
    {
      name: "stalls under 10% of the median",
      ivs: [iv(1, 100), iv(2, 9.99), iv(3, 10), iv(4, 100), iv(5, 0), iv(6, 100), iv(7, 100)],
      want: { stalls: 2 },
    },
    { name: "all zero: no CV, no stalls", ivs: [iv(1, 0), iv(2, 0)], want: { tpsCv: null, stalls: 0 } },
    // 10 s intervals: rates × 10
    {
      name: "totals × interval length",
      ivs: [iv(10, 100, 0.1, 0), iv(20, 100, 0.25, 0.1), iv(30, 100, 0, 0)],
      want: { errorsTotal: 3.5, reconnectsTotal: 1 },
    },
    {
      name: "1 s intervals",
      ivs: [iv(1, 100, 1), iv(2, 100, 0), iv(3, 100, 2, 3)],
      want: { errorsTotal: 3, reconnectsTotal: 3 },
    },
  ])("$name", ({ ivs, want }) => {
    expect(deriveFigures(withIntervals(ivs))).toMatchObject(want);
  });

  it("median", () => {
    expect(median([])).toBeNull();
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });
});

describe("deriveFigures on fixtures", () => {
  it("oltp_read_write-t4: error total equals the ignored-errors count (1 s intervals)", () => {
    const r = fixture("1.0", "oltp_read_write-t4.log");
    const d = deriveFigures(r);
    expect(d.errorsTotal).toBe(r.ignoredErrors);
    expect(d.reconnectsTotal).toBe(0);
    expect(d.stalls).toBe(0);
    expect(d.tpsCv).toBeGreaterThan(0);
    expect(d.tpsCv).toBeLessThan(1);
  });

  it("forced-shutdown: tps 0 throughout", () => {
    expect(deriveFigures(fixture("1.0", "forced-shutdown.log"))).toEqual({
      tpsCv: null,
      stalls: 0,
      errorsTotal: 0,
      reconnectsTotal: 0,
    });
  });

  it("0.5 legacy intervals: the 121.60 tps interval is a stall, errors 0.10/s × 10 s = 1", () => {
    const r = parseSysbenchFile(readFileSync(join(root, "legacy", "handmade-0.5-intervals.log"), "utf8"))[0];
    const d = deriveFigures(r);
    expect(d.stalls).toBe(1);
    expect(d.errorsTotal).toBe(1);
    expect(d.tpsCv).not.toBeNull();
  });

  it("seed 002 has no intervals", () => {
    for (const r of parseSysbenchFile(readFileSync(join(root, "legacy", "seed-002.txt"), "utf8"))) {
      expect(deriveFigures(r)).toEqual({ tpsCv: null, stalls: 0, errorsTotal: 0, reconnectsTotal: 0 });
    }
  });
});
