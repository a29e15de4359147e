/**
 * The forecast of an adaptive run (src/core/plan/forecast.ts): before the run from a calibration, after a round from
 * the run's own pairs; never longer than the budget left; the run's pairs folded into the calibration at both
 * levels; coverage of recorded runs' forecasts.
 */
import { describe, expect, it } from "vitest";
import { calibrationFromRun, updateCalibration } from "../../../src/core/plan/calibration/update.ts";
import { costShapeOf, sameCostShape } from "../../../src/core/plan/calibration/costs.ts";
import { disturbedPairs, runNoise } from "../../../src/core/plan/calibration/pairs.ts";
import { runLevels } from "../../../src/core/stats/nested-sd.ts";
import { sizedSeconds } from "../../../src/core/plan/estimate.ts";
import { forecastAfterRound, forecastBefore, NO_CALIBRATION, runPairs } from "../../../src/core/plan/forecast.ts";
import { forecastCoverage, replayForecasts } from "../../../src/core/plan/forecast-replay.ts";
import { forecastLine } from "../../../src/core/report/forecast.ts";
import { grossCellSeconds, observedCosts, runningCosts } from "../../../src/core/plan/run-costs.ts";
import { adaptiveCosts, expectedRunLine, predictPrecision } from "../../../src/core/plan/precision.ts";
import { simulateAdaptive } from "../../../src/core/stats/simulate.ts";
import { normalFrom, seededRandom } from "../../../src/core/base/random.ts";
import type { Scenario } from "../../../src/core/model/scenario/schema.ts";
import type { CellRecord, Forecast, RunManifest } from "../../../src/core/model/results.ts";
import { calibrationFixture } from "../../support/calibration-fixture.ts";
import { scenarioFile, type ScenarioDoc } from "../../support/scenario.ts";
import { cellRecord, sysbench } from "../../support/record.ts";

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

describe("forecastBefore: from the host's calibration, the same simulation plan prints", () => {
  it("none without a calibration: the run says so and forecasts after its first round", () => {
    expect(forecastBefore(quick(), null, "x")).toBeNull();
    expect(NO_CALIBRATION).toBe("no calibration for this host: forecast after the first round");
  });

  it("with one: the plan's simulated run, whole-run seconds with an 80% range inside the budget", () => {
    const s = quick();
    const quiet = cal({ pairSdPct: 3, instanceSdPct: 1 });
    const f = forecastBefore(s, quiet, "2026-12-02T10:00:00.000Z", { runs: 60 })!;
    const p = predictPrecision(s, quiet, { runs: 60 })!;
    expect(f.stage).toBe("before");
    expect(f.source).toBe("calibration");
    expect(f.totalSeconds.median).toBe(Math.round(p.simulated!.seconds.median));
    expect(f.totalSeconds.low).toBeLessThanOrEqual(f.totalSeconds.median);
    expect(f.totalSeconds.high).toBeGreaterThanOrEqual(f.totalSeconds.median);
    expect(f.totalSeconds.high).toBeLessThanOrEqual(15 * 60);
    expect(f.cells).toBe(6);
    expect(f.measuredCells).toBeGreaterThanOrEqual(6 * 2 * 2); // at least min rounds of every cell on both servers
    // At this noise about half of the simulated runs meet the 15 min budget (38% with the time model of 2026-12-04,
    // 52% with 2026-12-06's): the line takes either form, decided by the same simulation.
    expect(forecastLine(f)).toMatch(
      f.budgetStops
        ? /^forecast: the budget stops this run in \d+m \d+s; cells likely to reach ±10%: \d of 6 \(host calibration\)$/
        : /^forecast: about \d+m \d+s in all \(80%: .+\); cells likely to reach ±10%: \d of 6(; the budget may stop it \(\d+% of simulated runs\))? \(host calibration\)$/,
    );
    // plan's own line is made from the same simulation and says the same count of cells.
    expect(expectedRunLine(p)).toContain(`cells likely to reach ±10%: ${f.cellsLikely} of 6`);
  });

  it("simulates cells as unequal as the host's recorded runs were, and records that prior df", () => {
    const s = quick();
    const assumed = forecastBefore(s, cal({ pairSdPct: 5 }), "x", { runs: 60 })!;
    expect(assumed.cellPriorDf).toBe(2.2);
    // five recorded runs whose six cells were about equal (pair sd 7%–9%, 4 df each)
    const runs = Array.from({ length: 5 }, (_, r) => ({
      at: `2026-12-0${r + 1}T00:00:00.000Z`,
      cells: [7, 8, 9, 8, 7.5, 8.5].map((sd) => ({ s2: (sd / 100) ** 2, df: 4 })),
    }));
    const recorded = forecastBefore(s, cal({ pairSdPct: 5, cellSpread: runs }), "x", { runs: 60 })!;
    expect(recorded.cellPriorDf).toBe(120); // no spread beyond sampling: the cap, the cells' summed df
    // no simulated cell far noisier than the host's pair sd: the run ends sooner, and more cells reach the target
    expect(recorded.totalSeconds.median).toBeLessThanOrEqual(assumed.totalSeconds.median);
    expect(recorded.cellsLikely).toBeGreaterThanOrEqual(assumed.cellsLikely);
  });

  it("a calibration's measured set-up and teardown replace the plan's assumed ones", () => {
    const s = quick((d) => delete d.workload.budget);
    const a = forecastBefore(s, cal({ setupSeconds: 30, teardownSeconds: 10 }), "x", { runs: 40 })!;
    const b = forecastBefore(s, cal({ setupSeconds: 630, teardownSeconds: 20 }), "x", { runs: 40 })!;
    // Same seed, same draws: the whole difference is the fixed costs.
    // Same seed, same draws: the difference is the fixed costs, times each simulated run's pace (sd 5%).
    expect(b.totalSeconds.median - a.totalSeconds.median).toBeGreaterThan(610 * 0.9);
    expect(b.totalSeconds.median - a.totalSeconds.median).toBeLessThan(610 * 1.1);
  });
});

