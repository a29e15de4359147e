import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadScenarioText } from "../../../src/adapters/scenario-file.ts";
import { adaptiveOverrides } from "../../../src/cli/commands/run-options.ts";
import { adaptiveNotes } from "../../../src/core/report/model.ts";
import {
  adaptiveEta,
  adaptiveSettings,
  adaptiveState,
  nextAdaptiveRound,
  resumeInstanceOffset,
  roundFits,
} from "../../../src/core/plan/adaptive.ts";
import { stopForBudget } from "../../../src/core/stats/stop.ts";
import type { Cell, CellRecord } from "../../../src/core/model/results.ts";
import type { Scenario } from "../../../src/core/model/scenario/schema.ts";
import { scenario as scenarioOf } from "../../support/scenario.ts";

const scenario = (repeats: object | number, extra: Record<string, unknown> = {}): Scenario =>
  scenarioOf({ workload: { tests: ["oltp_read_only"], threads: [1, 2], duration: "5s", repeats, ...extra } });

/** Records of one round's cells: qps of b fixed at 1000, a at 1000 × ratio(cell, round). */
function run(cells: Cell[], ratio: (c: Cell) => number): CellRecord[] {
  return cells.map((c) => ({
    key: c.key,
    server: c.server,
    test: c.test,
    threads: c.threads,
    repeat: c.repeat,
    phase: "measure",
    status: "ok",
    metrics: { status: "ok", qps: c.server === "a" ? 1000 * ratio(c) : 1000 } as never,
    raw: "",
    startedAt: `2026-01-01T00:00:${String(c.index % 60).padStart(2, "0")}Z`,
    endedAt: "",
    ...(c.instance !== undefined ? { instance: c.instance } : {}),
  }));
}

/** Drive the scheduler to the end: each round's records from `ratio`. */
function drive(s: Scenario, ratio: (c: Cell) => number, recorded: CellRecord[] = []) {
  const rounds: Cell[][] = [];
  let issued: number | undefined;
  for (;;) {
    const step = nextAdaptiveRound(s, recorded, issued);
    if (!step.cells.length) return { rounds, state: step.state, recorded };
    rounds.push(step.cells);
    recorded.push(...run(step.cells, ratio));
    issued = step.round;
  }
}

// 1-thread cell: nearly constant ratio (reaches any precision); 2-thread cell: ±30% alternating (never does).
const quietNoisy = (c: Cell) => (c.threads === 1 ? 1 + 0.001 * (c.repeat % 2) : c.repeat % 2 ? 1.3 : 0.7);

