/** The cells' noise model from earlier runs on the same data (cellNoiseModel), on fixtures. */
import { describe, expect, it } from "vitest";
import { cellNoiseModel } from "../../../../src/core/plan/calibration/cell-model.ts";
import type { CellSpreadRun, CostShape } from "../../../../src/core/plan/calibration/schema.ts";
import { gammaFrom, seededRandom } from "../../../../src/core/base/random.ts";

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

describe("cellNoiseModel", () => {
  it("needs 2 runs on this data that recorded cell length and named cells", () => {
    expect(cellNoiseModel({ cellSpread: [seed1] }, RAID, names)).toBeNull();
    expect(
      cellNoiseModel(
        {
          cellSpread: [
            seed1,
            run("x", [0.05, 0.05, 0.05, 0.05, 0.05, 0.05], { shape: { rows: 10_000, storage: "tmpfs" } }),
          ],
        },
        RAID,
        names,
      ),
    ).toBeNull();
    expect(cellNoiseModel({ cellSpread: [seed1, { ...seed2, cellSeconds: undefined }] }, RAID, names)).toBeNull();
    const unnamed = { ...seed2, cells: seed2.cells.map(({ s2, df }) => ({ s2, df })) };
    expect(cellNoiseModel({ cellSpread: [seed1, unnamed] }, RAID, names)).toBeNull();
    expect(cellNoiseModel(null, RAID, names)).toBeNull();
  });

  it("a cell that stalls in every run keeps its level; the others share theirs; a new cell gets the typical one", () => {
    const m = cellNoiseModel({ cellSpread: [seed1, seed2] }, RAID, [...names, "update_index@128"])!;
    expect(m.runs).toBe(2);
    expect(m.cellSeconds).toBe(5);
    const by = new Map(m.cells.map((c) => [c.cell, c]));
    const stall = Math.exp(by.get("update_index@64")!.logSd);
    const quiet = Math.exp(by.get("oltp_simple@1")!.logSd);
    expect(stall).toBeGreaterThan(0.25); // its runs: 46.5% and 72.8%
    expect(stall).toBeLessThan(0.6); // shrunk toward the others
    expect(quiet).toBeGreaterThan(0.04);
    expect(quiet).toBeLessThan(0.1);
    expect(by.get("update_index@64")!.pastSdPct.map((x) => Math.round(x * 10) / 10)).toEqual([46.5, 72.8]);
    // Both levels are there: between cells (the stall) and between runs of one cell (oltp_simple@64: 6.4% then 1.1%).
    expect(m.between).toBeGreaterThan(1);
    expect(m.within).toBeGreaterThan(0.5);
    const fresh = by.get("update_index@128")!;
    expect(fresh.runs).toBe(0);
    expect(fresh.logSd).toBeCloseTo(m.muLogVar / 2, 12);
    expect(fresh.logSdSpread).toBeCloseTo(Math.sqrt(m.between + m.within) / 2, 12);
    // The cell's own runs narrow its range: a cell seen twice is surer than a cell never seen.
    expect(by.get("oltp_simple@1")!.logSdSpread).toBeLessThan(fresh.logSdSpread);
  });

  it("cells that do not differ beyond sampling: no level between cells or runs, every cell near the common sd", () => {
    const rand = seededRandom(7);
    const gamma = gammaFrom(rand);
    const runs = Array.from({ length: 4 }, (_, r) => ({
      at: `r${r}`,
      shape: RAID,
      cellSeconds: 5,
      cells: names.map((cell) => ({ cell, df: 11, s2: (0.05 ** 2 * 2 * gamma(11 / 2)) / 11 })),
    }));
    const m = cellNoiseModel({ cellSpread: runs }, RAID, names)!;
    expect(m.between).toBeLessThan(0.15);
    expect(m.within).toBeLessThan(0.15);
    for (const c of m.cells) {
      expect(Math.exp(c.logSd)).toBeGreaterThan(0.04);
      expect(Math.exp(c.logSd)).toBeLessThan(0.062);
    }
  });

  it("runs at another cell length are moved to the newest run's length by the curve's ratio", () => {
    const old = run("2026-12-05T00:00:00Z", [0.114, 0.068, 0.93, 0.152, 0.146, 0.128], { cellSeconds: 20 });
    const m = cellNoiseModel({ cellSpread: [old, seed1] }, RAID, names, (from, to) =>
      from === 20 && to === 5 ? 0.5 : 1,
    )!;
    expect(m.cellSeconds).toBe(5);
    // Halved, the old run equals seed1: no spread between runs.
    expect(m.within).toBe(0);
  });
});
