import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { calibrationLines } from "../../../src/core/report/calibration.ts";
import { aaScenario, calibrationLayout, seriesScenario } from "../../../src/core/plan/calibrate-layout.ts";
import { planPrecision } from "../../../src/core/plan/calibration/prediction.ts";
import { typicalNoise, updateCalibration, recalibrated } from "../../../src/core/plan/calibration/update.ts";
import { cellPriorDf } from "../../../src/core/plan/calibration/cell-model.ts";
import {
  aaPairsByCell,
  pooledResiduals,
  seriesDisturbance,
  runCellSpread,
} from "../../../src/core/plan/calibration/pairs.ts";
import { pairSecondsAt, PAIR_COST_RUNS } from "../../../src/core/plan/calibration/costs.ts";
import { CELL_SPREAD_RUNS } from "../../../src/core/plan/calibration/schema.ts";
import { predictHalfWidthPct } from "../../../src/core/stats/half-width.ts";
import { cellVariances, nestedSd } from "../../../src/core/stats/nested-sd.ts";
import { seriesStats } from "../../../src/core/stats/series.ts";
import { ASSUMED_CELL_PRIOR_DF } from "../../../src/core/stats/simulate.ts";
import { predictPrecision, precisionLines, runSeconds } from "../../../src/core/plan/precision.ts";
import { planRun } from "../../../src/core/plan/plan.ts";
import { normalFrom, seededRandom } from "../../../src/core/base/random.ts";
import type { Scenario } from "../../../src/core/model/scenario/schema.ts";
import type { CellRecord } from "../../../src/core/model/results.ts";
import { calibrationFile, readCalibration, writeCalibration } from "../../../src/adapters/calibration-store.ts";
import { calibrationFixture } from "../../support/calibration-fixture.ts";
import { scenarioFile, type ScenarioDoc } from "../../support/scenario.ts";
import { cellRecord, sysbench } from "../../support/record.ts";

const load = (f: string, sets: (d: ScenarioDoc) => void = () => {}): Scenario => scenarioFile(f, sets);

const cal = calibrationFixture({});

describe("seriesStats", () => {
  it("gives the exact CV, autocorrelation and block CVs of a small series", () => {
    const s = seriesStats([1, 2, 3, 4], { lags: 2, blocks: [2] });
    // mean 2.5, sd sqrt(5/3); lag 1: (-1.5·-0.5 + -0.5·0.5 + 0.5·1.5) / 5 = 0.25; lag 2: (-1.5·0.5 + -0.5·1.5) / 5 = -0.3
    expect(s.seconds).toBe(4);
    expect(s.cvPct).toBeCloseTo((Math.sqrt(5 / 3) / 2.5) * 100, 10);
    expect(s.autocorr[0]).toBeCloseTo(0.25, 12);
    expect(s.autocorr[1]).toBeCloseTo(-0.3, 12);
    // block means 1.5 and 3.5: sd sqrt(2), mean 2.5
    expect(s.blocks).toHaveLength(1);
    expect(s.blocks[0].cvPct).toBeCloseTo((Math.sqrt(2) / 2.5) * 100, 10);
    expect(s.blocks[0].whiteNoiseCvPct).toBeCloseTo(s.cvPct / Math.sqrt(2), 10);
  });

  it("finds an AR(1) series' autocorrelation φ^k and block CVs above white noise", () => {
    const phi = 0.6;
    const norm = normalFrom(seededRandom(7));
    const xs: number[] = [];
    let e = 0;
    for (let t = 0; t < 20000; t++) {
      e = phi * e + norm() * 0.05;
      xs.push(1000 * (1 + e));
    }
    const s = seriesStats(xs);
    for (let k = 1; k <= 5; k++) expect(s.autocorr[k - 1]).toBeCloseTo(phi ** k, 1);
    expect(s.blocks.map((b) => b.seconds)).toEqual([2, 5, 10, 20]);
    // Variance of a block mean of an AR(1): σ²/L · (1 + 2 Σ (1 − k/L) φ^k); at L = 20 that is about 3.4× white noise's.
    const b20 = s.blocks.find((b) => b.seconds === 20)!;
    expect(b20.cvPct / b20.whiteNoiseCvPct).toBeGreaterThan(1.6);
    expect(b20.cvPct / b20.whiteNoiseCvPct).toBeLessThan(2.1);
  });

  it("gives block CVs near white noise's for white noise, and skips blocks with fewer than 2 blocks", () => {
    const norm = normalFrom(seededRandom(11));
    const s = seriesStats(Array.from({ length: 40000 }, () => 100 + norm()));
    for (const b of s.blocks) expect(b.cvPct / b.whiteNoiseCvPct).toBeCloseTo(1, 1);
    expect(Math.abs(s.autocorr[0])).toBeLessThan(0.02);
    expect(seriesStats([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]).blocks.map((b) => b.seconds)).toEqual([
      2, 5,
    ]);
  });
});