describe("adaptive scheduler (pure)", () => {
  it("settings: precision, min/max, instances default min (a fresh instance every round), else every ceil(min/N) rounds", () => {
    expect(adaptiveSettings(scenario({ min: 3, max: 8, precision: "5%" }, { budget: "10m" }))).toEqual({
      min: 3,
      max: 8,
      precisionPct: 5,
      instances: 3,
      roundsPerInstance: 1,
      budgetSeconds: 600,
    });
    expect(adaptiveSettings(scenario({ min: 4, max: 8, precision: "5%" }, { instances: 2 }))).toMatchObject({
      instances: 2,
      roundsPerInstance: 2,
    });
    expect(adaptiveSettings(scenario(4))).toBeUndefined();
  });

  it("a quiet cell stops at precision after min rounds, a noisy one at max", () => {
    const s = scenario({ min: 4, max: 6, precision: "10%" }, { instances: 1 });
    const { rounds, state } = drive(s, quietNoisy);
    expect(rounds.length).toBe(6);
    expect(state.map((c) => [c.threads, c.done, c.rounds])).toEqual([
      [1, "precision", 4],
      [2, "max", 6],
    ]);
    // rounds 1–4 hold both cells, rounds 5–6 only the open one; every cell once per server per round
    expect(rounds.map((r) => r.length)).toEqual([4, 4, 4, 4, 2, 2]);
    expect(rounds[4].every((c) => c.threads === 2 && c.repeat === 5)).toBe(true);
    const q = state.find((c) => c.threads === 1)!;
    expect(q.stopHalfWidthPct!).toBeLessThanOrEqual(10);
  });

  it("no precision stop before 4 replication units, whatever min says (two per half of the split)", () => {
    const s = scenario({ min: 2, max: 6, precision: "10%" }, { instances: 1 });
    const { state } = drive(s, quietNoisy);
    expect(state.find((c) => c.threads === 1)).toMatchObject({ done: "precision", rounds: 4 });
  });

  it("never stops on significance: a clear difference still runs until the interval is narrow enough", () => {
    const s = scenario({ min: 2, max: 10, precision: "1%" }, { instances: 1 });
    // a is 50% faster with ±5% noise: the interval excludes 100 at once, but is wider than ±1%
    const { state } = drive(s, (c) => 1.5 * (c.repeat % 2 ? 1.05 : 0.95));
    expect(state.every((c) => c.done === "max" && c.rounds === 10)).toBe(true);
  });

  it("assigns instances: floor((r − 1) / ceil(min / N)), and rounds past min add instances", () => {
    const s = scenario({ min: 4, max: 7, precision: "1%" }, { instances: 2 });
    const { rounds } = drive(s, quietNoisy);
    expect(rounds.map((r) => r[0].instance)).toEqual([0, 0, 1, 1, 2, 2, 3]);
    // a pair's two cells share their instance, and alternate the first server by round
    for (const r of rounds)
      for (const c of r)
        expect(r.filter((x) => x.threads === c.threads).every((x) => x.instance === c.instance)).toBe(true);
    expect(rounds[0][0].server).toBe("a");
    expect(rounds[1][0].server).toBe("b");
  });

  it("resume: rebuilds from the records; a round cut short runs again on new instance numbers", () => {
    const s = scenario({ min: 2, max: 4, precision: "1%" }, { instances: 2 });
    const full = drive(s, quietNoisy);
    // the cancelled run recorded round 1 and the first pair (both sides) plus one cell of round 2
    const r2 = full.rounds[1];
    const recorded = [...run(full.rounds[0], quietNoisy), ...run(r2.slice(0, 3), quietNoisy)];
    const step = nextAdaptiveRound(s, recorded, undefined);
    expect(step.round).toBe(2);
    // only the incomplete pair (threads of the 2nd pair) runs again
    expect(step.cells.map((c) => c.threads)).toEqual([r2[2].threads, r2[3].threads]);
    // its instance must not reuse a recorded one: round 2 is instance 1 in plan, recorded max is 1 → 2
    expect(resumeInstanceOffset(s, recorded, step.round)).toBe(1);
    // the replayed state equals the uninterrupted one once all rounds ran
    const resumed = drive(s, quietNoisy, recorded);
    expect(resumed.state.map((c) => [c.done, c.rounds])).toEqual(full.state.map((c) => [c.done, c.rounds]));
  });

  it("a fresh run has no instance offset; nothing recorded means round 1", () => {
    const s = scenario({ min: 2, max: 4, precision: "5%" });
    expect(resumeInstanceOffset(s, [], 1)).toBe(0);
    expect(nextAdaptiveRound(s, [], undefined).round).toBe(1);
  });

  it("budget: a round that would not fit stops every open cell with reason budget, keeping its width", () => {
    expect(roundFits({ budgetLeftSeconds: 60, cells: 4, secondsPerCell: 10 })).toBe(true);
    expect(roundFits({ budgetLeftSeconds: 60, cells: 4, secondsPerCell: 10, restartSeconds: 30 })).toBe(false);
    const s = scenario({ min: 2, max: 10, precision: "1%" }, { instances: 1 });
    const recorded: CellRecord[] = [];
    for (let i = 0; i < 4; i++) recorded.push(...run(nextAdaptiveRound(s, recorded, i || undefined).cells, quietNoisy));
    const state = stopForBudget(adaptiveState(s, recorded));
    // the quiet cell had already reached precision: it keeps that reason
    expect(state.map((c) => c.done)).toEqual(["precision", "budget"]);
    expect(state.every((c) => c.halfWidthPct !== null)).toBe(true);
  });

  it("eta: from the widest open cell's width, n·(hw/target)² − n rounds, capped by max", () => {
    const a = adaptiveSettings(scenario({ min: 2, max: 40, precision: "5%" }))!;
    const cell = { test: "x", threads: 1, n: 4, rounds: 4, estimate: 100, low: 90, high: 110, halfWidthPct: 10 };
    // 4·(10/5)² − 4 = 12 rounds × 1 open cell × 2 servers × 10 s
    expect(adaptiveEta([cell], a, 2, 10)).toEqual({ seconds: 240, minimum: false });
    expect(adaptiveEta([{ ...cell, halfWidthPct: 100 }], a, 2, 10)).toEqual({ seconds: 36 * 2 * 10, minimum: false });
    expect(adaptiveEta([{ ...cell, done: "precision" }], a, 2, 10)).toEqual({ seconds: 0, minimum: false });
    // each round also pays its share of a new instance's restart and warm-ups
    expect(adaptiveEta([cell], a, 2, 10, 15)?.seconds).toBe(12 * (2 * 10 + 15));
  });

  it("eta before any pairs: the minimum rounds on the time model, said to be a lower bound", () => {
    // The README's first command once said "eta 260 s" after round 1 (3 rounds × 12 cells × 7.2 s, no restarts or
    // warm-ups); the run needed 495 s more. With them: 3 rounds × (12 × 7.2 + 6.6 + 3 tests × 2 × 3.24).
    const a = adaptiveSettings(scenario({ min: 4, max: 40, precision: "10%" }))!;
    const open = (t: number) => ({
      test: "x",
      threads: t,
      n: 1,
      rounds: 1,
      estimate: 100,
      low: null,
      high: null,
      halfWidthPct: null,
    });
    const eta = adaptiveEta([1, 2, 3, 4, 5, 6].map(open), a, 2, 7.2, 6.6 + 3 * 2 * 3.24);
    expect(eta?.minimum).toBe(true);
    expect(eta?.seconds).toBeCloseTo(3 * (12 * 7.2 + 6.6 + 19.44), 6);
  });
});

