/** A version ladder: compare: { base }, its pairs, the server order, the stop rule and the report's blocks. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseCellsJsonl } from "../../../../src/adapters/report-files.ts";
import { adaptiveState, nextAdaptiveRound, widestPair } from "../../../../src/core/plan/adaptive.ts";
import { planRun } from "../../../../src/core/plan/plan.ts";
import { serverOrder, williamsRows } from "../../../../src/core/plan/order.ts";
import { buildRunReport } from "../../../../src/core/report/model.ts";
import { reportJson } from "../../../../src/core/report/json.ts";
import { buildRatioTable } from "../../../../src/core/stats/ratio.ts";
import { benjaminiHochberg } from "../../../../src/core/stats/fdr.ts";
import { comparisonPairs, ladderBase, primaryPair } from "../../../../src/core/model/scenario/pairs.ts";
import { validateScenario } from "../../../../src/core/model/scenario/validate.ts";
import type { Cell, CellRecord, RunManifest } from "../../../../src/core/model/results.ts";
import type { Scenario } from "../../../../src/core/model/scenario/schema.ts";
import { TEST_CONTEXT, scenarioDoc, scenarioFrom, type ScenarioOverrides } from "../../../support/scenario.ts";
import { cellRecord, sysbench } from "../../../support/record.ts";

const SERVERS = [
  { id: "old", image: "mariadb-10.11" },
  { id: "new", image: "mariadb-11.8" },
  { id: "base", image: "mysql-9.7" },
];

const doc = (extra: ScenarioOverrides, servers: object[] = SERVERS, workload: Record<string, unknown> = {}) =>
  scenarioDoc(
    { servers, workload: { tests: ["oltp_read_only"], threads: [1, 2], duration: "5s", ...workload } },
    extra,
  );
const validate = (...args: Parameters<typeof doc>) => validateScenario(doc(...args), "t.yaml", TEST_CONTEXT);
const scenario = (...args: Parameters<typeof doc>): Scenario => scenarioFrom(doc(...args));

describe("compare: { base } in the scenario", () => {
  it("is accepted beside the two-server form, which keeps its meaning", () => {
    expect(scenario({ compare: { base: "base" } }).compare).toEqual({ base: "base" });
    expect(scenario({ compare: { numerator: "new", denominator: "old" } }).compare).toEqual({
      numerator: "new",
      denominator: "old",
    });
  });

  it("refuses a base that is not a server id, with the field path and the servers to choose from", () => {
    const r = validate({ compare: { base: "bse" } });
    expect("errors" in r && r.errors).toEqual([
      expect.stringMatching(
        /^t\.yaml: compare\.base: "bse" is not a server id \(servers: old, new, base\).*did you mean "base"/,
      ),
    ]);
  });

  it("refuses a ladder of one server, and both forms at once", () => {
    const one = validate({ compare: { base: "base" } }, [SERVERS[2]]);
    expect("errors" in one && one.errors.some((e) => e.includes("compare.base"))).toBe(true);
    const both = validate({ compare: { base: "base", numerator: "old", denominator: "base" } });
    expect("errors" in both).toBe(true);
  });
});

describe("comparisonPairs", () => {
  it("base: every other server over the base, in servers order", () => {
    const s = scenario({ compare: { base: "new" } });
    expect(comparisonPairs(s)).toEqual([
      { numerator: "old", denominator: "new" },
      { numerator: "base", denominator: "new" },
    ]);
    expect(ladderBase(s)).toBe("new");
    expect(primaryPair(s)).toEqual(["old", "new"]);
  });

  it("the two-server form: that one pair; no compare: the first two servers (as before); one server: none", () => {
    expect(comparisonPairs(scenario({ compare: { numerator: "base", denominator: "old" } }))).toEqual([
      { numerator: "base", denominator: "old" },
    ]);
    expect(comparisonPairs(scenario({}))).toEqual([{ numerator: "old", denominator: "new" }]);
    expect(comparisonPairs(scenario({ compare: "runs" }, [SERVERS[0]]))).toEqual([]);
    expect(ladderBase(scenario({}))).toBeUndefined();
  });
});

/** How often each server runs at each position, over a list of orders. */
function positions(orders: string[][]): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const o of orders)
    o.forEach((srv, i) => {
      const row = out.get(srv) ?? Array(o.length).fill(0);
      row[i]++;
      out.set(srv, row);
    });
  return out;
}
/** How often server x runs right before server y. */
function successions(orders: string[][]): Map<string, number> {
  const out = new Map<string, number>();
  for (const o of orders)
    for (let i = 1; i < o.length; i++) out.set(`${o[i - 1]}>${o[i]}`, (out.get(`${o[i - 1]}>${o[i]}`) ?? 0) + 1);
  return out;
}

