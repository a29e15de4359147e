/** The plan's printout (describePlan): cells, estimate, argv, pins, storage, and an adaptive run's layout. */
import { describe, expect, it } from "vitest";
import { planRun } from "../../../src/core/plan/plan.ts";
import { describePlan } from "../../../src/core/report/plan.ts";
import type { Scenario } from "../../../src/core/model/scenario/schema.ts";
import { scenario as scenarioOf, scenarioFile, type ScenarioDoc } from "../../support/scenario.ts";

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
const order = (s: Scenario) => planRun(s).cells.map((c) => `${c.server}:${c.test}:${c.threads}:${c.repeat}`);
const load = (f: string) => scenarioFile(f);

describe("describePlan", () => {
  it("prints cells, estimate, argv (redacted), pins, storage and translations", () => {
    const s = load("scenarios/seed-mariadb-vs-mysql.yaml");
    const lines = describePlan(planRun(s), s, {
      file: "scenarios/seed-mariadb-vs-mysql.yaml",
      pins: [
        { name: "mariadb-11.8", version: "11.8.9" },
        { name: "mysql-9.7", version: "9.7.4" },
      ],
      translations: {
        mariadb: [
          { option: "thread_cache", fate: "rename", rendered: ["thread_cache_size = 138"], reason: "not a variable" },
        ],
        mysql: [],
      },
    });
    const text = lines.join("\n");
    expect(text).toMatch(/^Estimated duration: 9h \d\dm/m);
    expect(text).toContain("  mariadb-11.8  version=11.8.9");
    expect(text).toContain(
      "RAID 0 over 2 loop-backed members of 4g: mdadm + xfs where the kernel has md, else btrfs raid0",
    );
    expect(text).toContain("  oltp_simple → oltp_point_select (legacy, not exact):");
    expect(text).toContain("  select: sysbench /usr/share/sysbench/select.lua --db-driver=mysql");
    expect(text).toContain("--mysql-password=***");
    expect(text).not.toContain("<random>");
    expect(text).toContain("    thread_cache: rename → thread_cache_size = 138 — not a variable");
    expect(text).toContain("Cells (112, in run order):");
    expect(
      lines.some((l) => /^\s+1\s+mariadb\s+delete\s+1\s+1\s+restore snapshot, warm-up 30s at 128 threads$/.test(l)),
    ).toBe(true);
  });
});

describe("describePlan, adaptive", () => {
  it("says the rounds and instances layout, the min-rounds time and the time at max rounds", () => {
    const s = scenario(
      (d) => (
        (d.workload.repeats = { min: 4, max: 20, precision: "5%" }),
        (d.workload.budget = "10m"),
        (d.workload.instances = 2)
      ),
    );
    const text = describePlan(planRun(s), s).join("\n");
    expect(text).toMatch(
      /Adaptive repeats: rounds of every open cell once per server, 4 to 20 rounds per cell, a cell stops when its interval is within ±5%/,
    );
    expect(text).toMatch(
      /a fresh instance of every server .* every 2 rounds: 2 in the first 4 rounds, up to 10 by round 20/,
    );
    expect(text).toMatch(
      /if every cell needs all 20 rounds: about \d+m \d+s, more than the budget: the budget stops the run at 10m/,
    );
    expect(text).toMatch(/Order: interleaved in rounds/);
  });
});