describe("nestedSd", () => {
  it("pools the within-instance sd and gets the instance sd by the method of moments", () => {
    // One cell, two instances: {0, 0.2} and {1, 1.2}. Within: ss 0.04, df 2, s² 0.02.
    // Q = 2(0.1 − 0.6)² + 2(1.1 − 0.6)² = 1; E[Q] = σ² + (4 − 8/4) τ² → τ² = (1 − 0.02) / 2 = 0.49.
    const r = nestedSd([
      [
        [0, 0.2],
        [1, 1.2],
      ],
    ]);
    expect(r.pairDf).toBe(2);
    expect(r.pairSdPct).toBeCloseTo(Math.sqrt(0.02) * 100, 10);
    expect(r.instanceSdPct).toBeCloseTo(70, 10);
    expect(r.instanceDf).toBe(1);
    expect(r.pairs).toBe(4);
  });

  it("floors the instance variance at 0 and gives null with one instance", () => {
    expect(
      nestedSd([
        [
          [0, 0.2],
          [0.1, 0.1],
        ],
      ]).instanceSdPct,
    ).toBe(0);
    const one = nestedSd([[[0.1, -0.1, 0.05]], [[0, 0.02]]]);
    expect(one.instanceSdPct).toBeNull();
    expect(one.instanceDf).toBe(0);
    expect(one.pairDf).toBe(3);
  });

  it("recovers simulated pair and instance sds (2 cells × 40 instances × 10 pairs)", () => {
    const norm = normalFrom(seededRandom(3));
    const cells = [0, 1].map(() =>
      Array.from({ length: 40 }, () => {
        const u = 0.05 * norm();
        return Array.from({ length: 10 }, () => u + 0.1 * norm());
      }),
    );
    const r = nestedSd(cells);
    expect(r.pairDf).toBe(2 * 40 * 9);
    expect(r.pairSdPct).toBeGreaterThan(9.3);
    expect(r.pairSdPct).toBeLessThan(10.7);
    expect(r.instanceSdPct!).toBeGreaterThan(3.5);
    expect(r.instanceSdPct!).toBeLessThan(6.5);
    expect(r.instanceDf).toBe(78);
  });
});

const rec = (
  server: string,
  test: string,
  repeat: number,
  qps: number | null,
  extra: Partial<CellRecord> = {},
): CellRecord =>
  cellRecord({
    server,
    test,
    repeat,
    status: qps === null ? "failed" : "ok",
    metrics: qps === null ? null : sysbench({ qps, tps: qps / 10 }),
    startedAt: `2026-12-01T00:00:${String(repeat * 10).padStart(2, "0")}.000Z`,
    endedAt: `2026-12-01T00:00:${String(repeat * 10 + 8).padStart(2, "0")}.000Z`,
    ...extra,
  });