describe("forecastAfterRound: the rest of the run from its own pairs", () => {
  it("after one round on a fresh host: nothing to forecast from yet (no df); after two: from the run's pairs", () => {
    const s = quick();
    const one = rounds(s, 1, { sdPct: 6 });
    expect(
      forecastAfterRound({
        scenario: s,
        records: one,
        round: 1,
        done: [],
        elapsedSeconds: 200,
        at: "x",
        calibration: null,
      }),
    ).toBeNull();
    const two = rounds(s, 2, { sdPct: 6 });
    const f = forecastAfterRound({
      scenario: s,
      records: two,
      round: 2,
      done: new Array(6).fill(null),
      elapsedSeconds: 300,
      at: "x",
      calibration: null,
      runs: 60,
    })!;
    expect(f.source).toBe("run");
    // quick.yaml starts a new instance every round: the run knows pair + instance only as their sum, kept in the pair level.
    expect(f.instanceSdPct).toBe(0);
    expect(f.pairSdPct).toBeGreaterThan(0);
    expect(f.totalSeconds.low).toBeGreaterThanOrEqual(300);
    expect(f.remainingSeconds).toBe(Math.max(0, f.totalSeconds.median - 300));
  });

  it("never more than the budget left; when the budget will stop the run it says so, not an ETA past it", () => {
    const s = quick((d) => (d.workload.budget = "9m"));
    const recs = rounds(s, 2, { sdPct: 25, seed: 5 });
    const f = forecastAfterRound({
      scenario: s,
      records: recs,
      round: 2,
      done: new Array(6).fill(null),
      elapsedSeconds: 240,
      at: "x",
      calibration: null,
      cellSeconds: 9,
      runs: 60,
    })!;
    expect(f.remainingSeconds).toBeLessThanOrEqual(9 * 60 - 240);
    expect(f.totalSeconds.high).toBeLessThanOrEqual(9 * 60);
    expect(f.budgetStops).toBe(true);
    expect(forecastLine(f)).toMatch(
      /^forecast: the budget stops this run in \d+m \d+s; cells likely to reach ±10%: \d of 6/,
    );
    expect(forecastLine(f)).not.toMatch(/eta/i);
  });

  it("cells already done stay done: a run with one open cell forecasts fewer cells than one with all open", () => {
    const s = quick();
    const recs = rounds(s, 2, { sdPct: 6 });
    const all = forecastAfterRound({
      scenario: s,
      records: recs,
      round: 2,
      done: new Array(6).fill(null),
      elapsedSeconds: 300,
      at: "x",
      calibration: cal(),
      runs: 60,
    })!;
    const one = forecastAfterRound({
      scenario: s,
      records: recs,
      round: 2,
      done: ["precision", "precision", "precision", "precision", "precision", null],
      elapsedSeconds: 300,
      at: "x",
      calibration: cal(),
      runs: 60,
    })!;
    expect(all.source).toBe("calibration+run");
    expect(one.measuredCells).toBeLessThanOrEqual(all.measuredCells);
    expect(one.cellsLikely).toBeGreaterThanOrEqual(5);
  });

  it("runPairs pairs by repeat and puts each pair on its layout instance; grossCellSeconds of back-to-back cells is their length", () => {
    const s = quick();
    const recs = rounds(s, 3, { sdPct: 0, ratio: 1.5, cellSeconds: 10 });
    const pairs = runPairs(s, recs);
    expect(pairs).toHaveLength(6);
    expect(pairs[0].map((p) => p.instance)).toEqual([0, 1, 2]);
    for (const p of pairs[0]) expect(p.d).toBeCloseTo(Math.log(1.5), 12);
    expect(grossCellSeconds(recs)).toBe(10);
    expect(grossCellSeconds(recs.slice(0, 1))).toBeNull();
  });
});

