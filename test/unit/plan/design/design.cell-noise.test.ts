/** The design forecasts recorded cells one by one: per-cell ranges, their pricing by data shape, a seeded check. */
import { describe, expect, it } from "vitest";
import type { CellSpreadRun, CostShape } from "../../../../src/core/plan/calibration/schema.ts";
import { designForBudget, designForecast } from "../../../../src/core/plan/design/design.ts";
import { designLines } from "../../../../src/core/report/design.ts";
import type { Scenario } from "../../../../src/core/model/scenario/schema.ts";
import { gammaFrom, normalFrom, seededRandom } from "../../../../src/core/base/random.ts";
import { simulateAdaptive } from "../../../../src/core/stats/simulate.ts";
import { calibrationFixture } from "../../../support/calibration-fixture.ts";
import { scenario as scenarioOf } from "../../../support/scenario.ts";

const RAID: CostShape = { rows: 2_000_000, storage: "raid0" };
const names = [
  "update_index@1",
  "update_index@8",
  "update_index@64",
  "oltp_simple@1",
  "oltp_simple@8",
  "oltp_simple@64",
];

/** A run's cells with these pair sds (fractions), df 11 each (12 rounds). */
const run = (at: string, sds: number[], o: Partial<CellSpreadRun> = {}): CellSpreadRun => ({
  at,
  shape: RAID,
  cellSeconds: 5,
  cells: sds.map((sd, i) => ({ s2: sd * sd, df: 11, cell: names[i] })),
  ...o,
});

// The two reduced seed runs on this project's VM (seed1, seed2): update_index at 64 threads stalled in both.
const seed1 = run("2026-12-06T06:40:41Z", [0.057, 0.034, 0.465, 0.076, 0.073, 0.064]);
const seed2 = run("2026-12-06T07:18:31Z", [0.076, 0.086, 0.728, 0.077, 0.04, 0.011]);

const scenario = (): Scenario =>
  scenarioOf({
    storage: { kind: "raid0", loop: { members: 2, size: "4g" } },
    workload: {
      tests: ["update_index", "oltp_simple"],
      threads: [1, 8, 64],
      duration: "5s",
      repeats: 1,
      tables: 1,
      tableSize: 2_000_000,
      fresh: "per-test",
    },
  });