describe("pooledResiduals and the update of a calibration", () => {
  it("pools log pair ratios within cells, pairing by repeat and skipping failed sides and warm-ups", () => {
    const records = [
      rec("a", "t1", 1, 110),
      rec("b", "t1", 1, 100),
      rec("a", "t1", 2, 100),
      rec("b", "t1", 2, 100),
      rec("a", "t1", 3, null),
      rec("b", "t1", 3, 100),
      rec("a", "t2", 1, 200),
      rec("b", "t2", 1, 200),
      rec("a", "t2", 2, 220),
      rec("b", "t2", 2, 200),
      rec("a", "t2", 3, 5000, { phase: "warmup" }),
      rec("b", "t2", 3, 200, { phase: "warmup" }),
    ];
    const r = pooledResiduals(records, "a", "b")!;
    const d = Math.log(1.1);
    // each cell {d, 0}: ss d²/2, df 1; pooled over 2 cells: s² = d²/2
    expect(r.df).toBe(2);
    expect(r.s2).toBeCloseTo((d * d) / 2, 12);
    expect(pooledResiduals(records.slice(0, 2), "a", "b")).toBeNull();
  });

  it("weights by df and counts the update", () => {
    const c = cal({ pairSdPct: 10, pairDf: 30 });
    const u = updateCalibration(c, { s2: 0.2 ** 2, df: 10 }, "2026-12-02T00:00:00.000Z");
    expect(u.pairSdPct).toBeCloseTo(Math.sqrt((30 * 0.01 + 10 * 0.04) / 40) * 100, 10);
    expect(u.pairDf).toBe(40);
    expect(u.updates).toBe(1);
    expect(u.updatedAt).toBe("2026-12-02T00:00:00.000Z");
    expect(u.instanceSdPct).toBe(c.instanceSdPct);
    expect(updateCalibration(c, { s2: 0.01, df: 0 }, "x")).toBe(c);
  });

  it("seconds per pair: a running mean over the last PAIR_COST_RUNS runs, so one run's re-runs do not set it alone", () => {
    const costs = (gross: number) => ({ grossCellSeconds: gross, cellSeconds: 7, servers: 2 });
    const fresh = cal({ pairSdPct: 10, pairDf: 30, cellSeconds: 7, secondsPerPair: null, updates: 0 });
    // none stored: the run's figure (2 × (7 + 1))
    const one = updateCalibration(fresh, { s2: 0.01, df: 4 }, "x", costs(8));
    expect(one.secondsPerPair).toBeCloseTo(16, 10);
    // a second run with re-runs (gross 10 s): the mean of the two, not 20
    const two = updateCalibration(one, { s2: 0.01, df: 4 }, "x", costs(10));
    expect(two.secondsPerPair).toBeCloseTo(18, 10);
    // after many quiet runs the weight of a new run is 1/PAIR_COST_RUNS
    let u = two;
    for (let k = 0; k < 20; k++) u = updateCalibration(u, { s2: 0.01, df: 4 }, "x", costs(8));
    expect(u.secondsPerPair).toBeCloseTo(16, 1);
    const spike = updateCalibration(u, { s2: 0.01, df: 4 }, "x", costs(10));
    expect(spike.secondsPerPair! - u.secondsPerPair!).toBeCloseTo((20 - u.secondsPerPair!) / PAIR_COST_RUNS, 10);
  });

  it("keeps each run's cell variances (newest 10) and fits the cells' prior df from them", () => {
    const records = [
      rec("a", "t1", 1, 110),
      rec("b", "t1", 1, 100),
      rec("a", "t1", 2, 100),
      rec("b", "t1", 2, 100),
      rec("a", "t2", 1, 200),
      rec("b", "t2", 1, 200),
      rec("a", "t2", 2, 260),
      rec("b", "t2", 2, 200),
      rec("a", "t3", 1, 200),
      rec("b", "t3", 1, 200),
    ];
    const spread = runCellSpread(records, "a", "b");
    // t1: {ln 1.1, 0}, t2: {0, ln 1.3}; t3 has one pair: left out
    expect(spread).toEqual([
      { s2: Math.log(1.1) ** 2 / 2, df: 1, cell: "t1@1" },
      { s2: Math.log(1.3) ** 2 / 2, df: 1, cell: "t2@1" },
    ]);
    const flat = cellVariances([[0.1, 0.1, 0.1], [0.2]]);
    expect(flat).toHaveLength(1);
    expect(flat[0]!.s2).toBeCloseTo(0, 12);
    expect(flat[0]!.df).toBe(2);
    const c = cal({ pairSdPct: 10, pairDf: 30 });
    expect(cellPriorDf(c)).toEqual({ d0: ASSUMED_CELL_PRIOR_DF, source: "assumed", runs: 0, cells: 0 });
    let u = c;
    for (let k = 0; k < CELL_SPREAD_RUNS + 2; k++)
      u = updateCalibration(u, { s2: 0.01, df: 2 }, `2026-12-04T0${k % 10}:00:00.000Z`, undefined, spread);
    expect(u.cellSpread).toHaveLength(CELL_SPREAD_RUNS);
    expect(u.cellSpread![0]!.cells).toEqual(spread);
    // a run with fewer than 2 cells leaves the record as it was
    expect(updateCalibration(u, { s2: 0.01, df: 2 }, "x", undefined, spread.slice(0, 1)).cellSpread).toEqual(
      u.cellSpread,
    );
    const p = cellPriorDf(u);
    expect(p).toMatchObject({ source: "recorded", runs: CELL_SPREAD_RUNS, cells: 2 * CELL_SPREAD_RUNS });
    // the same two cells in every run: their spread is what 1 df each gives by chance or less, so a large d0 (≤ 20 df)
    expect(p.d0).toBeGreaterThan(ASSUMED_CELL_PRIOR_DF);
    expect(p.d0).toBeLessThanOrEqual(20);
    // a run's own cells count as one more run
    expect(cellPriorDf(c, spread)).toMatchObject({ source: "recorded", runs: 1, cells: 2 });
    // With a shape, only the runs on data of that shape: the untagged runs above are small-data runs, so a 2 M-row
    // RAID 0 design gets the assumed prior until a run on such data is recorded, tagged with its shape.
    const raid = { rows: 2_000_000, storage: "raid0" };
    expect(cellPriorDf(u, [], { rows: 40000, storage: "tmpfs" })).toMatchObject({
      source: "recorded",
      runs: CELL_SPREAD_RUNS,
    });
    expect(cellPriorDf(u, [], raid)).toEqual({ d0: ASSUMED_CELL_PRIOR_DF, source: "assumed", runs: 0, cells: 0 });
    const tagged = updateCalibration(u, { s2: 0.01, df: 2 }, "y", { cellSeconds: 5, servers: 2, shape: raid }, spread);
    expect(tagged.cellSpread!.at(-1)).toMatchObject({ at: "y", shape: raid });
    expect(cellPriorDf(tagged, [], raid)).toMatchObject({ source: "recorded", runs: 1, cells: 2 });
  });

  it("typicalNoise: the pair level folded into the host is the typical cell's, not the mean a stalling cell rules", () => {
    const noise = { pairSdPct: 0, pairDf: 72, instanceSdPct: null, instanceDf: 0, pairs: 78, levels: "total" as const };
    // Five cells at about 5% and one at 50% (12 df each), like 2026-12-06's reduced seed run on RAID 0.
    const spread = [0.048, 0.052, 0.05, 0.047, 0.053, 0.5].map((sd) => ({ s2: sd * sd, df: 12 }));
    const mean = Math.sqrt(spread.reduce((a, o) => a + o.s2, 0) / spread.length) * 100;
    const t = typicalNoise({ ...noise, pairSdPct: mean }, spread);
    expect(mean).toBeGreaterThan(20);
    expect(t.pairSdPct).toBeGreaterThan(4);
    expect(t.pairSdPct).toBeLessThan(8);
    expect(t).toMatchObject({ pairDf: 72, levels: "total", instanceSdPct: null });
    // Cells alike (no spread beyond sampling), or one cell: the run's own figure.
    const alike = [0.05, 0.051, 0.049].map((sd) => ({ s2: sd * sd, df: 12 }));
    expect(typicalNoise({ ...noise, pairSdPct: 5 }, alike).pairSdPct).toBe(5);
    expect(typicalNoise({ ...noise, pairSdPct: 5 }, spread.slice(0, 1)).pairSdPct).toBe(5);
  });

  it("pairSecondsAt: both cells at the run's gross seconds, moved to another cell length by its overhead", () => {
    // 2026-12-06: calibrate's quiet A/A run took 7.19 s per 7 s cell: 14.38 s a pair, not its span's 15.3 s.
    expect(pairSecondsAt(7, 7.19, 7)).toBeCloseTo(14.38, 10);
    // A run of 5 s cells at 5.26 s, stored at the calibration's 7 s: 2 × (7 + 0.26).
    expect(pairSecondsAt(7, 5.26, 5)).toBeCloseTo(14.52, 10);
    expect(pairSecondsAt(7, 4.9, 5)).toBe(14); // never less than the cells themselves
  });

  it("aaPairsByCell: log pair ratios by cell; a pair disturbed in its last attempt is left out and counted", () => {
    const quiet = { stealPct: 0, psiCpuSomePct: 60, outsiderCores: 0.01, disturbed: false, reasons: [] };
    const busy = { ...quiet, outsiderCores: 1.0, disturbed: true, reasons: ["outsiders used 1.00 core"] };
    const records = [
      rec("a", "t1", 1, 110, { interference: quiet }),
      rec("b", "t1", 1, 100, { interference: quiet }),
      // repeat 2: b's first attempt disturbed, re-run quietly: the pair counts with the re-run
      rec("a", "t1", 2, 100, { interference: quiet }),
      rec("b", "t1", 2, 60, { interference: busy }),
      rec("b", "t1", 2, 100, { interference: quiet }),
      // repeat 3: disturbed in its last attempt too (2026-12-06: 8.9 k q/s against 15.3 k): left out
      rec("a", "t1", 3, 153, { interference: quiet }),
      rec("b", "t1", 3, 89, { interference: busy }),
    ];
    const r = aaPairsByCell(records);
    expect(r.disturbed).toBe(1);
    expect(r.pairs.get("t1|1")!.map((x) => Number(x.toFixed(6)))).toEqual([Number(Math.log(1.1).toFixed(6)), 0]);
  });

  it("seriesDisturbance: the series' last ok measured cell, disturbed by outside work or not", () => {
    const quiet = { stealPct: 0, psiCpuSomePct: 60, outsiderCores: 0.01, disturbed: false, reasons: [] };
    const busy = { ...quiet, outsiderCores: 0.4, disturbed: true, reasons: ["outsiders used 0.40 core"] };
    expect(seriesDisturbance([rec("a", "t1", 1, 100, { interference: quiet })])).toBeNull();
    expect(seriesDisturbance([rec("a", "t1", 1, 100, { interference: busy })])).toBe("outsiders used 0.40 core");
    // a disturbed attempt re-run quietly: the last ok one counts; a warm-up never counts; unknown is not disturbed
    expect(
      seriesDisturbance([
        rec("a", "t1", 1, 100, { interference: busy }),
        rec("a", "t1", 1, 100, { interference: quiet }),
      ]),
    ).toBeNull();
    expect(seriesDisturbance([rec("a", "t1", 1, 100, { interference: busy, phase: "warmup" })])).toBeNull();
    expect(seriesDisturbance([rec("a", "t1", 1, 100)])).toBeNull();
  });
});

