/**
 * Shard planning and redistribution for multi-host runs (src/core/hosts/shard.ts). The other pure parts of
 * multi-host runs have their own files: hosts/url, hosts/facts.diff, hosts/parity, hosts/merge, report/hosts.
 */
import { describe, expect, it } from "vitest";
import { cellsByHost, missingCells, redistribute, shardSummary, groupKey } from "../../../src/core/hosts/shard.ts";
import { planRun } from "../../../src/core/plan/plan.ts";
import type { CellRecord } from "../../../src/core/model/results.ts";
import { SERVERS_BY_FAMILY, scenario as scenarioOf, type ScenarioOverrides } from "../../support/scenario.ts";
import { cellRecord } from "../../support/record.ts";

const scenario = (extra: ScenarioOverrides = {}) =>
  scenarioOf(
    [
      {
        servers: SERVERS_BY_FAMILY,
        workload: { tests: ["oltp_read_only", "oltp_point_select"], threads: [1, 4], duration: "2s", repeats: 2 },
      },
      extra,
    ],
    { check: "schema" },
  );

describe("shard planning", () => {
  const hosts = [
    { id: "a", engine: "unix:///a.sock" },
    { id: "b", engine: "tcp://b:2375" },
    { id: "c", engine: "tcp://c:2375" },
  ];
  const plan = planRun(scenario({ hosts, shard: true }));

  it("group k goes to host k mod h, servers of a group stay together", () => {
    // 2 tests x 2 threads x 2 repeats = 8 groups over 3 hosts: 3, 3, 2 groups.
    expect(shardSummary(plan.cells)).toEqual([
      { host: "a", groups: 3, cells: 6 },
      { host: "b", groups: 3, cells: 6 },
      { host: "c", groups: 2, cells: 4 },
    ]);
    for (const [, cells] of cellsByHost(plan.cells)) {
      const groups = new Map<string, string[]>();
      for (const c of cells) groups.set(groupKey(c), [...(groups.get(groupKey(c)) ?? []), c.server]);
      for (const servers of groups.values()) expect(servers.sort()).toEqual(["mariadb", "mysql"]);
    }
  });

  it("missing cells: planned cells without an ok measure record", () => {
    const bCells = cellsByHost(plan.cells).get("b")!;
    const rec = (key: string, status: CellRecord["status"], phase: CellRecord["phase"] = "measure") =>
      cellRecord({ key, status, phase });
    const records = [rec(bCells[0]!.key, "ok"), rec(bCells[1]!.key, "failed"), rec(bCells[2]!.key, "ok", "warmup")];
    expect(missingCells(bCells, records).map((c) => c.key)).toEqual(bCells.slice(1).map((c) => c.key));
  });

  it("a lost host's cells go to the survivors by whole groups, in plan order", () => {
    const bCells = cellsByHost(plan.cells).get("b")!;
    const moved = redistribute(bCells, ["a", "c"]);
    const groupsOf = (h: string) => [...new Set(moved.get(h)!.map(groupKey))];
    const bGroups = [...new Set(bCells.map(groupKey))];
    expect(groupsOf("a")).toEqual([bGroups[0], bGroups[2]]);
    expect(groupsOf("c")).toEqual([bGroups[1]]);
    expect(moved.get("a")!.length + moved.get("c")!.length).toBe(bCells.length);
    expect(redistribute(bCells, []).size).toBe(0);
  });

  it("without shard every host runs the whole plan", () => {
    const all = planRun(scenario({ hosts: hosts.slice(0, 2), compare: "hosts" }));
    expect(shardSummary(all.cells)).toEqual([
      { host: "a", groups: 8, cells: 16 },
      { host: "b", groups: 8, cells: 16 },
    ]);
  });
});
