/** A run's pairs folded into the host calibration at both levels: run noise, disturbed pairs, measured costs. */
import { describe, expect, it } from "vitest";
import { calibrationFromRun, updateCalibration } from "../../../../src/core/plan/calibration/update.ts";
import { costShapeOf, sameCostShape } from "../../../../src/core/plan/calibration/costs.ts";
import { disturbedPairs, runNoise } from "../../../../src/core/plan/calibration/pairs.ts";
import { runLevels } from "../../../../src/core/stats/nested-sd.ts";
import { sizedSeconds } from "../../../../src/core/plan/estimate.ts";
import { grossCellSeconds } from "../../../../src/core/plan/run-costs.ts";
import { adaptiveCosts } from "../../../../src/core/plan/precision.ts";
import { normalFrom, seededRandom } from "../../../../src/core/base/random.ts";
import type { Scenario } from "../../../../src/core/model/scenario/schema.ts";
import type { CellRecord } from "../../../../src/core/model/results.ts";
import { calibrationFixture } from "../../../support/calibration-fixture.ts";
import { scenarioFile, type ScenarioDoc } from "../../../support/scenario.ts";
import { cellRecord, sysbench } from "../../../support/record.ts";

const quick = (sets: (d: ScenarioDoc) => void = () => {}): Scenario => scenarioFile("scenarios/quick.yaml", sets);

const cal = calibrationFixture({ pairSdPct: 8, instanceSdPct: 3, instanceDf: 4 });

/** Records of `rounds` rounds of `s` (servers a, b in order), each pair's log ratio drawn at `sdPct` around `ratio`. */
function rounds(
  s: Scenario,
  n: number,
  o: { sdPct: number; seed?: number; cellSeconds?: number; ratio?: number },
): CellRecord[] {
  const z = normalFrom(seededRandom(o.seed ?? 3));
  const out: CellRecord[] = [];
  let t = Date.parse("2026-12-02T10:00:00.000Z");
  const [a, b] = s.servers.map((x) => x.id);
  for (let r = 1; r <= n; r++)
    for (const test of s.workload.tests)
      for (const threads of s.workload.threads) {
        const d = Math.log(o.ratio ?? 1.2) + (o.sdPct / 100) * z();
        for (const [server, qps] of [
          [a, 1000 * Math.exp(d)],
          [b, 1000],
        ] as const) {
          const start = new Date(t).toISOString();
          t += (o.cellSeconds ?? 8) * 1000;
          out.push({
            key: `${server}/${test}/${threads}/${r}`,
            server,
            test,
            threads,
            repeat: r,
            instance: r - 1,
            phase: "measure",
            status: "ok",
            metrics: { status: "ok", qps } as any,
            raw: "",
            startedAt: start,
            endedAt: new Date(t).toISOString(),
          } as CellRecord);
        }
      }
  return out;
}

