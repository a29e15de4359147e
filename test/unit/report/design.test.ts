/** The design's printout from `plan --budget` on a repository scenario; its overrides make a valid scenario. */
import { readFileSync } from "node:fs";
import { Command } from "commander";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import type { Scenario } from "../../../src/core/model/scenario/schema.ts";
import { planRun } from "../../../src/core/plan/plan.ts";
import { registerScenarioCommands } from "../../../src/cli/commands/scenario.ts";
import { scenario as scenarioOf, type ScenarioDoc } from "../../support/scenario.ts";

const ctx = { lockImages: ["mariadb-11.8", "mysql-9.7", "sysbench-1.0"], hostCpus: 2 };

/** 2 tests × 3 thread counts: the reduced run. */
const REDUCED = {
  workload: {
    tests: ["oltp_read_only", "oltp_update_index"],
    threads: [1, 2, 4],
    duration: "10s",
    repeats: 1,
    tables: 1,
    tableSize: 10000,
    fresh: "per-test",
  },
};
const scenario = (patch: (d: ScenarioDoc) => void = () => {}): Scenario => scenarioOf([REDUCED, patch]);

describe("plan scenarios/seed-verdicts.yaml --budget 8h", () => {
  it("prints a design with the time per phase and what cannot reach ±5%; its overrides make a valid scenario", async () => {
    const out: string[] = [];
    const program = new Command("twinbench").exitOverride();
    registerScenarioCommands(program, {
      out: (l) => out.push(l),
      err: (l) => out.push(`ERR ${l}`),
      loadLockImages: async () => ctx.lockImages,
      loadPins: async () => [],
      renderTranslations: async () => ({}),
      hostCpus: () => 2,
      loadCalibration: async () => ({ key: "k", calibration: null }),
    });
    await program.parseAsync(["plan", "scenarios/seed-verdicts.yaml", "--budget", "8h"], { from: "user" });
    const text = out.join("\n");
    expect(text).toMatch(/Design for a budget of 8h 00m/);
    expect(text).toMatch(/design: \d+ s cells, \d+ s warm-up, \d+ rounds on \d+ server instances/);
    expect(text).toContain("noise: pair sd from a model from the notes' figures");
    expect(text).toMatch(/time per phase[\s\S]*measure \(\d+ cells × \d+ s\)[\s\S]*total: \d+h \d+m of 8h 00m/);
    expect(text).toMatch(/coverage of the 95% intervals \d+\.\d%/);
    expect(text).toMatch(/cells that cannot reach ±5%, and why:|every cell is expected within ±5%/);
    expect(text).toMatch(/hosts: 1 host: .*; 2 hosts: .*; 4 hosts: /);
    const sets = [...text.matchAll(/--set '([^']+)'/g)].map((m) => m[1]);
    expect(sets.length).toBeGreaterThanOrEqual(5);
    // The printed overrides applied to the seeds' procedure give a valid scenario that fits the budget.
    const seed = parse(readFileSync("scenarios/seed-mariadb-vs-mysql.yaml", "utf8"));
    const { loadScenarioText } = await import("../../../src/adapters/scenario-file.ts");
    const r = loadScenarioText(readFileSync("scenarios/seed-mariadb-vs-mysql.yaml", "utf8"), "seed.yaml", {
      sets,
      lockImages: ctx.lockImages,
      hostCpus: 2,
    });
    expect(seed.workload.duration).toBe("300s"); // the seeds' file stays the seeds' procedure
    expect(planRun(r.scenario).estimate.totalSeconds).toBeLessThanOrEqual(8 * 3600);
  }, 60_000);
});
