/**
 * twinbench/testing's gate on the synthetic "repeats" results folder: it fails only when the whole interval is
 * beyond the bound, says the estimate and the interval, and refuses cells that cannot vouch (failed, missing,
 * no interval). The runs behind a gate are real (test/integration/testing-gate.test.ts); this is the arithmetic.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readResultsFolder } from "../../../src/adapters/report-files.ts";
import { buildRunReport, type RunReport } from "../../../src/core/report/model.ts";
import { expectRatio, RatioGateError } from "../../../src/testing/index.ts";

const load = async (): Promise<RunReport> => {
  const f = await readResultsFolder(join(import.meta.dirname, "../../fixtures/results/repeats"));
  return buildRunReport(f.manifest, f.cells);
};

describe("expectRatio", () => {
  it("passes a bound inside or below the interval, fails one above its high end with estimate and interval", async () => {
    const report = await load();
    const cell = { test: "oltp_point_select", threads: 1 }; // 90.0 [87.5–92.5], 3 pairs (its own variance: noisier than the table's prior)
    expect(() => expectRatio(report, cell).atLeast(85)).not.toThrow();
    expect(() => expectRatio(report, cell).atLeast(91)).not.toThrow(); // inside the interval: not significant
    let err: unknown;
    try {
      expectRatio(report, cell).atLeast(95);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(RatioGateError);
    expect(err).toMatchObject({ code: "RATIO_BELOW_BOUND", bound: 95 });
    expect((err as Error).message).toMatch(
      /oltp_point_select @ 1 threads: mariadb\/mysql qps = 90\.0% \[87\.5–92\.5\] \(95% interval, 3 pairs\): significantly below 95%/,
    );
  });

  it("atMost fails only when the interval's low end is above the bound", async () => {
    const report = await load();
    const cell = { test: "oltp_read_only", threads: 1 }; // 109.7 [87.5–137.6]
    expect(() => expectRatio(report, cell).atMost(100)).not.toThrow();
    expect(() => expectRatio(report, cell).atMost(80)).toThrow(
      /significantly above 80% \(the interval's low end 87\.5% > 80%\)/,
    );
  });

  it("refuses failed, missing and unknown cells instead of passing them", async () => {
    const report = await load();
    expect(() => expectRatio(report, { test: "oltp_point_select", threads: 4 })).toThrow(
      expect.objectContaining({ code: "RATIO_CELL_MISSING" }),
    );
    expect(() => expectRatio(report, { test: "oltp_point_select", threads: 8 })).toThrow(
      expect.objectContaining({ code: "RATIO_CELL_MISSING" }),
    );
    expect(() => expectRatio(report, { test: "oltp_delete", threads: 1 })).toThrow(/no cell oltp_delete @ 1 threads/);
  });
});