describe("server order with more than two servers (a Williams design)", () => {
  it("two servers: ABBA as before", () => {
    expect([0, 1, 2, 3].map((k) => serverOrder(["a", "b"], k).join(""))).toEqual(["ab", "ba", "ab", "ba"]);
    expect(williamsRows(2)).toEqual([
      [0, 1],
      [1, 0],
    ]);
  });

  it.each([3, 4, 5, 6])(
    "%i servers: every n groups put each server in each position once, for any shift; every design's rows balance successions",
    (n) => {
      const servers = Array.from({ length: n }, (_, i) => `s${i}`);
      const rows = williamsRows(n).length;
      expect(rows).toBe(n % 2 === 0 ? n : 2 * n);
      for (const shift of [0, 1, n - 1])
        for (let block = 0; block < 4; block++) {
          const orders = Array.from({ length: n }, (_, j) => serverOrder(servers, block * n + j, shift));
          for (const counts of positions(orders).values()) expect(counts).toEqual(Array(n).fill(1));
        }
      const all = Array.from({ length: rows }, (_, k) => serverOrder(servers, k));
      const succ = successions(all);
      expect(succ.size).toBe(n * (n - 1));
      expect(new Set(succ.values())).toEqual(new Set([rows / n]));
    },
  );

  it("adaptive rounds of a 3-server ladder: in every cell each server equally often in each position over k·3 rounds", () => {
    const s = scenario({ compare: { base: "base" } }, SERVERS, {
      tests: ["oltp_read_only", "oltp_point_select"],
      threads: [1, 4],
      repeats: { min: 6, max: 12, precision: "1%" },
    });
    const recorded: CellRecord[] = [];
    const perCell = new Map<string, string[][]>();
    let issued: number | undefined;
    for (let r = 1; r <= 6; r++) {
      const step = nextAdaptiveRound(s, recorded, issued);
      expect(step.round).toBe(r);
      expect(step.cells.length).toBe(4 * 3);
      for (let i = 0; i < step.cells.length; i += 3) {
        const trio = step.cells.slice(i, i + 3);
        const k = `${trio[0].test}/${trio[0].threads}`;
        expect(new Set(trio.map((c) => c.server))).toEqual(new Set(["old", "new", "base"]));
        perCell.set(k, [...(perCell.get(k) ?? []), trio.map((c) => c.server)]);
      }
      recorded.push(...records(step.cells, () => 1));
      issued = r;
    }
    expect(perCell.size).toBe(4);
    for (const orders of perCell.values()) {
      for (const counts of positions(orders.slice(0, 3)).values()) expect(counts).toEqual([1, 1, 1]);
      for (const counts of positions(orders).values()) expect(counts).toEqual([2, 2, 2]);
      expect(new Set(successions(orders).values())).toEqual(new Set([2]));
    }
    // The cells of one round do not all start with the same server.
    const firsts = new Set([...perCell.values()].map((o) => o[0][0]));
    expect(firsts.size).toBeGreaterThan(1);
  });

  it("fixed repeats, 3 servers, 6 repeats: each cell balanced by position; fresh instances for every server", () => {
    const s = scenario({ compare: { base: "base" } }, SERVERS, { repeats: 6, instances: 2 });
    const plan = planRun(s);
    for (const threads of [1, 2]) {
      const orders: string[][] = [];
      for (let r = 1; r <= 6; r++)
        orders.push(plan.cells.filter((c) => c.threads === threads && c.repeat === r).map((c) => c.server));
      for (const counts of positions(orders).values()) expect(counts).toEqual([2, 2, 2]);
    }
    expect(plan.snapshots).toEqual(["old", "new", "base"]);
    expect(plan.restarts.map((x) => x.instance)).toEqual([1]);
    expect(new Set(plan.cells.filter((c) => c.instance === 1).map((c) => c.server))).toEqual(
      new Set(["old", "new", "base"]),
    );
  });
});

