/**
 * The forecast of an adaptive run: before the run from a calibration, after a round from the run's own pairs; never
 * longer than the budget left; a run that starts with cells already done.
 */
import { describe, expect, it } from "vitest";
import { forecastAfterRound, forecastBefore, NO_CALIBRATION, runPairs } from "../../../src/core/plan/forecast.ts";
import { forecastLine } from "../../../src/core/report/forecast.ts";
import { grossCellSeconds } from "../../../src/core/plan/run-costs.ts";
import { expectedRunLine, predictPrecision } from "../../../src/core/plan/precision.ts";
import { simulateAdaptive } from "../../../src/core/stats/simulate.ts";
import { normalFrom, seededRandom } from "../../../src/core/base/random.ts";
import type { Scenario } from "../../../src/core/model/scenario/schema.ts";
import type { CellRecord } from "../../../src/core/model/results.ts";
import { calibrationFixture } from "../../support/calibration-fixture.ts";
import { scenarioFile, type ScenarioDoc } from "../../support/scenario.ts";

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
    // At this noise about half of the simulated runs meet the 15 min budget (38% and 52% under two
    // versions of the time model): the line takes either form, decided by the same simulation.
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
