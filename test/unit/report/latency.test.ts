/**
 * The latency percentiles and NOPM for people and machines: the reading direction in words, the family of the
 * q-values, the histogram's resolution, one row per percentile, the CSV fields, the JSON keys and the chart.
 */
import { describe, expect, it } from "vitest";
import {
  LATENCY_CSV_HEADER,
  RESOLUTION_MARK,
  fmtMs,
  latencyChartData,
  latencyCsvFields,
  latencyIntro,
  latencyJson,
  latencyPairs,
  latencyRows,
  latencyTextLines,
  nopmTextLines,
} from "../../../src/core/report/latency.ts";
import { latencySection, type LatencySection } from "../../../src/core/stats/latency.ts";
import type { LatencyPercentile, Metric } from "../../../src/core/stats/metric.ts";
import { ratioTableFromSides } from "../../../src/core/stats/ratio.ts";
import type { CellRecord } from "../../../src/core/model/results.ts";
import { latencyRecord } from "../../support/latency.ts";

/** Server a ("MariaDB") at 0.8× b's ("MySQL") latency at 4 threads; at 1 thread the two are alike to the bucket. */
function records(): CellRecord[] {
  const out: CellRecord[] = [];
  const wobble = [1, 1.08, 0.93, 1.05, 0.97, 1.06, 0.95, 1.02];
  for (let r = 1; r <= 8; r++) {
    const w = wobble[r - 1]!;
    out.push(latencyRecord("b", r, [1, 2, 4], { threads: 4 }));
    out.push(latencyRecord("a", r, [0.8 * w, 1.6 * w, 3.2 / w], { threads: 4, tpcc: { nopm: 1200 + r } }));
    out.push(latencyRecord("b", r, [0.5, 0.9, 1.5], { threads: 1 }));
    out.push(latencyRecord("a", r, [0.5, 0.9, 1.5], { threads: 1 }));
  }
  for (const r of out) if (r.server === "b" && r.threads === 4) r.tpcc = { nopm: 1000 + 3 * r.repeat };
  return out;
}

const table = (rs: CellRecord[], metric: Metric) =>
  ratioTableFromSides(
    { id: "a", label: "MariaDB", records: rs.filter((r) => r.server === "a") },
    { id: "b", label: "MySQL", records: rs.filter((r) => r.server === "b") },
    ["oltp_read_only"],
    [1, 4],
    { metric, pairing: "paired" },
  );

const rs = records();
const section: LatencySection = latencySection((p: LatencyPercentile) => [table(rs, p)], rs)!;

describe("latencyIntro", () => {
  const text = latencyIntro(section).join(" ");
  it("says which way the ratio reads, in the q/s table's words", () => {
    expect(text).toContain("MariaDB's latency / MySQL's");
    expect(text).toContain("lower is better");
    expect(text).toContain("faster means MariaDB's latency is lower");
  });
  it("states the multiple-testing control over all latency readings", () => {
    expect(text).toContain(`Benjamini–Hochberg over all ${section.readings} latency readings of this report`);
  });
  it("states the histogram's resolution", () => {
    expect(text).toContain("Histogram buckets are 1.8% apart");
    expect(text).toContain("at the histogram's resolution");
  });
  it("without a histogram it says so, and invents nothing", () => {
    const none: LatencySection = { ...section, tables: [], readings: 0, withHistogram: 0, withoutHistogram: 8 };
    expect(latencyIntro(none).join(" ")).toContain("No measured cell recorded sysbench's latency histogram");
    expect(latencyTextLines(none).join("\n")).not.toContain("p50 ");
  });
});

