/**
 * The execution summary's derived lines (effective concurrency, tps × avg latency, busy share, fairness) on seed
 * 002's two 0.4 summaries (the 2.6/2.4 kernel paradox) and on real sysbench 1.0.20 logs.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parseSysbenchFile } from "../../../src/core/model/sysbench/parse.ts";
import {
  buildParsedSummary,
  effectiveConcurrency,
  fairnessSpread,
  threadsInText,
  throughputTimesLatency,
  type SummaryBlock,
} from "../../../src/core/report/summary.ts";

const FIX = join(dirname(fileURLToPath(import.meta.url)), "../../fixtures/sysbench");
const seedText = readFileSync(join(FIX, "legacy/seed-002.txt"), "utf8");
const row = (b: SummaryBlock, prefix: string) => b.rows.find((r) => r.label.startsWith(prefix))!;

describe("seed 002: the kernel paradox read by Little's law", () => {
  const [k26, k24] = parseSysbenchFile(seedText);
  it("finds the command line's 300 threads, not the prose's 2", () => {
    expect(threadsInText(seedText)).toBe(300);
    expect(threadsInText("no command here")).toBeNull();
    expect(threadsInText("sysbench --threads=8 --time=10 oltp_read_only run")).toBe(8);
  });
  it("effective concurrency 272 (2.6) and 5.7 (2.4); tps × avg latency agrees", () => {
    expect(effectiveConcurrency(k26!)).toBeCloseTo(49958.1731 / 183.7486, 6);
    expect(Math.abs(effectiveConcurrency(k26!)! - 272)).toBeLessThan(1);
    expect(Math.abs(effectiveConcurrency(k24!)! - 5.7)).toBeLessThan(0.1);
    expect(throughputTimesLatency(k26!)).toBeCloseTo(108.84 * 2.4979, 6);
    expect(throughputTimesLatency(k24!)).toBeCloseTo(35.8 * 0.1599, 6);
    expect(fairnessSpread(k26!)).toBeNull(); // early 0.4 prints distribution/execution pairs, not avg/stddev
  });
  const s = buildParsedSummary([
    { label: "2.6", result: k26!, threads: 300 },
    { label: "2.4", result: k24!, threads: 300 },
  ]);
  const b = s.blocks[0]!;
  it("puts both summaries side by side with B/A", () => {
    expect(s.sides).toEqual(["2.6", "2.4"]);
    expect(row(b, "transactions").values).toEqual([20000, 20298]);
    expect(row(b, "per sec.").values).toEqual([108.84, 35.8]);
    expect(row(b, "per sec.").ratio).toBeCloseTo((35.8 / 108.84) * 100, 6);
    expect(row(b, "read/write requests").values).toEqual([1000000, 1014900]);
    expect(row(b, "total time taken by event execution").values).toEqual([49958.1731, 3244.7024]);
    expect(row(b, "threads fairness: distribution").display).toEqual(["34.72/74.56", "93.56/97.96"]);
    expect(row(b, "configured threads").values).toEqual([300, 300]);
    expect(row(b, "busy share").values[1]).toBeCloseTo((3244.7024 / 566.9525 / 300) * 100, 6);
  });
  it("notes starvation on the 2.4 side only", () => {
    const starved = b.notes.filter((n) => n.includes("starvation"));
    expect(starved).toHaveLength(1);
    expect(starved[0]).toMatch(/^2\.4: effective concurrency 5\.7 of 300 threads/);
    expect(b.notes.some((n) => n.includes("disagree"))).toBe(false);
  });
});

describe("real sysbench 1.0.20 logs", () => {
  const t4 = parseSysbenchFile(readFileSync(join(FIX, "1.0/oltp_read_only-t4.log"), "utf8"))[0]!;
  const t1 = parseSysbenchFile(readFileSync(join(FIX, "1.0/oltp_read_only-t1.log"), "utf8"))[0]!;
  it("4 threads: about 4 busy, tps × avg agrees, fairness uneven (258.38 / 1997.75)", () => {
    expect(effectiveConcurrency(t4)).toBeCloseTo(11995.84 / 1000 / 3.0047, 6);
    expect(throughputTimesLatency(t4)).toBeCloseTo((2659.15 * 1.5) / 1000, 6);
    expect(fairnessSpread(t4)).toBeCloseTo(258.38 / 1997.75, 6);
    const s = buildParsedSummary([
      { label: "t1", result: t1, threads: null },
      { label: "t4", result: t4, threads: null },
    ]);
    const b = s.blocks[0]!;
    expect(row(b, "configured threads").values).toEqual([1, 4]); // as printed by 1.0
    expect(row(b, "busy share").values[1]).toBeGreaterThan(99);
    expect(b.notes.some((n) => n.includes("starvation"))).toBe(false);
    expect(b.notes.some((n) => n.startsWith("t4: uneven threads fairness: events stddev / avg = 12.9%"))).toBe(true);
    expect(b.notes.some((n) => n.includes("disagree"))).toBe(false);
    expect(row(b, "approx. 99 percentile").values).toEqual([t1.latencyMs.percentileValue, 2.86]);
  });
});
