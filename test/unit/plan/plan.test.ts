import { describe, expect, it } from "vitest";
import { planRun, assertRunnable } from "../../../src/core/plan/plan.ts";
import { firstGoesFirst } from "../../../src/core/plan/order.ts";
import { orderNote, describePlan } from "../../../src/core/report/plan.ts";
import { testWrites } from "../../../src/core/model/scenario/legacy.ts";
import { isWriteTest } from "../../../src/core/model/sysbench/options.ts";
import { seedFromString } from "../../../src/core/base/random.ts";
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

describe("planRun ordering", () => {
  it("interleaved: ABBA over (test, threads, repeat) groups", () => {
    expect(order(scenario())).toEqual([
      "a:oltp_read_only:1:1",
      "b:oltp_read_only:1:1",
      "b:oltp_read_only:1:2",
      "a:oltp_read_only:1:2",
      "a:oltp_read_only:4:1",
      "b:oltp_read_only:4:1",
      "b:oltp_read_only:4:2",
      "a:oltp_read_only:4:2",
      "a:oltp_update_index:1:1",
      "b:oltp_update_index:1:1",
      "b:oltp_update_index:1:2",
      "a:oltp_update_index:1:2",
      "a:oltp_update_index:4:1",
      "b:oltp_update_index:4:1",
      "b:oltp_update_index:4:2",
      "a:oltp_update_index:4:2",
    ]);
  });

  it("interleaved: each server goes first equally often", () => {
    const cells = planRun(load("scenarios/quick.yaml")).cells;
    const first = new Map<string, number>();
    for (let i = 0; i < cells.length; i += 2) first.set(cells[i].server, (first.get(cells[i].server) ?? 0) + 1);
    expect(first.get("mariadb")).toBe(first.get("mysql"));
  });

  it("interleaved: three servers rotate", () => {
    const s = scenario((d) => {
      d.servers.push({ id: "c", image: "mariadb-10.11" });
      d.workload.tests = ["oltp_read_only"];
      d.workload.threads = [1];
      d.workload.repeats = 3;
    });
    expect(order(s)).toEqual([
      "a:oltp_read_only:1:1",
      "b:oltp_read_only:1:1",
      "c:oltp_read_only:1:1",
      "b:oltp_read_only:1:2",
      "c:oltp_read_only:1:2",
      "a:oltp_read_only:1:2",
      "c:oltp_read_only:1:3",
      "a:oltp_read_only:1:3",
      "b:oltp_read_only:1:3",
    ]);
  });

  it("interleaved, odd count: cells alternate which server starts, and plan says so", () => {
    const s = scenario((d) => {
      d.workload.tests = ["oltp_read_only"];
      d.workload.repeats = 3;
    });
    expect(order(s)).toEqual([
      "a:oltp_read_only:1:1",
      "b:oltp_read_only:1:1",
      "b:oltp_read_only:1:2",
      "a:oltp_read_only:1:2",
      "a:oltp_read_only:1:3",
      "b:oltp_read_only:1:3",
      "b:oltp_read_only:4:1",
      "a:oltp_read_only:4:1",
      "a:oltp_read_only:4:2",
      "b:oltp_read_only:4:2",
      "b:oltp_read_only:4:3",
      "a:oltp_read_only:4:3",
    ]);
    expect(orderNote(s)).toBe(
      "interleaved; 3 repeats is odd, so a cell cannot balance: cells alternate AB BA AB and BA AB BA, and an order effect cancels only over pairs of cells (use an even count)",
    );
    expect(orderNote(scenario((d) => (d.workload.repeats = 1)))).toContain("1 repeat is odd");
    expect(orderNote(scenario((d) => (d.workload.repeats = 4)))).toBe(
      "interleaved, ABBA inside each cell (4 repeats: AB BA AB BA): an order effect cancels in every cell",
    );
    expect(firstGoesFirst(0, 1, 2)).toBe(true);
    expect(firstGoesFirst(1, 1, 2)).toBe(true);
    expect(firstGoesFirst(1, 1, 3)).toBe(false);
  });

  it("randomized: seeded and recorded, the same seed gives the same order, half the pairs of a cell start with each", () => {
    const s = scenario((d) => {
      d.order = "randomized";
      d.orderSeed = 7;
      d.workload.repeats = 4;
    });
    const p = planRun(s);
    expect(p.orderSeed).toBe(7);
    expect(order(s)).toEqual(order(s));
    expect(order(s)).not.toEqual(
      order(scenario((d) => ((d.order = "randomized"), (d.orderSeed = 8), (d.workload.repeats = 4)))),
    );
    expect(order(s)).not.toEqual(order(scenario((d) => (d.workload.repeats = 4))));
    const firsts = new Map<string, number>();
    for (let i = 0; i < p.cells.length; i += 2) {
      const c = p.cells[i];
      expect(p.cells[i + 1]).toMatchObject({ test: c.test, threads: c.threads, repeat: c.repeat });
      if (c.server === "a") firsts.set(`${c.test}/${c.threads}`, (firsts.get(`${c.test}/${c.threads}`) ?? 0) + 1);
    }
    expect([...firsts.values()]).toEqual([2, 2, 2, 2]);
    // tests stay in scenario order (warm-ups and per-test restores depend on it)
    expect(p.cells.slice(0, 16).every((c) => c.test === "oltp_read_only")).toBe(true);
    expect(planRun(scenario((d) => (d.order = "randomized"))).orderSeed).toBe(seedFromString("t"));
  });

  it("adaptive repeats: the plan is the first min rounds, a new instance every ceil(min/N) rounds", () => {
    const s = scenario(
      (d) => ((d.workload.repeats = { min: 4, max: 40, precision: "3%" }), (d.workload.instances = 2)),
    );
    const p = planRun(s);
    expect(new Set(p.cells.map((c) => c.repeat))).toEqual(new Set([1, 2, 3, 4]));
    // round-major: every cell once per server in round 1, then round 2, ...
    expect(p.cells.slice(0, 8).every((c) => c.repeat === 1)).toBe(true);
    expect(p.cells.map((c) => c.instance)).toEqual([...Array(16).fill(0), ...Array(16).fill(1)]);
    expect(p.restarts).toEqual([{ instance: 1, beforeCell: 16 }]);
    // ABBA over rounds, and each round balanced over cells
    const firstOf = (r: number) =>
      p.cells
        .filter((c) => c.repeat === r)
        .filter((_, i) => i % 2 === 0)
        .map((c) => c.server);
    expect(firstOf(1)).toEqual(["a", "b", "a", "b"]);
    expect(firstOf(2)).toEqual(["b", "a", "b", "a"]);
    // adaptive runs across hosts are refused before anything is created
    const h = scenario((d) => {
      d.workload.repeats = { min: 2, max: 4, precision: "5%" };
      d.hosts = [
        { id: "h1", engine: "unix:///var/run/docker.sock" },
        { id: "h2", engine: "ssh://x" },
      ];
    });
    expect(() => assertRunnable(h)).toThrow(expect.objectContaining({ code: "ADAPTIVE_HOSTS" }));
  });

  it("server instances: repeats split into contiguous blocks, instance-block-major, restarts and their cost", () => {
    const s = scenario((d) => {
      d.workload.instances = 2;
      d.workload.repeats = 4;
      d.workload.warmup = "5s";
    });
    const p = planRun(s);
    expect(
      p.cells
        .map((c) => `${c.instance}:${c.repeat}`)
        .slice(0, 16)
        .every((x) => x === "0:1" || x === "0:2"),
    ).toBe(true);
    expect(p.cells.slice(16).every((c) => c.instance === 1 && c.repeat >= 3)).toBe(true);
    // ABBA inside each cell is unchanged: repeats 1..4 run AB BA AB BA
    const cell = p.cells.filter((c) => c.test === "oltp_read_only" && c.threads === 1);
    expect(cell.map((c) => c.server).join("")).toBe("abbaabba");
    // both cells of a pair share an instance
    for (const c of p.cells)
      expect(
        p.cells.find((x) => x.key !== c.key && x.test === c.test && x.threads === c.threads && x.repeat === c.repeat)!
          .instance,
      ).toBe(c.instance);
    expect(p.restarts).toEqual([{ instance: 1, beforeCell: 16 }]);
    expect(p.snapshots).toEqual(["a", "b"]);
    // re-warm-up after the restart: one warm-up per server × test × instance
    expect(p.warmups.length).toBe(2 * 2 * 2);
    expect(p.estimate.breakdown.some((b) => /instance restarts \(1 × 2 servers/.test(b.label))).toBe(true);
    expect(p.estimate.totalSeconds).toBeGreaterThan(
      planRun(scenario((d) => (d.workload.repeats = 4))).estimate.totalSeconds,
    );
    const text = describePlan(p, s).join("\n");
    expect(text).toMatch(
      /Server instances: 2; every server restarts fresh from the post-prepare snapshot before cell #17/,
    );
    expect(text).toMatch(/restart all servers \(instance 1\)/);
    // uneven blocks: 5 repeats over 2 instances → 0 0 0 1 1; 4 over 3 → 0 0 1 2
    const reps = (r: number, n: number) =>
      planRun(
        scenario(
          (d) => (
            (d.workload.repeats = r),
            (d.workload.instances = n),
            (d.workload.tests = ["oltp_read_only"]),
            (d.workload.threads = [1])
          ),
        ),
      )
        .cells.filter((c) => c.server === "a")
        .map((c) => c.instance);
    expect(reps(5, 2)).toEqual([0, 0, 0, 1, 1]);
    expect(reps(4, 3)).toEqual([0, 0, 1, 2]);
  });

  it("server instances with fresh: per-test: no extra restore right after a restart", () => {
    const s = scenario(
      (d) => ((d.workload.instances = 2), (d.workload.fresh = "per-test"), (d.workload.tests = ["oltp_update_index"])),
    );
    const p = planRun(s);
    // one restore per server before instance 0's write test; instance 1 starts from the restored snapshot
    expect(p.restores.map((r) => r.beforeCell)).toEqual([0, 1]);
  });

  it("grouped and randomized orders keep instance blocks", () => {
    for (const o of ["grouped", "randomized"]) {
      const p = planRun(scenario((d) => ((d.order = o), (d.workload.instances = 2), (d.workload.repeats = 4))));
      const inst = p.cells.map((c) => c.instance!);
      expect(inst).toEqual([...inst].sort((x, y) => x - y));
    }
  });

  it("grouped: all cells of one server, then the next", () => {
    const s = scenario((d) => {
      d.order = "grouped";
      d.workload.repeats = 1;
    });
    expect(order(s)).toEqual([
      "a:oltp_read_only:1:1",
      "a:oltp_read_only:4:1",
      "a:oltp_update_index:1:1",
      "a:oltp_update_index:4:1",
      "b:oltp_read_only:1:1",
      "b:oltp_read_only:4:1",
      "b:oltp_update_index:1:1",
      "b:oltp_update_index:4:1",
    ]);
  });

  it("cells carry index, key and the 1.0.20 script of legacy names", () => {
    const s = scenario((d) => {
      d.workload.tests = ["oltp_simple", "select"];
      d.workload.threads = [1];
      d.workload.repeats = 1;
    });
    expect(planRun(s).cells).toEqual([
      {
        index: 0,
        key: "a/oltp_simple/1/1",
        server: "a",
        test: "oltp_simple",
        script: "oltp_point_select",
        threads: 1,
        repeat: 1,
      },
      {
        index: 1,
        key: "b/oltp_simple/1/1",
        server: "b",
        test: "oltp_simple",
        script: "oltp_point_select",
        threads: 1,
        repeat: 1,
      },
      { index: 2, key: "b/select/1/1", server: "b", test: "select", script: "select", threads: 1, repeat: 1 },
      { index: 3, key: "a/select/1/1", server: "a", test: "select", script: "select", threads: 1, repeat: 1 },
    ]);
  });

  it("keys are unique", () => {
    const cells = planRun(load("scenarios/seed-mariadb-vs-mysql.yaml")).cells;
    expect(cells).toHaveLength(8 * 7 * 2);
    expect(new Set(cells.map((c) => c.key)).size).toBe(cells.length);
  });
});

describe("warm-ups and restores", () => {
  it("one warm-up per server per test, before its first cell, at the test's max threads", () => {
    const p = planRun(scenario((d) => (d.workload.warmup = "5s")));
    expect(p.warmups).toEqual([
      { server: "a", test: "oltp_read_only", script: "oltp_read_only", threads: 4, seconds: 5, beforeCell: 0 },
      { server: "b", test: "oltp_read_only", script: "oltp_read_only", threads: 4, seconds: 5, beforeCell: 1 },
      { server: "a", test: "oltp_update_index", script: "oltp_update_index", threads: 4, seconds: 5, beforeCell: 8 },
      { server: "b", test: "oltp_update_index", script: "oltp_update_index", threads: 4, seconds: 5, beforeCell: 9 },
    ]);
  });

  it("no warm-ups when warmup is 0", () => {
    expect(planRun(scenario()).warmups).toEqual([]);
  });

  it("fresh: per-test snapshots once and restores before each write test", () => {
    const p = planRun(scenario((d) => (d.workload.fresh = "per-test")));
    expect(p.snapshots).toEqual(["a", "b"]);
    expect(p.restores).toEqual([
      { server: "a", test: "oltp_update_index", beforeCell: 8 },
      { server: "b", test: "oltp_update_index", beforeCell: 9 },
    ]);
    expect(planRun(scenario()).restores).toEqual([]);
  });

  it("write tests", () => {
    const writes = [
      "oltp_delete",
      "oltp_insert",
      "oltp_read_write",
      "oltp_update_index",
      "oltp_update_non_index",
      "oltp_write_only",
      "bulk_insert",
    ];
    for (const w of writes) expect(isWriteTest(w)).toBe(true);
    for (const r of ["oltp_read_only", "oltp_point_select", "select", "select_random_points", "select_random_ranges"])
      expect(isWriteTest(r)).toBe(false);
    expect(testWrites("delete")).toBe(true);
    expect(testWrites("oltp_complex_ro")).toBe(false);
  });
});

describe("hosts", () => {
  const hosts = [
    { id: "h1", engine: "unix:///var/run/docker.sock" },
    { id: "h2", engine: "tcp://127.0.0.2:2375" },
  ];
  it("compare: hosts runs the whole plan on each host", () => {
    const p = planRun(scenario((d) => (d.hosts = hosts)));
    expect(p.cells).toHaveLength(32);
    expect(p.cells.filter((c) => c.host === "h2").map((c) => c.key.replace(/^h2\//, ""))).toEqual(
      p.cells.filter((c) => c.host === "h1").map((c) => c.key.replace(/^h1\//, "")),
    );
    expect(p.cells[0].key).toBe("h1/a/oltp_read_only/1/1");
  });
  it("shard spreads groups round-robin and keeps ABBA inside each cell, across the hosts", () => {
    const p = planRun(
      scenario((d) => {
        d.hosts = hosts;
        d.shard = true;
      }),
    );
    expect(p.cells).toHaveLength(16);
    const h1 = p.cells.filter((c) => c.host === "h1").map((c) => `${c.server}:${c.threads}:${c.repeat}:${c.test}`);
    // Repeat 1 of every cell went to h1 (A first), repeat 2 to h2 (B first): each cell is AB BA.
    expect(h1.slice(0, 4)).toEqual([
      "a:1:1:oltp_read_only",
      "b:1:1:oltp_read_only",
      "a:4:1:oltp_read_only",
      "b:4:1:oltp_read_only",
    ]);
    const firsts = new Map<string, string[]>();
    for (let i = 0; i < p.cells.length; i += 2) {
      const c = p.cells[i];
      firsts.set(`${c.test}/${c.threads}`, [...(firsts.get(`${c.test}/${c.threads}`) ?? []), c.server]);
    }
    for (const f of firsts.values()) expect(f.sort()).toEqual(["a", "b"]);
    expect(p.estimate.notes).toContain("2 hosts run in parallel: the total is the longest host's");
  });
});