describe("predictHalfWidthPct and planPrecision", () => {
  it("is exp(t(df)·se) − 1 with df = cells × (n − 1) on one instance", () => {
    // t(0.975, 9) = 2.262157
    const h = predictHalfWidthPct({ pairSdPct: 10, instanceSdPct: null, pairs: 10, instances: 1, cells: 1 });
    expect(h).toBeCloseTo((Math.exp(2.262157 * (0.1 / Math.sqrt(10))) - 1) * 100, 3);
  });

  it("adds the instance level over I instances with df = cells × (I − 1)", () => {
    // t(0.975, 6) = 2.446912; se = sqrt(0.1²/20 + 0.05²/2)
    const h = predictHalfWidthPct({ pairSdPct: 10, instanceSdPct: 5, pairs: 20, instances: 2, cells: 6 });
    expect(h).toBeCloseTo((Math.exp(2.446912 * Math.sqrt(0.01 / 20 + 0.0025 / 2)) - 1) * 100, 3);
    expect(predictHalfWidthPct({ pairSdPct: 10, instanceSdPct: null, pairs: 1, instances: 1, cells: 6 })).toBe(
      Number.POSITIVE_INFINITY,
    );
  });

  it("picks the cheapest layout that reaches the target, and says when the budget stops it", () => {
    const cost = (pairs: number, inst: number) => pairs * 10 + inst * 100;
    const base = {
      pairSdPct: 10,
      instanceSdPct: 0,
      cells: 6,
      minPairs: 4,
      maxPairs: 40,
      minInstances: 1,
      maxInstances: 3,
      cost,
    };
    const r = planPrecision({ ...base, precisionPct: 5 });
    expect(r.reached).toBe(true);
    expect(r.best!.instances).toBe(1);
    expect(r.best!.halfWidthPct).toBeLessThanOrEqual(5);
    expect(
      predictHalfWidthPct({ pairSdPct: 10, instanceSdPct: 0, pairs: r.best!.pairs - 1, instances: 1, cells: 6 }),
    ).toBeGreaterThan(5);
    const tight = planPrecision({ ...base, precisionPct: 5, budgetSeconds: 200 });
    expect(tight.reached).toBe(false);
    expect(tight.overBudget).toBe(true);
    expect(tight.narrowest!.seconds).toBeLessThanOrEqual(200);
    const never = planPrecision({ ...base, precisionPct: 0.1 });
    expect(never.reached).toBe(false);
    expect(never.overBudget).toBe(false);
  });
});

