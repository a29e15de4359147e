/** The calibration store: a calibration round-trips, a host never calibrated reads as null, a damaged file is refused. */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { calibrationFile, readCalibration, writeCalibration } from "../../../src/adapters/calibration-store.ts";
import { calibrationFixture } from "../../support/calibration-fixture.ts";

const cal = calibrationFixture({});

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