describe("adaptiveNotes (report)", () => {
  it("says the settings, the stop reasons and the width each unfinished cell reached", () => {
    const cell = {
      test: "oltp_read_only",
      threads: 2,
      n: 6,
      rounds: 6,
      estimate: 101,
      low: 90,
      high: 113.3,
      halfWidthPct: 12.3,
    };
    const notes = adaptiveNotes({
      min: 3,
      max: 6,
      precisionPct: 5,
      instances: 2,
      roundsPerInstance: 2,
      budgetSeconds: 1800,
      rounds: 6,
      cells: [
        { ...cell, threads: 1, halfWidthPct: 4, done: "precision" },
        { ...cell, done: "max" },
      ],
    });
    expect(notes[0]).toMatch(
      /target ±5% per cell, 3 to 6 rounds, a budget of 30m 00s; a fresh server instance every 2 rounds; 6 rounds run\. Stopped: 1 at the precision target, 1 at max, 0 by the budget\./,
    );
    expect(notes.slice(1)).toEqual([
      "- oltp_read_only at 2 threads: stopped (max) after 6 rounds, 6 pairs, reached ±12.3%",
    ]);
  });

  it("a cell that stopped on the stop half with a printed interval wider than the target is not counted at the target", () => {
    // an adaptive A/A run on the 2-vCPU Xeon VM (docs/history-of-measurements.md): read_only at 2 threads stopped
    // at ±120% printed, target ±10%
    const cell = {
      test: "oltp_read_only",
      threads: 2,
      n: 6,
      rounds: 6,
      estimate: 96.8,
      low: 44.1,
      high: 212.8,
      halfWidthPct: 119.8,
    };
    const notes = adaptiveNotes({
      min: 4,
      max: 40,
      precisionPct: 10,
      instances: 4,
      roundsPerInstance: 1,
      rounds: 10,
      cells: [
        { ...cell, threads: 1, halfWidthPct: 9.5, done: "precision" },
        { ...cell, done: "precision" },
      ],
    });
    expect(notes[0]).toMatch(
      /Stopped: 1 at the precision target, 1 with an interval still wider than the target, 0 at max, 0 by the budget\./,
    );
    expect(notes.slice(1)).toEqual([
      "- oltp_read_only at 2 threads: stopped after 6 rounds, 6 pairs; its interval was ±119.8% at the stop, wider than the ±10% target",
    ]);
  });
});

describe("run --precision / --budget", () => {
  it("become overrides: a fixed count turns into {min: max(4, R) (the fewest units a precision stop needs), max: 40, precision}; an object keeps min and max", () => {
    expect(adaptiveOverrides(4, { precision: "3%", budget: "30m" })).toEqual([
      'workload.repeats={min: 4, max: 40, precision: "3%"}',
      'workload.budget="30m"',
    ]);
    expect(adaptiveOverrides(6, { precision: "3%" })).toEqual(['workload.repeats={min: 6, max: 40, precision: "3%"}']);
    expect(adaptiveOverrides(1, { precision: "3%" })).toEqual(['workload.repeats={min: 4, max: 40, precision: "3%"}']);
    expect(adaptiveOverrides({ min: 3, max: 9, precision: "5%" }, { precision: "2%" })).toEqual([
      'workload.repeats={min: 3, max: 9, precision: "2%"}',
    ]);
    expect(adaptiveOverrides(4, {})).toEqual([]);
  });

  const quick = readFileSync("scenarios/quick.yaml", "utf8");
  const load = (o: { precision?: string; budget?: string }, sets: string[] = []) =>
    loadScenarioText(quick, "scenarios/quick.yaml", {
      lockImages: ["mariadb-11.8", "mysql-9.7", "sysbench-1.0"],
      hostCpus: 2,
      sets: [...sets, ...adaptiveOverrides(2, o)],
    });
  const bad: Array<[string, { precision?: string; budget?: string }, string[], RegExp]> = [
    [
      "precision 0",
      { precision: "0%" },
      [],
      /scenarios\/quick\.yaml: workload\.repeats\.precision: expected a precision above 0%/,
    ],
    ["negative precision", { precision: "-3%" }, [], /workload\.repeats\.precision: expected a precision above 0%/],
    [
      "min > max",
      {},
      ["workload.repeats={min: 5, max: 3, precision: 5%}"],
      /scenarios\/quick\.yaml: workload\.repeats\.min: min 5 is above max 3/,
    ],
    [
      "budget shorter than one round",
      { precision: "5%", budget: "10s" },
      [],
      /scenarios\/quick\.yaml: workload\.budget: "10s" is shorter than one round/,
    ],
  ];
  it.each(bad)("refuses %s with the file and field path", (_n, o, sets, re) => {
    try {
      load(o, sets);
      expect.unreachable();
    } catch (e) {
      expect(String((e as { problems?: string[] }).problems ?? (e as Error).message)).toMatch(re);
    }
  });
});

