/** Forecast coverage of recorded runs and replaying their forecasts with another model. */
import { describe, expect, it } from "vitest";
import { forecastCoverage, replayForecasts } from "../../../src/core/plan/forecast-replay.ts";
import { normalFrom, seededRandom } from "../../../src/core/base/random.ts";
import type { Scenario } from "../../../src/core/model/scenario/schema.ts";
import type { CellRecord, Forecast, RunManifest } from "../../../src/core/model/results.ts";
import { scenarioFile, type ScenarioDoc } from "../../support/scenario.ts";

const quick = (sets: (d: ScenarioDoc) => void = () => {}): Scenario => scenarioFile("scenarios/quick.yaml", sets);

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