describe("calibrate's scenarios and layout", () => {
  const quick = load("scenarios/quick.yaml");

  it("derives an A/A scenario of the first server against itself on at most 2 cells", () => {
    const aa = aaScenario(quick, 5);
    expect(aa.servers.map((s) => [s.id, s.image])).toEqual([
      ["a", "mariadb-11.8"],
      ["b", "mariadb-11.8"],
    ]);
    expect(aa.compare).toEqual({ numerator: "a", denominator: "b" });
    expect(aa.workload.tests).toEqual(["oltp_read_only", "oltp_point_select"]);
    expect(aa.workload.threads).toEqual([1]);
    expect(aa.workload.repeats).toBe(5);
    for (const k of ["duration", "warmup", "tables", "tableSize"] as const)
      expect(aa.workload[k]).toEqual(quick.workload[k]);
    expect(aa.storage).toEqual(quick.storage);
    expect(aa.resources).toEqual(quick.resources);
    expect(aa.load).toEqual(quick.load);
    expect(planRun(aa).cells).toHaveLength(20);
    const oneTest = aaScenario({ ...quick, workload: { ...quick.workload, tests: ["oltp_point_select"] } }, 2);
    expect(oneTest.workload.threads).toEqual([1, 4]);
  });

  it("derives a one-server series scenario", () => {
    const s = seriesScenario(quick, 90);
    expect(s.servers).toHaveLength(1);
    expect(s.workload.duration).toBe("90s");
    expect(planRun(s).cells).toHaveLength(1);
  });

  it("lays calibrate out within its time by the plan's model", () => {
    const l = calibrationLayout(quick, 600);
    expect(l.fits).toBe(true);
    expect(l.estimateSeconds).toBeLessThanOrEqual(600);
    expect(l.seriesSeconds).toBe(90);
    expect(l.instances).toBe(3);
    expect(l.repeats * l.cells * l.instances).toBeGreaterThanOrEqual(12);
    const tiny = calibrationLayout(quick, 60);
    expect(tiny.fits).toBe(false);
    expect(tiny.repeats).toBe(2);
  });
});