describe("roundLine (plain output)", () => {
  it("one line per round: each cell's estimate, half-width, verdict word and stop reason, the ETA and the budget left", async () => {
    const { plainLine } = await import("../../../src/cli/plain.ts");
    const line = plainLine({
      type: "round-finished",
      at: "",
      round: 3,
      instance: 1,
      etaSeconds: 95.4,
      budgetLeftSeconds: 600,
      cells: [
        {
          test: "oltp_read_only",
          threads: 1,
          n: 3,
          estimate: 101.23,
          low: 97,
          high: 105,
          halfWidthPct: 4.04,
          done: "precision",
        },
        { test: "oltp_read_only", threads: 4, n: 3, estimate: null, low: null, high: null, halfWidthPct: null },
        { test: "oltp_point_select", threads: 1, n: 2, estimate: 101.2, low: 100.4, high: 102, halfWidthPct: 0.8 },
      ],
    });
    // Before any pairs the ETA is the minimum rounds' time, and the line says it is a lower bound.
    expect(
      plainLine({
        type: "round-finished",
        at: "",
        round: 1,
        instance: 0,
        etaSeconds: 337,
        etaMinimum: true,
        budgetLeftSeconds: 708,
        cells: [],
      }),
    ).toBe(
      "round 1 (instance 0): 0 open, eta at least 337 s (the minimum rounds; a forecast once cells have pairs), budget left 708 s; ",
    );
    // [97, 105]: no clear difference, within ±5% (same); no interval (unclear); [100.4, 102.0]: faster.
    expect(line).toBe(
      "round 3 (instance 1): 2 open, eta 95 s, budget left 600 s; oltp_read_only@1 101.2 ±4.0% same n=3 (stopped wider than the target); oltp_read_only@4 - (no interval yet) n=3; oltp_point_select@1 101.2 ±0.8% faster n=2",
    );
  });

  it("uses the run's margin and target: a stop whose printed interval is wider than the target is not called precision", async () => {
    const { plainLine } = await import("../../../src/cli/plain.ts");
    const line = plainLine({
      type: "round-finished",
      at: "",
      round: 6,
      instance: 5,
      etaSeconds: null,
      budgetLeftSeconds: null,
      marginPct: 2,
      precisionPct: 10,
      cells: [
        {
          test: "oltp_read_only",
          threads: 1,
          n: 6,
          estimate: 101.23,
          low: 97,
          high: 105,
          halfWidthPct: 4.04,
          done: "precision",
        },
        {
          test: "oltp_read_only",
          threads: 2,
          n: 6,
          estimate: 96.8,
          low: 44.1,
          high: 212.8,
          halfWidthPct: 119.8,
          done: "precision",
        },
        {
          test: "oltp_point_select",
          threads: 1,
          n: 6,
          estimate: 101.2,
          low: 100.4,
          high: 102,
          halfWidthPct: 0.8,
          done: "max",
        },
      ],
    });
    // At ±2%: [97, 105] reaches past 98 and 102 (unclear), [100.4, 102.0] is faster (and within ±2%).
    expect(line).toBe(
      "round 6 (instance 5): 0 open; oltp_read_only@1 101.2 ±4.0% unclear n=6 (precision); oltp_read_only@2 96.8 ±119.8% unclear n=6 (stopped wider than the target); oltp_point_select@1 101.2 ±0.8% faster n=6 (max)",
    );
    // the same cells at the default margin: [97, 105] is within ±5% (same)
    expect(
      plainLine({
        type: "round-finished",
        at: "",
        round: 6,
        instance: 5,
        etaSeconds: null,
        budgetLeftSeconds: null,
        precisionPct: 10,
        cells: [
          { test: "x", threads: 1, n: 6, estimate: 101.23, low: 97, high: 105, halfWidthPct: 4.04, done: "precision" },
        ],
      }),
    ).toContain("±4.0% same n=6 (precision)");
  });
});
