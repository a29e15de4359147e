/**
 * The adaptive scheduler, driven round by round with made-up records: rounds until the precision, the max or the
 * budget stops each cell, with its round-finished events and run.json's adaptive section.
 */
import { describe, expect, it } from "vitest";
import { AdaptiveScheduler } from "../../../../src/app/run/adaptive.ts";
import type { Cell, CellRecord } from "../../../../src/core/model/results.ts";
import type { Plan } from "../../../../src/core/plan/plan.ts";
import { cellRecord, sysbench } from "../../../support/record.ts";
import { memorySession, stageContext } from "../../../support/run-context.ts";
import { scenario } from "../../../support/scenario.ts";

const plan = { cells: [], estimate: { totalSeconds: 0, measureSeconds: 0, warmupSeconds: 0 } } as unknown as Plan;

function scheduler(repeats: object, extra: object = {}) {
  const s = scenario({
    workload: { tests: ["oltp_point_select"], threads: [1], duration: "2s", repeats, instances: 1, ...extra },
  });
  const sc = stageContext({ scenario: s, plan });
  const m = memorySession();
  return { ...sc, ...m, sch: new AdaptiveScheduler(sc.ctx, m.session, null) };
}

/** Records of a round's cells: server a's q/s is `ratio(round)` times b's 1000. */
const measure = (cells: Cell[], ratio: (round: number) => number): CellRecord[] =>
  cells.map((c) => {
    const qps = c.server === "a" ? 1000 * ratio(c.repeat) : 1000;
    return cellRecord({
      key: c.key,
      server: c.server,
      test: c.test,
      threads: c.threads,
      repeat: c.repeat,
      metrics: sysbench({ qps, tps: qps / 10 }),
    });
  });

/** Ask for rounds until one is empty; each round measured with `ratio`. Returns the size of every round. */
function drive(sch: AdaptiveScheduler, ratio: (round: number) => number): number[] {
  const recorded: CellRecord[] = [];
  const sizes: number[] = [];
  for (let i = 0; i < 20; i++) {
    const cells = sch.nextRound(recorded);
    sizes.push(cells.length);
    if (!cells.length) break;
    expect(cells.map((c) => c.server).sort()).toEqual(["a", "b"]);
    recorded.push(...measure(cells, ratio));
  }
  return sizes;
}

describe("AdaptiveScheduler", () => {
  it.each([
    [
      "a ratio within 0.1 %: precision, before the max",
      { min: 2, max: 8, precision: "1%" },
      (r: number) => 1.1 * (r % 2 ? 1.001 : 0.999),
      [2, 2, 2, 2, 0],
      "precision",
      4,
    ],
    [
      "a ratio that swings: up to the max",
      { min: 2, max: 4, precision: "1%" },
      (r: number) => (r % 2 ? 0.8 : 1.3),
      [2, 2, 2, 2, 0],
      "max",
      4,
    ],
  ])("%s", (_, repeats, ratio, sizes, done, rounds) => {
    const { sch, events, state } = scheduler(repeats);
    expect(drive(sch, ratio)).toEqual(sizes);
    const last = events.filter((e) => e.type === "round-finished").at(-1);
    expect(last).toMatchObject({ round: rounds, precisionPct: 1, marginPct: 5 });
    expect(last?.type === "round-finished" && last.cells.map((c) => [c.test, c.threads, c.n, c.done])).toEqual([
      ["oltp_point_select", 1, rounds, done],
    ]);
    expect(state.manifest.adaptive).toMatchObject({ rounds, cells: [{ done }] });
    expect(sch.nextRound([])).toEqual([]);
  });

  it("a round that does not fit in the budget left is not started: a warning, and the cells stop for the budget", () => {
    const { sch, warnings, state } = scheduler({ min: 2, max: 6, precision: "1%" }, { budget: "10s" });
    expect(drive(sch, () => 1.1)).toEqual([0]);
    expect(warnings()).toHaveLength(1);
    expect(warnings()[0]).toMatch(
      /^budget: round 1 \(2 cells, about \d+ s\) would not fit in the (?:9|10) s left; stopping$/,
    );
    expect(state.manifest.adaptive).toMatchObject({ rounds: 0, cells: [{ done: "budget" }] });
  });

  it("a new run records its set-up time for the next forecast; a resumed one does not", () => {
    const fresh = scheduler({ min: 2, max: 6, precision: "1%" });
    fresh.sch.nextRound([]);
    expect(fresh.state.manifest.forecast?.setupSeconds).toEqual(expect.any(Number));
    const s = scenario({
      workload: {
        tests: ["oltp_point_select"],
        threads: [1],
        duration: "2s",
        repeats: { min: 2, max: 6, precision: "1%" },
        instances: 1,
      },
    });
    const { ctx } = stageContext({ scenario: s, plan, opts: { resume: true } });
    const resumed = memorySession();
    new AdaptiveScheduler(ctx, resumed.session, null).nextRound([]);
    expect(resumed.state.manifest.forecast).toBeUndefined();
  });
});