describe("plan --precision", () => {
  const adaptive = (precision: string, budget?: string) =>
    load("scenarios/quick.yaml", (d) => {
      d.workload.repeats = { min: 4, max: 40, precision };
      if (budget) d.workload.budget = budget;
    });

  it("uses the host's calibration and its seconds per pair", () => {
    const s = adaptive("10%");
    const c = cal({ pairSdPct: 8, instanceSdPct: 2, secondsPerPair: 20, cellSeconds: 7 });
    const p = predictPrecision(s, c)!;
    expect(p.source).toBe("calibration");
    expect(p.best).not.toBeNull();
    expect(p.best!.halfWidthPct).toBeLessThanOrEqual(10);
    expect(p.best!.seconds).toBeCloseTo(
      runSeconds(s, p.best!.pairs, p.best!.instances, { secondsPerPair: 20, calCellSeconds: 7 }),
      6,
    );
    const lines = precisionLines(p, c, c.hostKey).join("\n");
    expect(lines).toContain("host calibration test-host");
    expect(lines).toContain(
      `${p.best!.pairs} pairs per cell over ${p.best!.instances} server instance${p.best!.instances === 1 ? "" : "s"}`,
    );
    // The layout is the run's own: instances from the setting, a new one every ceil(min / setting) rounds.
    expect(p.best!.instances).toBe(Math.ceil(p.best!.pairs / Math.ceil(4 / p.best!.setting!)));
    expect(lines).toContain("cell length 7 s");
  });

  it("without a calibration, says what it assumed and suggests calibrate", () => {
    const p = predictPrecision(adaptive("10%"), null)!;
    expect(p.source).toBe("assumed");
    const lines = precisionLines(p, null, "k").join("\n");
    expect(lines).toContain("assumed pair sd 11%");
    expect(lines).toContain("twinbench calibrate");
    // the expected coverage and A/A false verdicts of the printed intervals, from the same simulated runs
    expect(lines).toMatch(
      /expected of the printed 95% intervals \(A\/A, the same 200 simulated runs, \d+ intervals\): coverage \d+\.\d%, false faster\/slower \d+\.\d% per cell/,
    );
    const iv = p.simulated!.intervals;
    expect(lines).toContain(`coverage ${(100 * iv.coverage!).toFixed(1)}%`);
  });

  it("says when the budget cannot reach the target", () => {
    const p = predictPrecision(adaptive("5%", "5m"), cal({ pairSdPct: 11, instanceSdPct: 0 }))!;
    expect(p.best).toBeNull();
    expect(p.overBudget).toBe(true);
    expect(precisionLines(p, null).join("\n")).toContain("cannot be reached within the budget 5m 00s");
  });

  it("gives nothing without a precision target", () => {
    expect(
      predictPrecision(
        load("scenarios/quick.yaml", (d) => {
          d.workload.repeats = 2;
        }),
        cal(),
      ),
    ).toBeNull();
  });

  it("predicts the run by simulating its stopping rule: the time model's costs, more time at more noise", () => {
    const s = adaptive("10%", "15m");
    const quiet = predictPrecision(s, cal({ pairSdPct: 3, instanceSdPct: 0, secondsPerPair: 16, cellSeconds: 7 }), {
      runs: 60,
    })!;
    const noisy = predictPrecision(s, cal({ pairSdPct: 11, instanceSdPct: 3, secondsPerPair: 16, cellSeconds: 7 }), {
      runs: 60,
    })!;
    expect(quiet.simulated).not.toBeNull();
    expect(quiet.simulated!.rounds.median).toBeGreaterThanOrEqual(4); // min 4
    expect(quiet.simulated!.seconds.median).toBeGreaterThanOrEqual(
      runSeconds(s, 4, 2, { secondsPerPair: 16, calCellSeconds: 7 }) - 1e-6,
    );
    expect(noisy.simulated!.seconds.median).toBeGreaterThan(quiet.simulated!.seconds.median);
    expect(noisy.simulated!.seconds.high).toBeLessThanOrEqual(900);
    const lines = precisionLines(noisy, null).join("\n");
    expect(lines).toMatch(/expected run: about \d+m \d+s \(80% of runs/);
    expect(lines).toContain("simulated 60 times");
  });

  it("prints a calibration", () => {
    const text = calibrationLines(cal({ perSecond: seriesStats([1, 2, 3, 4, 5, 6, 7, 8]) }), "/x.json").join("\n");
    expect(text).toContain("pair sd 10.0% (df 20)");
    expect(text).toContain("between server instances: sd 4.0%");
    expect(text).toContain("CV of 2 s block means");
  });
});

describe("calibration store", () => {
  it("round-trips a calibration and gives null for a host never calibrated", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tb-cal-"));
    expect(await readCalibration("test-host", dir)).toBeNull();
    const file = await writeCalibration(cal(), dir);
    expect(file).toBe(calibrationFile("test-host", dir));
    expect(await readCalibration("test-host", dir)).toEqual(cal());
    const spread = cal({
      cellSpread: [
        {
          at: "2026-12-04T00:00:00.000Z",
          cells: [
            { s2: 0.01, df: 3 },
            { s2: 0, df: 1 },
          ],
        },
      ],
    });
    await writeCalibration(spread, dir);
    expect(await readCalibration("test-host", dir)).toEqual(spread);
  });

  it("refuses a damaged file loudly, naming it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tb-cal-"));
    const file = calibrationFile("test-host", dir);
    for (const [text, reason] of [
      ["{ not json", /invalid JSON/],
      ["", /empty/],
      [JSON.stringify({ ...cal(), pairSdPct: "x" }), /pairSdPct is not a number/],
      [JSON.stringify({ ...cal(), hostKey: "other" }), /does not match the file name/],
      [
        JSON.stringify({ ...cal(), cellSpread: [{ at: "x", cells: [{ s2: "big", df: 1 }] }] }),
        /cellSpread is not a list/,
      ],
    ] as const) {
      writeFileSync(file, text);
      const e = await readCalibration("test-host", dir).catch((x: unknown) => x);
      expect(e).toMatchObject({ code: "CALIBRATION_FILE_CORRUPT" });
      expect((e as Error).message).toContain(file);
      expect((e as Error).message).toMatch(reason);
      expect((e as { hint: string }).hint).toContain("twinbench calibrate");
    }
  });
});

