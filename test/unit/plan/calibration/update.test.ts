/** Updating a calibration: pooled pair residuals, df weights, seconds per pair, cell spread, and recalibration. */
import { describe, expect, it } from "vitest";
import { typicalNoise, updateCalibration, recalibrated } from "../../../../src/core/plan/calibration/update.ts";
import { cellPriorDf } from "../../../../src/core/plan/calibration/cell-model.ts";
import {
  aaPairsByCell,
  pooledResiduals,
  seriesDisturbance,
  runCellSpread,
} from "../../../../src/core/plan/calibration/pairs.ts";
import { PAIR_COST_RUNS } from "../../../../src/core/plan/calibration/costs.ts";
import { CELL_SPREAD_RUNS } from "../../../../src/core/plan/calibration/schema.ts";
import { cellVariances } from "../../../../src/core/stats/nested-sd.ts";
import { ASSUMED_CELL_PRIOR_DF } from "../../../../src/core/stats/simulate.ts";
import type { CellRecord } from "../../../../src/core/model/results.ts";
import { calibrationFixture } from "../../../support/calibration-fixture.ts";
import { cellRecord, sysbench } from "../../../support/record.ts";

const cal = calibrationFixture({});

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
    // Five cells at about 5% and one at 50% (12 df each), like a reduced seed run on RAID 0 on this project's VM.
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
      // repeat 3: disturbed in its last attempt too (as in a seed run: 8.9 k q/s against 15.3 k): left out
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
