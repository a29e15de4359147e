/** A planned cell's identity: its key, the server instance of its repeat, and what a resumed run still has to run. */
import { describe, expect, it } from "vitest";
import { planRun } from "../../../src/core/plan/plan.ts";
import { cellKey, instanceOf, resumeTodo } from "../../../src/core/plan/cells.ts";
import type { AdaptiveRepeats, Scenario } from "../../../src/core/model/scenario/schema.ts";
import { scenario as scenarioOf, type ScenarioDoc } from "../../support/scenario.ts";
import { cellRecord } from "../../support/record.ts";

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

describe("resumeTodo", () => {
  it("resumeTodo: a half-done pair runs again whole, on an instance above every recorded one", () => {
    const p = planRun(
      scenario(
        (d) => (
          (d.workload.instances = 2),
          (d.workload.repeats = 2),
          (d.workload.tests = ["oltp_read_only"]),
          (d.workload.threads = [1])
        ),
      ),
    );
    // cells: a1 b1 (instance 0), b2 a2 (instance 1); the run was cut after a1, b1, b2
    const rec = (c: (typeof p.cells)[number]) =>
      cellRecord({
        key: c.key,
        server: c.server,
        test: c.test,
        threads: c.threads,
        repeat: c.repeat,
        instance: c.instance,
      });
    const todo = resumeTodo(p.cells, [rec(p.cells[0]), rec(p.cells[1]), rec(p.cells[2])]);
    expect(todo.map((c) => `${c.server}${c.repeat}@${c.instance}`)).toEqual(["b2@2", "a2@2"]);
    // cut in instance 0: its rest moves to instance 1, the next to 2
    const todo2 = resumeTodo(p.cells, [rec(p.cells[0])]);
    expect(todo2.map((c) => `${c.server}${c.repeat}@${c.instance}`)).toEqual(["a1@1", "b1@1", "b2@2", "a2@2"]);
    // without instances, the old rule: done cells are skipped one by one
    const q = planRun(scenario((d) => ((d.workload.tests = ["oltp_read_only"]), (d.workload.threads = [1]))));
    expect(resumeTodo(q.cells, [rec(q.cells[0])]).length).toBe(q.cells.length - 1);
  });
});

describe("cellKey", () => {
  const cell = { server: "mariadb", test: "oltp_read_only", threads: 4, repeat: 2 };
  it.each([
    [cell, "mariadb/oltp_read_only/4/2"],
    [{ ...cell, host: "h1" }, "h1/mariadb/oltp_read_only/4/2"],
    [{ ...cell, host: "" }, "mariadb/oltp_read_only/4/2"],
    [{ ...cell, server: "mysql", repeat: 10 }, "mysql/oltp_read_only/4/10"],
  ])("%j → %s", (c, key) => expect(cellKey(c)).toBe(key));
});

describe("instanceOf", () => {
  const adaptive = (min: number) => ({ min, max: 40, precision: "5%" }) as AdaptiveRepeats;
  const rows: [string, Parameters<typeof instanceOf>[0], (number | undefined)[]][] = [
    ["one instance: none", { repeats: 6 }, [undefined, undefined, undefined]],
    ["one instance named: none", { repeats: 6, instances: 1 }, [undefined, undefined]],
    ["6 repeats on 2 instances: two contiguous blocks", { repeats: 6, instances: 2 }, [0, 0, 0, 1, 1, 1]],
    ["6 repeats on 3 instances", { repeats: 6, instances: 3 }, [0, 0, 1, 1, 2, 2]],
    ["5 repeats on 2 instances: the first block is the larger", { repeats: 5, instances: 2 }, [0, 0, 0, 1, 1]],
    [
      "adaptive, min 4 on 2 instances: a new one every 2 rounds, past min too",
      { repeats: adaptive(4), instances: 2 },
      [0, 0, 1, 1, 2, 2],
    ],
    ["adaptive, min 4 and no instances: a fresh instance every round", { repeats: adaptive(4) }, [0, 1, 2, 3, 4]],
    [
      "adaptive, min 5 on 2 instances: every ceil(5 / 2) = 3 rounds",
      { repeats: adaptive(5), instances: 2 },
      [0, 0, 0, 1, 1, 1, 2],
    ],
  ];
  it.each(rows)("%s", (_, w, want) => expect(want.map((_, i) => instanceOf(w, i + 1))).toEqual(want));
});
