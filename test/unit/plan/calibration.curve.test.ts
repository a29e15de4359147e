/** Pair sd against cell length (issue 28 §4): the curve from calibrate's A/A runs, its layout, storage and lines. */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CURVE_PAIRS, calibrationLayout, curveScenario } from "../../../src/core/plan/calibrate-layout.ts";
import { calibrationLines } from "../../../src/core/report/calibration.ts";
import { cellLengthCurve } from "../../../src/core/plan/calibration/update.ts";
import { isCellLengthCurve } from "../../../src/core/plan/calibration/schema.ts";
import { nestedSd } from "../../../src/core/stats/nested-sd.ts";
import { planRun } from "../../../src/core/plan/plan.ts";
import { calibrationFile, readCalibration, writeCalibration } from "../../../src/adapters/calibration-store.ts";
import { parseLengths } from "../../../src/cli/commands/calibrate.ts";
import { calibrationFixture } from "../../support/calibration-fixture.ts";
import { scenarioFile } from "../../support/scenario.ts";

const quick = scenarioFile("scenarios/quick.yaml");

const cal = calibrationFixture({ secondsPerPair: 16 });

describe("cellLengthCurve", () => {
  it("one point per length: the pair sd within each run's cells (nestedSd), sorted by length; no df, no point", () => {
    const at10 = [
      new Map([
        ["t|1", [0.1, -0.1, 0.05]],
        ["t|2", [0.02, 0.0]],
      ]),
      new Map([["t|1", [0.2, 0.1]]]),
    ];
    const at30 = [new Map([["t|1", [0.03, -0.03, 0.01, 0.0]]])];
    const none = [new Map([["t|1", [0.5]]])];
    const curve = cellLengthCurve(
      new Map([
        [30, at30],
        [10, at10],
        [90, none],
      ]),
    );
    expect(curve.map((p) => p.cellSeconds)).toEqual([10, 30]);
    const want10 = nestedSd([
      [
        [0.1, -0.1, 0.05],
        [0.2, 0.1],
      ],
      [[0.02, 0.0], []],
    ]);
    expect(curve[0].pairSdPct).toBeCloseTo(want10.pairSdPct, 10);
    expect(curve[0].pairDf).toBe(want10.pairDf);
    expect(curve[1].pairDf).toBe(3);
    // By hand: mean 0.0025, squares about it.
    const xs = [0.03, -0.03, 0.01, 0.0];
    const m = xs.reduce((a, b) => a + b, 0) / 4;
    expect(curve[1].pairSdPct).toBeCloseTo(Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / 3) * 100, 10);
  });

  it("isCellLengthCurve accepts the stored shape and refuses others", () => {
    expect(isCellLengthCurve([{ cellSeconds: 10, pairSdPct: 9, pairDf: 4 }])).toBe(true);
    expect(isCellLengthCurve([])).toBe(true);
    expect(isCellLengthCurve([{ cellSeconds: 10, pairSdPct: "9", pairDf: 4 }])).toBe(false);
    expect(isCellLengthCurve([{ cellSeconds: 0, pairSdPct: 9, pairDf: 4 }])).toBe(false);
    expect(isCellLengthCurve({})).toBe(false);
  });
});

describe("calibrate's layout with --lengths", () => {
  it("one A/A run per length, CURVE_PAIRS pairs at that cell length, inside the estimate", () => {
    const base = calibrationLayout(quick, 3600);
    const l = calibrationLayout(quick, 3600, { lengths: [30, 10, 90, 10] });
    expect(base.curve).toEqual([]);
    expect(l.curve.map((c) => c.cellSeconds)).toEqual([10, 30, 90]);
    expect(l.curve.every((c) => c.repeats === CURVE_PAIRS)).toBe(true);
    expect(l.curve.at(-1)!.cells).toBe(1); // long cells on one cell
    const s = curveScenario(quick, 30, 2);
    expect(s.workload.duration).toBe("30s");
    expect(s.workload.repeats).toBe(CURVE_PAIRS);
    expect(planRun(s).cells).toHaveLength(2 * 2 * CURVE_PAIRS);
    const curveSeconds = l.curve.reduce((a, c) => a + c.runSeconds, 0);
    expect(curveSeconds).toBeGreaterThan(4 * 2 * 90); // the 90 s run alone measures 8 cells of 90 s
    expect(l.estimateSeconds).toBeLessThanOrEqual(3600);
    expect(l.estimateSeconds).toBeGreaterThanOrEqual(curveSeconds);
  });

  it("--lengths takes whole seconds from 2, comma-separated", () => {
    expect(parseLengths("10,30,90")).toEqual([10, 30, 90]);
    expect(parseLengths(undefined)).toBeUndefined();
    for (const bad of ["10,x", "1", "", "10,,30", "2.5"]) expect(() => parseLengths(bad)).toThrow(/--lengths/);
  });
});

describe("the curve in the calibration file", () => {
  const curve = [
    { cellSeconds: 10, pairSdPct: 12.5, pairDf: 6 },
    { cellSeconds: 30, pairSdPct: 9.1, pairDf: 6 },
  ];

  it("round-trips; a file without it (written before issue 28) still loads", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tb-cal-"));
    await writeCalibration(cal({ cellLengthCurve: curve }), dir);
    expect((await readCalibration("test-host", dir))?.cellLengthCurve).toEqual(curve);
    const old = cal();
    expect("cellLengthCurve" in old).toBe(false);
    writeFileSync(calibrationFile("test-host", dir), JSON.stringify(old));
    expect(await readCalibration("test-host", dir)).toEqual(old);
  });

  it("a damaged curve is a damaged file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tb-cal-"));
    writeFileSync(
      calibrationFile("test-host", dir),
      JSON.stringify({ ...cal(), cellLengthCurve: [{ cellSeconds: 10 }] }),
    );
    await expect(readCalibration("test-host", dir)).rejects.toMatchObject({
      code: "CALIBRATION_FILE_CORRUPT",
      message: expect.stringMatching(/cellLengthCurve/),
    });
  });

  it("calibrate --show prints it, or says how to measure it", () => {
    const text = calibrationLines(cal({ cellLengthCurve: curve })).join("\n");
    expect(text).toContain("pair sd against cell length");
    expect(text).toContain("10 s cells: pair sd 12.5% (df 6)");
    expect(text).toContain("30 s cells: pair sd 9.1% (df 6)");
    expect(calibrationLines(cal()).join("\n")).toContain(
      "pair sd against cell length: not measured (`twinbench calibrate --lengths 10,30,90`)",
    );
    // The cells of the last runs and the measured costs, with the data they were measured on.
    const more = calibrationLines(
      cal({
        cellSpread: [
          {
            at: "2026-12-06T07:18:31Z",
            shape: { rows: 2_000_000, storage: "raid0" },
            cellSeconds: 5,
            cells: [
              { cell: "update_index@64", s2: 0.728 ** 2, df: 11 },
              { s2: 0.011 ** 2, df: 11 },
            ],
          },
        ],
        restartSecondsPerServer: 15.2,
        setupSeconds: 120,
        teardownSeconds: 3,
        costShape: { rows: 2_000_000, storage: "raid0" },
      }),
    ).join("\n");
    expect(more).toContain(
      "    2026-12-06T07:18:31Z (2000000 rows, raid0, 5 s cells): update_index@64 72.8%, cell 2 1.1%",
    );
    expect(more).toContain(
      "  measured costs: set-up 120 s, restart 15.2 s a server, teardown 3.0 s (on 2000000 rows, raid0: reused for data of that shape only)",
    );
  });
});