describe("observedCosts: the run's own warm-ups and instance changes replace the plan's assumed costs", () => {
  const at = (s: number) => new Date(Date.parse("2026-12-03T10:00:00.000Z") + s * 1000).toISOString();
  const r = (phase: "warmup" | "measure", repeat: number, instance: number, from: number, to: number): CellRecord =>
    ({
      key: `${phase}/${repeat}/${from}`,
      server: "a",
      test: "t",
      threads: 1,
      repeat,
      instance,
      phase,
      status: "ok",
      raw: "",
      startedAt: at(from),
      endedAt: at(to),
    }) as CellRecord;

  it("a warm-up costs its length plus the gap to the next record; an instance change, the gap before the next round's first record", () => {
    // round 1 on instance 0: warm-up 0-3.2, cells 3.2-10.4, 10.4-17.6; instance 1: 6.5 s restart, then the same again
    const recs = [
      r("warmup", 0, 0, 0, 3.2),
      r("measure", 1, 0, 3.2, 10.4),
      r("measure", 1, 0, 10.4, 17.6),
      r("warmup", 0, 1, 24.1, 27.3),
      r("measure", 2, 1, 27.4, 34.6),
      r("measure", 2, 1, 34.6, 41.8),
    ];
    const c = observedCosts(recs);
    expect(c.warmupSeconds).toBeCloseTo(3.25, 6);
    expect(c.restartSeconds).toBeCloseTo(6.5, 6);
    // Two rounds on one instance: no instance change, no restart seen.
    const one = [r("measure", 1, 0, 0, 7), r("measure", 2, 0, 7.1, 14)];
    expect(observedCosts(one)).toEqual({ warmupSeconds: null, restartSeconds: null });
  });

  it("runningCosts, the time model of both the forecast and the scheduler's budget check, needs the warm-ups", () => {
    const recs = [
      r("warmup", 0, 0, 0, 3.2),
      r("measure", 1, 0, 3.2, 10.4),
      r("measure", 1, 0, 10.4, 17.6),
      r("warmup", 0, 1, 24.1, 27.3),
      r("measure", 2, 1, 27.4, 34.6),
      r("measure", 2, 1, 34.6, 41.8),
    ];
    const base = { setupSeconds: 30, teardownSeconds: 2, cellSeconds: 9, restartSeconds: 11, warmupSeconds: 4 };
    const c = runningCosts(base, recs, 7.2);
    expect(c).toMatchObject({ setupSeconds: 30, teardownSeconds: 2, cellSeconds: 7.2 });
    expect(c.restartSeconds).toBeCloseTo(6.5, 6);
    expect(c.warmupSeconds).toBeCloseTo(3.25, 6);
    // What the scheduler saw until 2026-12-04 (measured cells only): the warm-up inside the restart, and again at
    // the plan's figure, so a round looked 7 s dearer per warm-up than it was.
    const measuredOnly = runningCosts(
      base,
      recs.filter((x) => x.phase === "measure"),
      7.2,
    );
    expect(measuredOnly.restartSeconds).toBeCloseTo(9.8, 6);
    expect(measuredOnly.warmupSeconds).toBe(4);
  });

  it("grossCellSeconds counts a measured cell to the next record of any phase (a warm-up between two cells is not in it), times the attempts per kept cell", () => {
    const m = (repeat: number, from: number, to: number, test = "t") => ({
      ...r("measure", repeat, 0, from, to),
      key: `a/${test}/1/${repeat}`,
      test,
    });
    const recs = [
      r("warmup", 0, 0, 0, 3.2),
      m(1, 3.2, 10.4),
      r("warmup", 0, 0, 10.4, 13.6),
      m(1, 13.6, 20.8, "u"),
      m(2, 20.8, 28, "u"),
    ];
    expect(grossCellSeconds(recs)).toBeCloseTo(7.2, 6);
    // A disturbed pair's cell run twice: 4 attempts for 3 kept cells.
    const again = [...recs, m(2, 28, 35.2, "u")];
    expect(grossCellSeconds(again)).toBeCloseTo(7.2 * (4 / 3), 6);
  });

  it("forecastAfterRound uses them: the same pairs with 30 s instance changes are forecast to take longer than with 1 s ones", () => {
    const s = quick((d) => (d.workload.budget = "60m"));
    const base = rounds(s, 2, { sdPct: 6, seed: 9 });
    // rounds() lays the cells back to back; round 2 (a new instance) starts `gap` seconds after round 1's last cell.
    const shifted = (gap: number) =>
      base.map((x) =>
        x.repeat === 2
          ? {
              ...x,
              startedAt: new Date(Date.parse(x.startedAt) + gap * 1000).toISOString(),
              endedAt: new Date(Date.parse(x.endedAt) + gap * 1000).toISOString(),
            }
          : x,
      );
    const input = (records: CellRecord[]) => ({
      scenario: s,
      records,
      round: 2,
      done: new Array(6).fill(null),
      elapsedSeconds: 300,
      at: "x",
      calibration: null,
      cellSeconds: 8,
      runs: 60,
    });
    expect(observedCosts(shifted(30)).restartSeconds).toBeCloseTo(30, 6);
    const fast = forecastAfterRound(input(shifted(1)))!;
    const slow = forecastAfterRound(input(shifted(30)))!;
    // Same seed and pairs, so the same simulated rounds: every instance change left costs 29 s more.
    expect(slow.totalSeconds.median).toBeGreaterThan(fast.totalSeconds.median + 29);
  });
});