describe("the run's pairs into the host calibration, at both levels", () => {
  const rec = (server: string, repeat: number, instance: number, qps: number): CellRecord =>
    cellRecord({
      server,
      test: "t",
      repeat,
      instance,
      metrics: sysbench({ qps }),
      startedAt: "2026-12-01T00:00:00.000Z",
      endedAt: "2026-12-01T00:00:08.000Z",
    });

  it("runNoise: pair level within instances, instance level between them", () => {
    // instance 0: ratios 1.1, 1.0; instance 1: 1.3, 1.2
    const recs = [
      rec("a", 1, 0, 110),
      rec("b", 1, 0, 100),
      rec("a", 2, 0, 100),
      rec("b", 2, 0, 100),
      rec("a", 3, 1, 130),
      rec("b", 3, 1, 100),
      rec("a", 4, 1, 120),
      rec("b", 4, 1, 100),
    ];
    const n = runNoise(recs, "a", "b")!;
    expect(n.levels).toBe("nested");
    expect(n.pairDf).toBe(2);
    expect(n.instanceDf).toBe(1);
    expect(n.instanceSdPct).toBeGreaterThan(0);
  });

  it("skipDisturbed leaves a pair out when either side was disturbed; disturbedPairs counts them", () => {
    const recs = [
      rec("a", 1, 0, 110),
      rec("b", 1, 0, 100),
      rec("a", 2, 0, 100),
      rec("b", 2, 0, 100),
      rec("a", 3, 0, 300),
      rec("b", 3, 0, 100),
    ];
    recs[5] = {
      ...recs[5],
      interference: { stealPct: 0, psiCpuSomePct: null, outsiderCores: 1.8, disturbed: true, reasons: ["outsiders"] },
    } as CellRecord;
    const all = runNoise(recs, "a", "b")!;
    const quiet = runNoise(recs, "a", "b", { skipDisturbed: true })!;
    expect(all.pairDf).toBe(2);
    expect(quiet.pairDf).toBe(1);
    expect(quiet.pairSdPct).toBeLessThan(all.pairSdPct / 3);
    expect(disturbedPairs(recs, "a", "b")).toEqual({ pairs: 3, disturbed: 1 });
  });

  it("a new instance every round: only the sum of both levels (total), no instance sd", () => {
    const n = runLevels([[[0.1], [0.0], [0.2]]])!;
    expect(n.levels).toBe("total");
    expect(n.pairDf).toBe(2);
    expect(n.instanceSdPct).toBeNull();
    expect(runLevels([[[0.1]]])).toBeNull();
  });

  it("measured costs carry their data's shape: reused only for a scenario of that shape, dropped when a run of another shape updates them", () => {
    const c = cal({ pairSdPct: 10, pairDf: 30, instanceSdPct: 4, instanceDf: 2, cellSeconds: 7 });
    const noise = {
      pairSdPct: 10,
      pairDf: 10,
      instanceSdPct: null,
      instanceDf: 0,
      pairs: 20,
      levels: "total" as const,
    };
    const raid = { rows: 2_000_000, storage: "raid0" };
    // A 2 M-row RAID 0 run measured 33 s per change of instance for both servers.
    const big = updateCalibration(c, noise, "t", {
      cellSeconds: 5,
      servers: 2,
      setupSeconds: 90,
      restartSeconds: 33,
      shape: raid,
    });
    expect(big.costShape).toEqual(raid);
    expect(big.restartSecondsPerServer).toBe(16.5);
    expect(sameCostShape(big.costShape, costShapeOf(quick()))).toBe(false);
    // quick.yaml (40 000 rows on tmpfs) does not take them: the plan's sized defaults instead.
    const q = adaptiveCosts(quick(), { measured: big });
    expect(q.restartSeconds).toBeCloseTo(2 * sizedSeconds(6, 5.25, 40000), 10);
    expect(q.setupSeconds).not.toBe(90);
    // A quick run then replaces them all: its restart, no set-up kept from the RAID 0 run.
    const back = updateCalibration(big, noise, "t", {
      cellSeconds: 7,
      servers: 2,
      restartSeconds: 7,
      shape: costShapeOf(quick()),
    });
    expect(back).toMatchObject({ restartSecondsPerServer: 3.5, costShape: { rows: 40000, storage: "tmpfs" } });
    expect(JSON.parse(JSON.stringify(back)).setupSeconds).toBeUndefined();
    expect(adaptiveCosts(quick(), { measured: back }).restartSeconds).toBe(7);
    // Rows within a factor of 2 and the same storage are one shape; a file without a shape serves small data only.
    expect(sameCostShape({ rows: 1_500_000, storage: "raid0" }, raid)).toBe(true);
    expect(sameCostShape({ rows: 2_000_000, storage: "tmpfs" }, raid)).toBe(false);
    expect(sameCostShape(undefined, { rows: 40000, storage: "tmpfs" })).toBe(true);
    expect(sameCostShape(undefined, raid)).toBe(false);
  });

  it("updateCalibration weights each level by its df, and keeps the run's measured costs", () => {
    const c = cal({ pairSdPct: 10, pairDf: 30, instanceSdPct: 4, instanceDf: 2, cellSeconds: 7 });
    const u = updateCalibration(
      c,
      { pairSdPct: 20, pairDf: 10, instanceSdPct: 8, instanceDf: 6, pairs: 20, levels: "nested" },
      "t",
      { grossCellSeconds: 9, cellSeconds: 7, servers: 2, setupSeconds: 120, teardownSeconds: 12, restartSeconds: 7 },
    );
    expect(u.pairSdPct).toBeCloseTo(Math.sqrt((30 * 0.01 + 10 * 0.04) / 40) * 100, 10);
    expect(u.instanceSdPct).toBeCloseTo(Math.sqrt((2 * 0.04 ** 2 + 6 * 0.08 ** 2) / 8) * 100, 10);
    expect(u.instanceDf).toBe(8);
    expect(u.secondsPerPair).toBe(2 * (7 + 2));
    expect(u.setupSeconds).toBe(120);
    expect(u.teardownSeconds).toBe(12);
    expect(u.restartSecondsPerServer).toBe(3.5);
    // The plan's time model then takes the measured restart for every server (instead of its assumed 6 s each).
    expect(adaptiveCosts(quick(), { measured: u }).restartSeconds).toBe(7);
    // quick.yaml's 4 × 10 000 rows a server: the plan's 6 s plus 5.25 s per million rows, each server.
    expect(adaptiveCosts(quick(), { measured: c }).restartSeconds).toBeCloseTo(2 * sizedSeconds(6, 5.25, 40000), 10);
    expect(u.updates).toBe(1);
    // Only the sum known: its pair share (total² − instance²) goes into the pair level; the instance level stays.
    const t = updateCalibration(
      c,
      { pairSdPct: 5, pairDf: 30, instanceSdPct: null, instanceDf: 0, pairs: 31, levels: "total" },
      "t",
    );
    expect(t.pairSdPct).toBeCloseTo(Math.sqrt((30 * 0.01 + 30 * (0.05 ** 2 - 0.04 ** 2)) / 60) * 100, 10);
    expect(t.instanceSdPct).toBe(4);
  });

  it("calibrationFromRun: a host's first calibration from a run, no per-second series", () => {
    const c = calibrationFromRun({
      hostKey: "k",
      hostFacts: { cpus: "2" },
      scenario: "scenarios/quick.yaml",
      noise: { pairSdPct: 9, pairDf: 6, instanceSdPct: null, instanceDf: 0, pairs: 12, levels: "total" },
      costs: { cellSeconds: 7, servers: 2, grossCellSeconds: 8.5 },
      at: "t",
    });
    expect(c).toMatchObject({
      version: 1,
      hostKey: "k",
      perSecond: null,
      pairSdPct: 9,
      pairDf: 6,
      instanceSdPct: null,
      instanceDf: 0,
      secondsPerPair: 17,
      updates: 1,
      cellSeconds: 7,
    });
    expect(c.scenario).toContain("a run's own pairs");
    // A fresh instance each round: the pair figure holds both levels, and says so until a run measures the instance level.
    expect(c.pairHoldsInstances).toBe(true);
    const total = { pairSdPct: 9, pairDf: 6, instanceSdPct: null, instanceDf: 0, pairs: 12, levels: "total" as const };
    expect(updateCalibration(c, total, "u").pairHoldsInstances).toBe(true);
    const nested = updateCalibration(
      c,
      { pairSdPct: 6, pairDf: 10, instanceSdPct: 5, instanceDf: 4, pairs: 14, levels: "nested" },
      "u",
    );
    expect(nested.pairHoldsInstances).toBeUndefined();
  });
});
