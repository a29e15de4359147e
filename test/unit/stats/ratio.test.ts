/** The ratio table (src/core/stats/ratio.ts): seed 000 reproduced from its numbers, and synthetic repeats. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { InputError } from "../../../src/core/base/errors.ts";
import { buildRunReport } from "../../../src/core/report/model.ts";
import { buildRatioTable, ratioTableFromSides, ratioTableJson } from "../../../src/core/stats/ratio.ts";
import { cellRecord, sysbench } from "../../support/record.ts";
import { parseMetric } from "../../../src/core/stats/metric.ts";
import { renderText, seedTable, plainCell } from "../../../src/core/report/text.ts";
import { reportJson } from "../../../src/core/report/json.ts";
import { load } from "../../support/results-fixture.ts";

const FIX = join(import.meta.dirname, "../../fixtures/results");

describe("seed 000 reproduced from cells built from its numbers", () => {
  it("the text renderer prints the seed's table byte for byte", () => {
    const { manifest, cells } = load("seed-000");
    const text = renderText(buildRunReport(manifest, cells));
    const seed = readFileSync(join(FIX, "seed-000", "seed-000-table.txt"), "utf8").split("\n");
    // seed lines 3..13: "Number of threads" header, thread counts, " sysbench test", the 8 rows
    const seedTableLines = seed.slice(2, 13);
    const lines = text.split("\n");
    const start = lines.indexOf(seedTableLines[0]);
    expect(start).toBeGreaterThan(0);
    expect(lines.slice(start, start + 11)).toEqual(seedTableLines);
    // then the legend, as in the seed
    expect(lines[start + 11]).toBe("(MariaDB q/s / MySQL q/s * 100)");
    expect(seed[14]).toBe("(MariaDB q/s / MySQL q/s * 100)");
    expect(lines[0]).toMatch(/^MariaDB 11\.8\.9 vs MySQL 9\.7\.4: seed-000, on /);
  });

  it("has one row per legacy test and columns 1..128; one repeat -> no verdict", () => {
    const { manifest, cells } = load("seed-000");
    const t = buildRatioTable(manifest, cells)!;
    expect(t.threads).toEqual([1, 4, 8, 16, 32, 64, 128]);
    expect(t.rows.map((r) => r.test)).toEqual([
      "delete",
      "insert",
      "oltp_complex_ro",
      "oltp_complex_rw",
      "oltp_simple",
      "select",
      "update_index",
      "update_non_index",
    ]);
    expect(t.rows[2].cells[0]).toMatchObject({
      threads: 1,
      ratio: 104.21,
      low: null,
      high: null,
      verdict: "unknown",
      n: 1,
    });
    expect(seedTable(t, plainCell)[3]).toBe(
      "  delete            103.72  101.84  106.56  102.80   94.19   86.23   65.13",
    );
  });
});

describe("ratio table on synthetic repeats", () => {
  const { manifest, cells } = load("repeats");

  it("has exactly the agreed JSON shape (plus extra fields)", () => {
    const j = ratioTableJson(buildRatioTable(manifest, cells)!) as any;
    expect(Object.keys(j).slice(0, 5)).toEqual(["metric", "numerator", "denominator", "threads", "rows"]);
    expect(j).toMatchObject({ metric: "qps", numerator: "mariadb", denominator: "mysql", threads: [1, 4, 8] });
    expect(j.rows[0].test).toBe("oltp_read_only");
    for (const k of ["threads", "estimate", "ratio", "low", "high", "verdict", "n"])
      expect(j.rows[0].cells[0]).toHaveProperty(k);
    // estimate = exp(mean ln(1.1, 1.2, 1.0)) = 109.696, the centre of the interval; ratio = median / median = 110.
    // Reference from scipy 1.17.1, the robust() snippet of test/unit/stats/estimate.test.ts on the fixture's pair ratios
    // (qps mariadb / mysql per repeat): the cell is noisier than the table's prior, so it keeps its own variance and
    // 2 df: the plain paired t interval.
    //   robust([[1.1, 1.2, 1.0], [1020/1000, 1030/1010, 1010/990], [1.0, 1.5, 0.8], [0.9, 0.91, 0.89]])
    //   -> d0 0.32022423365414454; cell 1: 109.69613104865236 [87.45986371595586, 137.58586688545014], df 2
    const c = j.rows[0].cells[0];
    expect(c).toMatchObject({
      threads: 1,
      ratio: 110,
      verdict: "inconclusive",
      direction: "none",
      equivalence: "undetermined",
      fdr: null,
      n: 3,
      df: 2,
    });
    // The JSON rounds to 4 decimals: compare within half a unit of the last printed digit.
    expect(Math.abs(c.estimate - 109.69613104865236)).toBeLessThanOrEqual(0.00005);
    expect(Math.abs(c.low - 87.45986371595586)).toBeLessThanOrEqual(0.00005);
    expect(Math.abs(c.high - 137.58586688545014)).toBeLessThanOrEqual(0.00005);
    expect(j.method).toMatchObject({ intervals: 4, verdicts: 2, verdictsAtFdr: 2, instanceCells: 0, unit: "repeats" });
    expect(j.method.expectedFalse).toBeCloseTo(0.2, 12);
  });

  it.each([
    // test, threads, status, verdict, ratio, n
    ["oltp_read_only", 1, "ok", "inconclusive", 110, 3],
    ["oltp_read_only", 4, "ok", "faster-within", 102, 3], // [101.8, 102.2]: faster, and within ±5%
    // pair ratios 100, 150, 80: a side's CV of 33% no longer withholds the verdict; the interval does
    ["oltp_read_only", 8, "ok", "inconclusive", 100, 3],
    ["oltp_point_select", 1, "ok", "slower-beyond", 90, 3], // [88.0, 92.1]: slower by more than 5%
    ["oltp_point_select", 4, "failed", "unknown", null, 0],
    ["oltp_point_select", 8, "missing", "unknown", null, 0],
  ] as const)("%s @ %i: %s %s", (test, threads, status, verdict, ratio, n) => {
    const t = buildRatioTable(manifest, cells)!;
    const c = t.rows.find((r) => r.test === test)!.cells.find((x) => x.threads === threads)!;
    expect(c).toMatchObject({ status, verdict, ratio, n });
    if (status !== "ok") expect([c.low, c.high]).toEqual([null, null]);
  });

  it("warm-up records never count (their q/s would change the medians)", () => {
    // warm-up: mariadb 1000, mysql 900 q/s. Removing the measure records leaves the cell missing, not 111.11.
    const onlyWarmup = cells.filter((c) => c.phase === "warmup");
    const t = buildRatioTable(manifest, onlyWarmup)!;
    expect(t.rows[0].cells[0]).toMatchObject({ status: "missing", ratio: null });
  });

  it("latency metrics are inverted: above 100 still means the numerator is better", () => {
    // fixture: p95 = 1.5 * 1000 * threads / tps, tps = qps / 20 -> p95 ∝ 1/qps, so the inverted ratio equals the qps ratio
    const t = buildRatioTable(manifest, cells, { metric: "p95" })!;
    expect(t.inverted).toBe(true);
    expect(t.rows[0].cells[1].ratio!).toBeCloseTo(102, 0);
    // p95 is rounded to sysbench's histogram buckets: the quantisation floor widens [101.8, 102.2] to [99.8, 104.2]
    // Reference, scipy 1.17.1: estimate.test.ts's limma() on ln(mysql p95 / mariadb p95) per repeat, each cell's
    // s² floored at floor² with floor = np.log(1e8) / 1023 / np.sqrt(6) (a rounding a side):
    //   cells [30/27.27, 30/25, 30/30], [120/117.65, 118.81/116.5, 121.21/118.81], [240/240, 240/160, 240/300],
    //   [30/33.33, 30/32.97, 30/33.71] -> d0 0.63546412505117; cell 2: [99.8186228003695, 104.22925974374412]
    const p95 = t.rows[0].cells[1];
    expect(p95.verdict).toBe("equivalent");
    expect(Math.abs(p95.low! - 99.8186228003695)).toBeLessThanOrEqual(0.00005); // rounded to 4 decimals
    expect(Math.abs(p95.high! - 104.22925974374412)).toBeLessThanOrEqual(0.00005);
    expect(t.rows[1].cells[0].verdict).toBe("slower-beyond");
    const text = renderText(buildRunReport(manifest, cells, { metric: "p95" }));
    expect(text).toContain(
      "(MySQL p95 latency / MariaDB p95 latency * 100: latency is inverted, above 100 means MariaDB is faster)",
    );
    expect(text).toMatch(/above 100 means MariaDB is faster/);
  });

  it("the scenario's compare key picks numerator and denominator", () => {
    const m = {
      ...manifest,
      scenario: { ...manifest.scenario, compare: { numerator: "mysql", denominator: "mariadb" } },
    };
    const t = buildRatioTable(m, cells)!;
    expect([t.numerator, t.denominator, t.numeratorLabel]).toEqual(["mysql", "mariadb", "MySQL"]);
    expect(t.rows[0].cells[0].ratio!).toBeCloseTo((1000 / 1100) * 100, 3);
  });

  it("an unknown server or metric is an InputError naming the value", () => {
    expect(() => buildRatioTable(manifest, cells, { numerator: "percona" })).toThrow(/unknown server "percona"/);
    expect(() => parseMetric("iops")).toThrow(InputError);
  });

  it("a single-server run has no table but still reports", () => {
    const m = {
      ...manifest,
      scenario: { ...manifest.scenario, servers: manifest.scenario.servers.slice(0, 1) },
      servers: manifest.servers.slice(0, 1),
    };
    const r = buildRunReport(m, cells);
    expect(r.table).toBeNull();
    expect(renderText(r)).toContain("Only one server");
    expect((reportJson(r) as any).rows).toEqual([]);
  });
});

describe("a pair disturbed in its last attempt is left out of the estimate", () => {
  const interference = (disturbed: boolean) =>
    ({ stealPct: 0, psiCpuSomePct: 0, outsiderCores: disturbed ? 0.9 : 0, disturbed, reasons: [] }) as never;
  const side = (server: string, qps: (repeat: number) => number, disturbedAt: number[] = []) =>
    [1, 2, 3, 4, 5].flatMap((repeat) => [
      // the first attempt of the disturbed repeat, then its re-run: the last attempt is what counts
      ...(disturbedAt.includes(repeat)
        ? [
            cellRecord({
              server,
              repeat,
              attempt: 1,
              metrics: sysbench({ qps: qps(repeat) / 3 }),
              interference: interference(true),
            }),
          ]
        : []),
      cellRecord({
        server,
        repeat,
        attempt: disturbedAt.includes(repeat) ? 2 : 1,
        metrics: sysbench({ qps: disturbedAt.includes(repeat) ? qps(repeat) / 2 : qps(repeat) }),
        interference: interference(disturbedAt.includes(repeat)),
      }),
    ]);
  const a = (r: number) => 1000 + 10 * (r % 2);
  const b = (r: number) => 1000 + 7 * (r % 3);
  it("the cell's n and estimate are those of its clean pairs; the records all stay", () => {
    const sides = (dist: number[]) =>
      ratioTableFromSides(
        { id: "a", label: "A", records: side("a", a, dist) },
        { id: "b", label: "B", records: side("b", b) },
        ["oltp_read_only"],
        [1],
      ).rows[0].cells[0];
    const clean = sides([]);
    const left = sides([3]);
    expect(clean.n).toBe(5);
    expect(left.n).toBe(4);
    // half the throughput on one server in repeat 3: kept, it would pull the estimate far under 100
    expect(left.estimate!).toBeGreaterThan(99);
    expect(left.estimate!).toBeLessThan(102);
    expect(left.numeratorValues[2]).toBe(505);
    // the seeds' figure (the ratio of medians) reads the same clean repeats as the estimate
    expect(left.ratio!).toBeGreaterThan(99);
    expect(left.numeratorMedian).toBe(1005);
  });

  it("a run that keeps disturbed pairs (rerunDisturbed: false) counts them, and says so", () => {
    const cell = (keepDisturbed: boolean) =>
      ratioTableFromSides(
        { id: "a", label: "A", records: side("a", a, [3]) },
        { id: "b", label: "B", records: side("b", b) },
        ["oltp_read_only"],
        [1],
        { keepDisturbed },
      ).rows[0].cells[0];
    const kept = cell(true);
    expect(kept.n).toBe(5);
    expect(kept.estimate!).toBeLessThan(95);
    expect(kept.unstable.some((u) => u.includes("disturbed, counted"))).toBe(true);
    expect(cell(false).unstable.some((u) => u.includes("disturbed, left out"))).toBe(true);
  });

  it("with no clean pair, the seeds' figure reads every repeat (the estimate has none)", () => {
    const c = ratioTableFromSides(
      { id: "a", label: "A", records: side("a", a, [1, 2, 3, 4, 5]) },
      { id: "b", label: "B", records: side("b", b) },
      ["oltp_read_only"],
      [1],
    ).rows[0].cells[0];
    expect(c.n).toBe(0);
    expect(c.ratio).not.toBeNull();
    expect(c.low).toBeNull();
  });
});