describe("simulateAdaptive with a start state", () => {
  const costs = { setupSeconds: 60, teardownSeconds: 10, cellSeconds: 8, restartSeconds: 12, warmupSeconds: 4 };
  it("a run whose cells are all done ends now: elapsed plus teardown, no more cells", () => {
    const r = simulateAdaptive({
      cellTests: [0, 1],
      servers: 2,
      min: 2,
      max: 10,
      precisionPct: 10,
      roundsPerInstance: Number.POSITIVE_INFINITY,
      pairSdPct: 5,
      instanceSdPct: 0,
      cellPriorDf: 2.2,
      costs,
      runs: 20,
      start: {
        round: 3,
        elapsedSeconds: 400,
        pairs: [[{ d: 0, instance: 0 }], [{ d: 0, instance: 0 }]],
        done: ["precision", "max"],
        instance: 0,
      },
    });
    expect(r.seconds).toEqual({ median: 410, low: 410, high: 410 });
    expect(r.measuredCells).toBe(4);
  });
});

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

describe("forecastCoverage: how often the real wall time fell inside the 80% range", () => {
  const f = (stage: "before" | "round", round: number, low: number, high: number): Forecast =>
    ({
      stage,
      round,
      at: "",
      source: "calibration",
      pairSdPct: 5,
      instanceSdPct: 1,
      elapsedSeconds: 0,
      totalSeconds: { median: (low + high) / 2, low, high },
      remainingSeconds: 0,
      budgetSeconds: null,
      budgetShare: 0,
      budgetStops: false,
      precisionPct: 10,
      cells: 6,
      cellsLikely: 6,
      measuredCells: 24,
    }) as Forecast;
  const run = (wall: number, forecasts: Forecast[], status: RunManifest["status"] = "ok") => ({
    status,
    timings: { wall },
    forecast: { forecasts },
  });

  it("counts, per stage, the finished runs whose wall time is inside [low, high]", () => {
    const rows = forecastCoverage(
      [
        run(500, [f("before", 0, 400, 600), f("round", 1, 450, 550), f("round", 2, 480, 520)]),
        run(700, [f("before", 0, 400, 600), f("round", 2, 650, 720)]),
        run(300, [f("before", 0, 250, 350)]),
        run(900, [f("before", 0, 100, 200)], "cancelled"), // cancelled: its wall time is not the run's
        { status: "ok" as const, timings: {}, forecast: { forecasts: [f("before", 0, 1, 2)] } }, // no wall time
      ],
      2,
    );
    expect(rows).toEqual([
      { stage: "before", runs: 3, inside: 2, share: 2 / 3 },
      { stage: "round 1", runs: 1, inside: 1, share: 1 },
      { stage: "round 2", runs: 2, inside: 2, share: 1 },
    ]);
    expect(forecastCoverage([], 1)).toEqual([
      { stage: "before", runs: 0, inside: 0, share: null },
      { stage: "round 1", runs: 0, inside: 0, share: null },
    ]);
  });
});

