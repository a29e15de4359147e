/** A calibration's printout (calibrate --show): pair sd, instance sd, the per-second series. */
import { describe, expect, it } from "vitest";
import { calibrationLines } from "../../../src/core/report/calibration.ts";
import { seriesStats } from "../../../src/core/stats/series.ts";
import { calibrationFixture } from "../../support/calibration-fixture.ts";

const cal = calibrationFixture({});

describe("calibrationLines", () => {
  it("prints a calibration", () => {
    const text = calibrationLines(cal({ perSecond: seriesStats([1, 2, 3, 4, 5, 6, 7, 8]) }), "/x.json").join("\n");
    expect(text).toContain("pair sd 10.0% (df 20)");
    expect(text).toContain("between server instances: sd 4.0%");
    expect(text).toContain("CV of 2 s block means");
  });
});