describe("latencyRows and latencyTextLines", () => {
  const rows = latencyRows(section, "a", "b");
  it("one row per percentile of every cell, each side's median in ms, the plain ratio and its interval", () => {
    expect(rows.map((r) => r.slice(0, 3))).toEqual([
      ["oltp_read_only", "1", "p50"],
      ["", "", "p95"],
      ["", "", "p99"],
      ["oltp_read_only", "4", "p50"],
      ["", "", "p95"],
      ["", "", "p99"],
    ]);
    const p95at4 = rows[4]!;
    expect(Number(p95at4[5])).toBeCloseTo(0.8, 1);
    expect(p95at4[7]).toMatch(/^faster/);
  });
  it("an interval narrower than one bucket is marked to be read at the histogram's resolution", () => {
    // 1 thread: 8 pairs in the same bucket, so the interval is the rounding floor's alone, under one bucket wide
    expect(rows[0]![7]).toBe(`same within ±5% ${RESOLUTION_MARK}`);
    expect(rows[4]![7]).toBe("faster");
  });
  it("lines of at most 120 characters", () => {
    for (const l of latencyTextLines(section)) expect(l.length).toBeLessThanOrEqual(120);
  });
  it("one table per compared pair", () => {
    expect(latencyPairs(section)).toEqual([{ numerator: "a", denominator: "b", label: "MariaDB against MySQL" }]);
  });
  it("fmtMs keeps about four significant digits", () => {
    expect([fmtMs(0.0654), fmtMs(12.3456), fmtMs(123.45), fmtMs(null)]).toEqual(["0.065", "12.35", "123.5", ""]);
  });
});

describe("latencyCsvFields", () => {
  const nopm = [table(rs, "nopm")];
  const fields = latencyCsvFields(section, nopm, "a", "b");
  it("as many fields as the header adds, in its order", () => {
    expect(fields("oltp_read_only", 4)).toHaveLength(LATENCY_CSV_HEADER.length);
    expect(LATENCY_CSV_HEADER.slice(0, 3)).toEqual(["p50_numerator_ms", "p50_denominator_ms", "p50_ratio"]);
    expect(LATENCY_CSV_HEADER.at(-1)).toBe("nopm_fdr");
  });
  it("the plain latency ratio and the NOPM estimate of the cell", () => {
    const f = fields("oltp_read_only", 4);
    const at = (k: string) => f[LATENCY_CSV_HEADER.indexOf(k as (typeof LATENCY_CSV_HEADER)[number])];
    expect(at("p95_ratio") as number).toBeCloseTo(0.8, 1);
    expect(at("p95_verdict")).toMatch(/^faster/);
    expect(at("nopm_estimate") as number).toBeGreaterThan(115);
  });
  it("empty fields where nothing was measured", () => {
    expect(latencyCsvFields(null, [], "a", "b")("oltp_read_only", 4).every((x) => x === null)).toBe(true);
  });
});

describe("latencyJson and latencyChartData", () => {
  it("machine keys: the family, its control, and every reading with its plain ratio", () => {
    const j = latencyJson(section) as {
      fdr: { method: string };
      tables: Array<{ percentile: string; cells: Array<Record<string, unknown>> }>;
    };
    expect(j.fdr.method).toBe("benjamini-hochberg");
    expect(j.tables.map((t) => t.percentile)).toEqual(["p50", "p95", "p99"]);
    const c = j.tables[1]!.cells.find((x) => x.threads === 4)!;
    expect(c.ratio as number).toBeCloseTo(0.8, 1);
    expect(Object.keys(c)).toEqual(
      expect.arrayContaining(["numeratorMs", "denominatorMs", "low", "high", "q", "fdr", "atResolution"]),
    );
    expect(latencyJson(null)).toBeNull();
  });
  it("the chart: one floating bar per cell and percentile, the plain ratio's interval", () => {
    const ch = latencyChartData(section)!;
    expect(ch.labels).toEqual(["oltp_read_only @ 1", "oltp_read_only @ 4"]);
    expect(ch.datasets.map((d) => d.label)).toEqual(["p50 latency", "p95 latency", "p99 latency"]);
    const [lo, hi] = ch.datasets[1]!.data[1]!;
    expect(lo).toBeLessThan(0.82);
    expect(hi).toBeGreaterThan(0.78);
    expect(ch.title).toContain("below 1: MariaDB faster");
  });
});

describe("nopmTextLines", () => {
  it("the NOPM answer table with its direction", () => {
    const lines = nopmTextLines([table(rs, "nopm")]);
    expect(lines[0]).toContain("NOPM, higher is better");
    expect(lines.join(" ").replace(/\s+/g, " ")).toContain("above 100 means MariaDB is faster");
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(120);
  });
});
