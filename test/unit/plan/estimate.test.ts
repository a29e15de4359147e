/** The plan's time estimate: measure, warm-ups, set-up, snapshots and restores, sized by the data each server holds. */
import { describe, expect, it } from "vitest";
import { planRun } from "../../../src/core/plan/plan.ts";
import { sizedSeconds } from "../../../src/core/plan/estimate.ts";
import { formatSeconds } from "../../../src/core/base/units.ts";
import { DEFAULT_SETUP_COSTS } from "../../../src/core/model/setup-costs.ts";
import type { Scenario } from "../../../src/core/model/scenario/schema.ts";
import { scenario as scenarioOf, scenarioFile, type ScenarioDoc } from "../../support/scenario.ts";

const BASE = {
  workload: {
    tests: ["oltp_read_only", "oltp_update_index"],
    threads: [1, 4],
    duration: "10s",
    repeats: 2,
    tables: 2,
    tableSize: 10000,
  },
};
const scenario = (patch: (d: ScenarioDoc) => void = () => {}): Scenario => scenarioOf([BASE, patch]);
const load = (f: string) => scenarioFile(f);

describe("estimates", () => {
  it("adds measure, warm-up and set-up from the costs", () => {
    const s = scenario((d) => (d.workload.warmup = "5s"));
    const e = planRun(s, {
      setupCosts: {
        cellOverheadSeconds: 0,
        prewarmSeconds: 0,
        prewarmSecondsPerMillionRows: 0,
        prepareRowsPerSecond: 20000,
      },
    }).estimate;
    expect(e.measureSeconds).toBe(16 * 10);
    expect(e.warmupSeconds).toBe(4 * 5);
    // images 3×2, start 2×15, prepare 2×(2×10000)/20000, teardown 2×5
    expect(e.setupSeconds).toBe(6 + 30 + 2 + 10);
    expect(e.totalSeconds).toBe(160 + 20 + 48);
    expect(e.approximate).toBe(false);
    expect(e.breakdown.map((b) => b.label)).toContain("measure (16 cells × 10 s)");
  });

  it("counts snapshots and restores for fresh: per-test; each restore is prewarmed like after prepare", () => {
    const s = scenario((d) => (d.workload.fresh = "per-test"));
    const base = planRun(scenario()).estimate.totalSeconds;
    const c = DEFAULT_SETUP_COSTS;
    // 2 tables × 10 000 rows a server: each data-moving cost adds its part per million rows at 0.02 M rows.
    const at = (fixed: number, perM: number) => Math.round(sizedSeconds(fixed, perM, 20000) * 10) / 10;
    const snapshot = at(c.snapshotSeconds, c.snapshotSecondsPerMillionRows);
    const prewarm = at(c.prewarmSeconds, c.prewarmSecondsPerMillionRows);
    const restore = at(c.restoreSeconds, c.restoreSecondsPerMillionRows);
    expect(planRun(s).estimate.totalSeconds).toBeCloseTo(base + 2 * snapshot + 2 * (restore + prewarm), 6);
    const cold = scenario((d) => ((d.workload.fresh = "per-test"), (d.workload.prewarm = false)));
    const coldBase = planRun(scenario((d) => (d.workload.prewarm = false))).estimate.totalSeconds;
    expect(planRun(cold).estimate.totalSeconds).toBeCloseTo(coldBase + 2 * snapshot + 2 * restore, 6);
  });

  it("the costs that move data grow with the rows each server holds (a 2 M-row table on RAID 0)", () => {
    const big = scenario(
      (d) => (
        (d.workload.tables = 1),
        (d.workload.tableSize = 2_000_000),
        (d.workload.instances = 3),
        (d.workload.repeats = 3)
      ),
    );
    const items = Object.fromEntries(planRun(big).estimate.breakdown.map((b) => [b.label.replace(/ \(.*$/, ""), b]));
    // prepare at 130 k rows/s (measured 128–143 k): about 15 s a server, where 20 k rows/s said 100 s
    expect(items["prepare"]!.seconds).toBeCloseTo((2 * 2_000_000) / 130000, 1);
    // prewarm 2 + 6.5 s per million rows: 15 s a server (measured 7.7 and 22.3 s)
    expect(items["prewarm"]!.label).toBe("prewarm (2 × 15 s)");
    // a new instance: 6 + 5.25 s per million rows a server = 16.5 s (measured 11.3 and 22.2 s; 32–34 s for both)
    expect(items["instance restarts"]!.label).toMatch(/^instance restarts \(2 × 2 servers × 16\.5 s/);
    expect(items["instance restarts"]!.seconds).toBeCloseTo(2 * 2 * 16.5, 6);
  });

  it("events-bound cells use a rough rate and say so", () => {
    const e = planRun(load("scenarios/seed-kernel-ro300.yaml"), { setupCosts: { eventsPerSecond: 1000 } }).estimate;
    expect(e.measureSeconds).toBe(20);
    expect(e.approximate).toBe(true);
    expect(e.notes[0]).toMatch(/guess at ~1000 events\/s/);
  });

  it("quick.yaml: its first min rounds fit well inside its budget; its fixed-count form and quick-raid0 fit in 5 minutes", () => {
    const quick = load("scenarios/quick.yaml");
    expect(quick.workload.repeats).toEqual({ min: 4, max: 40, precision: "10%" });
    expect(quick.workload.budget).toBe("15m");
    // the minimum (4 rounds: no precision stop before 4 instances) leaves a third of the budget for more rounds
    expect(planRun(quick).estimate.totalSeconds).toBeLessThanOrEqual((900 * 2) / 3);
    const fixed = { ...quick, workload: { ...quick.workload, repeats: 2, budget: undefined } };
    expect(planRun(fixed).estimate.totalSeconds).toBeLessThanOrEqual(300);
    expect(planRun(load("scenarios/quick-raid0.yaml")).estimate.totalSeconds).toBeLessThanOrEqual(300);
  });

  it("formats durations", () => {
    expect([formatSeconds(42), formatSeconds(312), formatSeconds(33600)]).toEqual(["42s", "5m 12s", "9h 20m"]);
  });
});