/** Records of a round: base at 1000 q/s, every other server at 1000 × ratio(cell). */
function records(cells: Cell[], ratio: (c: Cell) => number): CellRecord[] {
  return cells.map((c) =>
    cellRecord({
      key: c.key,
      server: c.server,
      test: c.test,
      threads: c.threads,
      repeat: c.repeat,
      metrics: sysbench({ qps: c.server === "base" ? 1000 : 1000 * ratio(c) }),
      startedAt: `2026-01-01T00:00:${String(c.index % 60).padStart(2, "0")}Z`,
      ...(c.instance !== undefined ? { instance: c.instance } : {}),
    }),
  );
}
function drive(s: Scenario, ratio: (c: Cell) => number) {
  const recorded: CellRecord[] = [];
  let issued: number | undefined;
  let rounds = 0;
  for (;;) {
    const step = nextAdaptiveRound(s, recorded, issued);
    if (!step.cells.length) return { rounds, state: step.state, recorded };
    rounds++;
    recorded.push(...records(step.cells, ratio));
    issued = step.round;
  }
}

describe("the adaptive stop rule over every pair with the base", () => {
  // "old" is steady against the base; "new" swings ±30% in the 2-thread cell (never within 10%).
  const ratio = (c: Cell) =>
    c.server === "old" || c.threads === 1 ? 1 + 0.001 * (c.repeat % 2) : c.repeat % 2 ? 1.3 : 0.7;
  const adaptive = { repeats: { min: 4, max: 7, precision: "10%" }, instances: 1 };

  it("a cell stops only when all its pairs reach the target", () => {
    const ladder = scenario({ compare: { base: "base" } }, SERVERS, adaptive);
    const { state, rounds } = drive(ladder, ratio);
    expect(rounds).toBe(7);
    expect(state.map((c) => [c.threads, c.done, c.rounds])).toEqual([
      [1, "precision", 4],
      [2, "max", 7],
    ]);
    // The cell's own figures are its widest pair's; every pair's reading is kept.
    const noisy = state.find((c) => c.threads === 2)!;
    expect(noisy.pairs!.map((p) => `${p.numerator}/${p.denominator}`)).toEqual(["old/base", "new/base"]);
    const [oldPair, newPair] = noisy.pairs!;
    expect(oldPair.stopHalfWidthPct!).toBeLessThanOrEqual(10);
    expect(newPair.stopHalfWidthPct!).toBeGreaterThan(10);
    expect(noisy.stopHalfWidthPct).toBe(newPair.stopHalfWidthPct);
    expect(noisy.estimate).toBe(newPair.estimate);
  });

  it("the same records read as the steady pair alone stop both cells at precision (two-server form: no pairs field)", () => {
    const one = scenario({ compare: { numerator: "old", denominator: "base" } }, SERVERS, adaptive);
    const ladder = drive(scenario({ compare: { base: "base" } }, SERVERS, adaptive), ratio);
    const state = adaptiveState(one, ladder.recorded, 4);
    expect(state.map((c) => c.done)).toEqual(["precision", "precision"]);
    expect(state.every((c) => c.pairs === undefined)).toBe(true);
  });

  it("widestPair: a pair without a stop width is the widest", () => {
    const p = (numerator: string, w: number | null) => ({
      numerator,
      denominator: "b",
      n: 4,
      estimate: 100,
      low: 99,
      high: 101,
      halfWidthPct: w,
      stopHalfWidthPct: w,
    });
    expect(widestPair([p("x", 3), p("y", 8), p("z", 5)])!.numerator).toBe("y");
    expect(widestPair([p("x", 3), p("y", null), p("z", 50)])!.numerator).toBe("y");
    expect(widestPair([])).toBeUndefined();
  });
});

const FIX = join(import.meta.dirname, "../../../fixtures/results");
function load(name: string): { manifest: RunManifest; cells: CellRecord[] } {
  const manifest = JSON.parse(readFileSync(join(FIX, name, "run.json"), "utf8")) as RunManifest;
  return { manifest, cells: parseCellsJsonl(readFileSync(join(FIX, name, "cells.jsonl"), "utf8")).cells };
}