describe("recalibrated: a fresh calibrate keeps what only runs measure", () => {
  const previous = cal({
    pairSdPct: 9,
    setupSeconds: 120,
    teardownSeconds: 4,
    restartSecondsPerServer: 15,
    costShape: { rows: 2_000_000, storage: "raid0" },
    cellSpread: [
      {
        at: "2026-12-06T06:40:41Z",
        cells: [
          { s2: 0.003, df: 12 },
          { s2: 0.2, df: 12 },
        ],
        shape: { rows: 2_000_000, storage: "raid0" },
      },
    ],
    cellLengthCurve: [
      { cellSeconds: 10, pairSdPct: 8.7, pairDf: 6 },
      { cellSeconds: 30, pairSdPct: 5.2, pairDf: 6 },
    ],
  });
  it("keeps costs, their shape and the cells' spread; the new noise figures win", () => {
    const fresh = cal({ pairSdPct: 4, measuredAt: "2026-12-07T00:00:00Z" });
    const out = recalibrated(fresh, previous);
    expect(out.pairSdPct).toBe(4);
    expect(out.measuredAt).toBe("2026-12-07T00:00:00Z");
    expect(out.setupSeconds).toBe(120);
    expect(out.teardownSeconds).toBe(4);
    expect(out.restartSecondsPerServer).toBe(15);
    expect(out.costShape).toEqual({ rows: 2_000_000, storage: "raid0" });
    expect(out.cellSpread).toEqual(previous.cellSpread);
    expect(out.cellLengthCurve).toEqual(previous.cellLengthCurve);
  });
  it("a newly measured curve replaces the old one", () => {
    const curve = [{ cellSeconds: 90, pairSdPct: 2, pairDf: 3 }];
    expect(recalibrated(cal({ cellLengthCurve: curve }), previous).cellLengthCurve).toEqual(curve);
  });
  it("no previous file, or another host's: the fresh calibration alone", () => {
    const fresh = cal({ pairSdPct: 4 });
    expect(recalibrated(fresh, null)).toEqual(fresh);
    expect(recalibrated(fresh, { ...previous, hostKey: "other-host" })).toEqual(fresh);
  });
});
