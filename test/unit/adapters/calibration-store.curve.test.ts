/** The cell-length curve in the calibration file: round-trip, a damaged curve, and calibrate --show's lines. */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { calibrationLines } from "../../../src/core/report/calibration.ts";
import { calibrationFile, readCalibration, writeCalibration } from "../../../src/adapters/calibration-store.ts";
import { calibrationFixture } from "../../support/calibration-fixture.ts";

const cal = calibrationFixture({ secondsPerPair: 16 });

describe("the curve in the calibration file", () => {
  const curve = [
    { cellSeconds: 10, pairSdPct: 12.5, pairDf: 6 },
    { cellSeconds: 30, pairSdPct: 9.1, pairDf: 6 },
  ];

  it("round-trips; a file without it (written before the curve was kept) still loads", async () => {
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