/** The `repeats` fixture (mariadb, mysql) with a third server, "mariadb-old", at 90% of mariadb's q/s ± 1%. */
function ladderRun(): { manifest: RunManifest; cells: CellRecord[] } {
  const { manifest, cells } = load("repeats");
  const oldCells = cells
    .filter((c) => c.server === "mariadb")
    .map((c, i) => ({
      ...c,
      key: c.key.replace(/^mariadb\//, "mariadb-old/"),
      server: "mariadb-old",
      metrics: c.metrics && { ...c.metrics, qps: (c.metrics.qps ?? 0) * (0.9 + 0.01 * ((i % 3) - 1)) },
    }));
  const srv = manifest.servers.find((s) => s.id === "mariadb")!;
  const m: RunManifest = {
    ...manifest,
    scenario: {
      ...manifest.scenario,
      servers: [{ id: "mariadb-old", image: "twinbench/mariadb:10.11" }, ...manifest.scenario.servers],
      compare: { base: "mysql" },
    },
    servers: [{ ...srv, id: "mariadb-old" }, ...manifest.servers],
    cells: [
      ...manifest.cells,
      ...manifest.cells
        .filter((c) => c.server === "mariadb")
        .map((c) => ({ ...c, server: "mariadb-old", key: c.key.replace(/^mariadb\//, "mariadb-old/") })),
    ],
  };
  return { manifest: m, cells: [...cells, ...oldCells] };
}

describe("the report of a ladder", () => {
  it("one table per pair, q-values by Benjamini–Hochberg over every pair × cell; the primary table is the first pair's", () => {
    const { manifest, cells } = ladderRun();
    const report = buildRunReport(manifest, cells);
    expect(report.pairs.map((t) => `${t.numerator}/${t.denominator}`)).toEqual(["mariadb-old/mysql", "mariadb/mysql"]);
    expect(report.table).toBe(report.pairs[0]);
    const all = report.pairs.flatMap((t) => t.rows.flatMap((r) => r.cells));
    expect(all.length).toBe(2 * 2 * 3);
    const qs = benjaminiHochberg(all.map((c) => c.p));
    all.forEach((c, i) => expect(c.q).toBeCloseTo(qs[i]!, 6));
    // Each pair's interval is the two-server table's: only the multiple-testing reading is joint.
    const alone = buildRatioTable(manifest, cells, { numerator: "mariadb", denominator: "mysql" })!;
    const joint = report.pairs[1];
    expect(joint.rows.map((r) => r.cells.map((c) => [c.low, c.high, c.verdict]))).toEqual(
      alone.rows.map((r) => r.cells.map((c) => [c.low, c.high, c.verdict])),
    );
    // More tests at once: no cell's q is smaller than in its own pair's table (failed and missing cells have none).
    const qPairs = joint.rows.flatMap((r, i) => r.cells.map((c, j) => [c.q, alone.rows[i].cells[j].q] as const));
    expect(qPairs.filter(([x]) => x !== null).length).toBe(4);
    for (const [x, y] of qPairs) if (x !== null) expect(x).toBeGreaterThanOrEqual(y! - 1e-6);
    expect(report.ladder!.method.pairs).toBe(2);
  });

  it("report.json: ladder.pairs holds one block per pair with an interval and a verdict in every cell", () => {
    const { manifest, cells } = ladderRun();
    const j = reportJson(buildRunReport(manifest, cells)) as any;
    expect(j.ladder.pairs.map((p: any) => [p.numerator, p.denominator])).toEqual([
      ["mariadb-old", "mysql"],
      ["mariadb", "mysql"],
    ]);
    // The fixture's oltp_point_select at 4 threads failed and at 8 is missing: every other cell has both.
    for (const p of j.ladder.pairs)
      for (const r of p.rows)
        for (const c of r.cells.filter((x: any) => x.status === "ok")) {
          expect(c.low).toEqual(expect.any(Number));
          expect(c.high).toBeGreaterThan(c.low);
          expect(c.verdict).not.toBe("unknown");
        }
    expect(
      j.ladder.pairs.map((p: any) => p.rows.flatMap((r: any) => r.cells.filter((c: any) => c.status === "ok")).length),
    ).toEqual([4, 4]);
    // The 10.11 stand-in runs at about 90% of mysql's 11.8 ratio.
    expect(j.ladder.pairs[0].rows[0].cells[0].estimate / j.ladder.pairs[1].rows[0].cells[0].estimate).toBeCloseTo(
      0.9,
      1,
    );
    expect(j.numerator).toBe("mariadb-old");
  });

  it("a two-server run: one pair, the same table, and no ladder in its JSON", () => {
    const { manifest, cells } = load("repeats");
    const report = buildRunReport(manifest, cells);
    expect(report.pairs).toHaveLength(1);
    expect(report.pairs[0]).toEqual(report.table);
    expect("ladder" in (reportJson(report) as any)).toBe(false);
    expect(report.ladder).toBeNull();
  });
});