describe("the design forecasts recorded cells one by one", () => {
  const cal = calibrationFixture({
    cellSeconds: 5,
    pairSdPct: 4.6,
    pairDf: 100,
    instanceSdPct: null,
    instanceDf: 0,
    pairHoldsInstances: true,
    secondsPerPair: null,
  });
  it("prints each cell's range and its record, names the stalling cell, and keeps the ranges in run.json", () => {
    const d = designForBudget({
      scenario: scenario(),
      budgetSeconds: 1800,
      calibration: cal({ cellSpread: [seed1, seed2] }),
      runs: 60,
      lengths: [5, 10],
    });
    expect(d.cellForecast).not.toBeNull();
    const stall = d.cellForecast!.find((c) => c.cell === "update_index@64")!;
    const quiet = d.cellForecast!.find((c) => c.cell === "oltp_simple@1")!;
    expect(stall.halfWidthPct!.median).toBeGreaterThan(4 * quiet.halfWidthPct!.median);
    const text = designLines(d, { details: true }).join("\n");
    expect(text).toContain("each cell from its own earlier runs on this data (2 runs at 5 s cells");
    expect(text).toMatch(
      /update_index@64: expected ±\d+\.\d% \(80%: ±\d+\.\d%–±\d+\.\d%\): its pair sd was 46\.5%, 72\.8% in the last 2 runs on this data/,
    );
    const f = designForecast(d, "2026-12-06T10:00:00Z");
    expect(f.cells?.map((c) => c.cell)).toEqual(names);
  });
  it("prices a new instance at what runs measured on data of this shape, and only on that shape", () => {
    const measured = { restartSecondsPerServer: 30, teardownSeconds: 8, costShape: RAID };
    const line = (d: ReturnType<typeof designForBudget>) =>
      designLines(d, { details: true }).find((l) => l.includes("instance restarts"))!;
    const here = designForBudget({
      scenario: scenario(),
      budgetSeconds: 1800,
      calibration: cal(measured),
      runs: 20,
      lengths: [5],
    });
    expect(line(here)).toMatch(/× 2 servers × 30 s/);
    expect(designLines(here, { details: true }).join("\n")).toContain("teardown (2 × 4 s)");
    const elsewhere = designForBudget({
      scenario: scenario(),
      budgetSeconds: 1800,
      calibration: cal({ ...measured, costShape: { rows: 10_000, storage: "tmpfs" } }),
      runs: 20,
      lengths: [5],
    });
    expect(line(elsewhere)).toMatch(/× 2 servers × 16\.5 s/);
  });

  it("without 2 named runs on this data: one shared range, as before", () => {
    const d = designForBudget({
      scenario: scenario(),
      budgetSeconds: 1800,
      calibration: cal({ cellSpread: [seed1] }),
      runs: 40,
      lengths: [5],
    });
    expect(d.cellForecast).toBeNull();
    expect(designForecast(d, "x").cells).toBeUndefined();
    expect(designLines(d, { details: true }).join("\n")).toContain("every cell (one pair sd for the host)");
  });

  it("seeded: with a known two-level truth, each cell's 80% range holds the next run's width about 80% of the time", () => {
    // Truth: ln pair sd = m + a(cell) + e(cell, run), a ~ N(0, 0.6), e ~ N(0, 0.4); 3 recorded runs, then the real one.
    // The real run is the shipped simulation of the same design with each cell's drawn sd fixed (spread 0).
    const s = scenario();
    const rand = seededRandom(2026);
    const z = normalFrom(rand);
    const gamma = gammaFrom(rand);
    let inside = 0;
    let total = 0;
    for (let k = 0; k < 30; k++) {
      const a = names.map(() => 0.6 * z());
      const draw = () => names.map((_, i) => Math.exp(Math.log(0.05) + a[i]! + 0.4 * z()));
      const history = [0, 1, 2].map((r) => {
        const sds = draw();
        return {
          at: `r${r}`,
          shape: RAID,
          cellSeconds: 5,
          cells: sds.map((sd, i) => ({ cell: names[i], df: 11, s2: (sd * sd * 2 * gamma(11 / 2)) / 11 })),
        };
      });
      const d = designForBudget({
        scenario: s,
        budgetSeconds: 1800,
        calibration: cal({ cellSpread: history }),
        runs: 100,
        lengths: [5],
      });
      const truth = draw();
      const real = simulateAdaptive({
        cellTests: [0, 0, 0, 1, 1, 1],
        servers: 2,
        min: d.chosen.rounds,
        max: d.chosen.rounds,
        precisionPct: Number.NaN,
        roundsPerInstance: d.chosen.roundsPerInstance,
        pairSdPct: 5,
        instanceSdPct: d.noise.instanceSdPct,
        cellPriorDf: Number.POSITIVE_INFINITY,
        costs: { setupSeconds: 0, teardownSeconds: 0, cellSeconds: 1, restartSeconds: 0, warmupSeconds: 0 },
        runs: 1,
        seed: 100 + k,
        sequential: false,
        cellSd: () => truth,
      });
      d.cellForecast!.forEach((f, i) => {
        const w = real.cellHalfWidthPct[i]!.median;
        total++;
        if (w >= f.halfWidthPct!.low && w <= f.halfWidthPct!.high) inside++;
      });
    }
    // 180 cells; a calibrated 80% range holds 144 of them (binomial sd 5.4). Seeds 1, 7, 99 and 2026 at 40 designs
    // each gave 77.5, 77.9, 77.1 and 74.2%; with the model's point estimates alone (no draw of its own uncertainty)
    // 73–75%.
    expect(total).toBe(180);
    expect(inside / total).toBeGreaterThan(0.7);
    expect(inside / total).toBeLessThan(0.88);
  });
});
