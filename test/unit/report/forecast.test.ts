/** The forecast and the calibration update as the lines a run prints. */
import { describe, expect, it } from "vitest";
import { calibrationUpdatedLine, forecastLine } from "../../../src/core/report/forecast.ts";
import type { Forecast } from "../../../src/core/model/results.ts";
import type { RunEvent } from "../../../src/core/model/events.ts";

const base: Forecast = {
  stage: "round",
  round: 2,
  at: "2026-12-02T10:00:00.000Z",
  source: "run",
  pairSdPct: 5,
  instanceSdPct: 2,
  elapsedSeconds: 120,
  totalSeconds: { median: 490, low: 362, high: 690 },
  remainingSeconds: 370,
  budgetSeconds: null,
  budgetShare: 0,
  budgetStops: false,
  precisionPct: 10,
  cells: 6,
  cellsLikely: 6,
  measuredCells: 48,
};

describe("forecastLine", () => {
  it.each<[string, Partial<Forecast>, string]>([
    [
      "after a round: time left with its 80% range, from the run's pairs",
      {},
      "forecast: about 6m 10s left (80%: 4m 02s–9m 30s); cells likely to reach ±10%: 6 of 6 (this run's pairs)",
    ],
    [
      "before the run: the whole run's time, from the host calibration",
      { stage: "before", round: 0, source: "calibration", elapsedSeconds: 0, remainingSeconds: 490 },
      "forecast: about 8m 10s in all (80%: 6m 02s–11m 30s); cells likely to reach ±10%: 6 of 6 (host calibration)",
    ],
    [
      "the range's top is held to the budget",
      { budgetSeconds: 600, source: "calibration+run" },
      "forecast: about 6m 10s left (80%: 4m 02s–8m 00s); cells likely to reach ±10%: 6 of 6 (this run's pairs and the host calibration)",
    ],
    [
      "a budget that may stop it: the share of simulated runs",
      { budgetSeconds: 600, budgetShare: 0.234, cellsLikely: 5 },
      "forecast: about 6m 10s left (80%: 4m 02s–8m 00s); cells likely to reach ±10%: 5 of 6; the budget may stop it (23% of simulated runs) (this run's pairs)",
    ],
    [
      "a budget that stops it: no ETA past it",
      { budgetSeconds: 660, budgetShare: 0.8, budgetStops: true, remainingSeconds: 540, cellsLikely: 4 },
      "forecast: the budget stops this run in 9m 00s; cells likely to reach ±10%: 4 of 6 (this run's pairs)",
    ],
    [
      "low below the time already spent: nothing negative",
      { elapsedSeconds: 400, totalSeconds: { median: 490, low: 362, high: 690 }, remainingSeconds: 90 },
      "forecast: about 1m 30s left (80%: 0s–4m 50s); cells likely to reach ±10%: 6 of 6 (this run's pairs)",
    ],
  ])("%s", (_, o, line) => expect(forecastLine({ ...base, ...o })).toBe(line));
});

describe("calibrationUpdatedLine", () => {
  const e: Extract<RunEvent, { type: "calibration-updated" }> = {
    type: "calibration-updated",
    at: "2026-12-02T10:00:00.000Z",
    file: "/cal/h.json",
    made: false,
    pairs: 24,
    pairSdPct: 4.56,
    pairDf: 19.6,
    instanceSdPct: null,
  };
  it.each<[string, Partial<typeof e>, string]>([
    [
      "folded in, no instance level",
      {},
      "calibration: folded into this host's calibration from the run's 24 pairs: pair sd 4.6% (df 20) (/cal/h.json)",
    ],
    [
      "a first calibration with an instance level",
      { made: true, instanceSdPct: 2.04 },
      "calibration: made this host's first calibration from the run's 24 pairs: pair sd 4.6% (df 20), instance sd 2.0% (/cal/h.json)",
    ],
  ])("%s", (_, o, line) => expect(calibrationUpdatedLine({ ...e, ...o })).toBe(line));
});
