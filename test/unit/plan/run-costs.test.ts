/** A run's own measured costs (warm-ups, instance changes, gross cell seconds) replacing the plan's assumed ones. */
import { describe, expect, it } from "vitest";
import { forecastAfterRound } from "../../../src/core/plan/forecast.ts";
import { grossCellSeconds, observedCosts, runningCosts } from "../../../src/core/plan/run-costs.ts";
import { normalFrom, seededRandom } from "../../../src/core/base/random.ts";
import type { Scenario } from "../../../src/core/model/scenario/schema.ts";
import type { CellRecord } from "../../../src/core/model/results.ts";
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
    // What the scheduler saw when it read the measured cells only: the warm-up inside the restart, and again at
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