describe("replayForecasts: a recorded run's forecasts made again by another model", () => {
  it("forecasts after each recorded round from what the run had seen then; the old model assumed prior df 2.2", () => {
    const s = quick();
    const records = rounds(s, 3, { sdPct: 5 }); // 96 s a round from 10:00:00
    const at = (k: number) => new Date(Date.parse("2026-12-02T10:00:00.000Z") + k * 96_000).toISOString();
    const f = (round: number) =>
      ({
        stage: "round",
        round,
        at: at(round),
        elapsedSeconds: 40 + round * 96,
        totalSeconds: { median: 0, low: 0, high: 0 },
      }) as Forecast;
    const m = {
      scenario: s,
      status: "ok" as const,
      timings: { wall: 700 },
      forecast: { forecasts: [f(1), f(2), f(3)] },
    };
    const now = replayForecasts(m, records, { runs: 40, rounds: 3 });
    const old = replayForecasts(m, records, { runs: 40, rounds: 3, model: { cellPriorDf: 2.2, paceSdPct: 0 } });
    // without a calibration there is nothing to forecast from after round 1 (1 pair a cell: no df), as in a run
    expect(now.map((r) => r.round)).toEqual([2, 3]);
    expect(old.map((r) => r.forecast.cellPriorDf)).toEqual([2.2, 2.2]);
    // after round 2 six cells with 1 df each, after round 3 with 2: the run's own cells give the prior df
    expect(now[0]!.forecast.cellPriorDf).not.toBe(2.2);
    expect(now[0]!.forecast.cellPriorDf ?? Infinity).toBeLessThanOrEqual(6);
    expect(now[1]!.forecast.cellPriorDf ?? Infinity).toBeLessThanOrEqual(12);
    for (const r of now) {
      expect(r.wall).toBe(700);
      expect(r.forecast.elapsedSeconds).toBe(40 + r.round * 96);
      expect(r.inside).toBe(700 >= r.forecast.totalSeconds.low && 700 <= r.forecast.totalSeconds.high);
    }
    expect(replayForecasts({ ...m, status: "cancelled" }, records)).toEqual([]);
  });
});

describe("npm run bench -- --only forecast: coverage over the run.json files of a results folder", () => {
  it("reads every run with forecasts, skips folders without run.json, prints each stage", async () => {
    const { mkdtemp, mkdir, writeFile } = await import("node:fs/promises");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    const { forecastBench } = await import("../../../bench/forecast.ts");
    const root = await mkdtemp(join(tmpdir(), "tb-fc-"));
    const f = { stage: "before", round: 0, totalSeconds: { median: 500, low: 400, high: 600 } };
    for (const [name, wall] of [
      ["r1", 450],
      ["r2", 700],
    ] as const) {
      await mkdir(join(root, name));
      await writeFile(
        join(root, name, "run.json"),
        JSON.stringify({ status: "ok", timings: { wall }, forecast: { forecasts: [f] } }),
      );
    }
    await mkdir(join(root, "calibrate-x"));
    const lines: string[] = [];
    expect(await forecastBench({ resultsDir: root, out: (l) => lines.push(l) })).toBe(0);
    expect(lines[0]).toBe(`forecast coverage: 2 recorded runs with forecasts in ${root} (of 3 entries)`);
    expect(lines[1]).toBe("  before   1 of 2 inside the 80% range (50%)");
    expect(lines[2]).toBe("  round 1  no runs");
  });
});
