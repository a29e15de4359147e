/** The static scheduler (src/app/run/scheduler.ts): the plan's cells once, in plan order, then an empty round. */
import { describe, expect, it } from "vitest";
import { StaticScheduler, type Scheduler } from "../../../../src/app/run/scheduler.ts";
import { planRun } from "../../../../src/core/plan/plan.ts";
import { cellRecord } from "../../../support/record.ts";
import { scenario } from "../../../support/scenario.ts";

describe("StaticScheduler", () => {
  const cells = planRun(scenario((d) => ((d.workload.threads = [1, 4]), (d.workload.repeats = 2)))).cells;

  it("gives every cell of the plan in one round, in plan order, then nothing", () => {
    const s: Scheduler = new StaticScheduler(cells); // as the run calls it
    const first = s.nextRound([]);
    expect(first.map((c) => c.key)).toEqual(cells.map((c) => c.key));
    expect(first.length).toBe(8); // 2 servers × 2 thread counts × 2 repeats
    expect(s.nextRound(first.map((c) => cellRecord({ key: c.key })))).toEqual([]);
    expect(s.nextRound([])).toEqual([]);
  });

  it("returns a copy: a caller changing its round does not change the plan", () => {
    const s: Scheduler = new StaticScheduler(cells);
    const round = s.nextRound([]);
    round.pop();
    expect(cells.length).toBe(8);
  });
});
