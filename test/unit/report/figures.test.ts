/**
 * The figures beside a run's q/s table: the cost-per-query table of its pair, and the latency section and NOPM tables
 * of its pair or of every pair of its ladder.
 */
import { describe, expect, it } from "vitest";
import type { RunManifest } from "../../../src/core/model/results.ts";
import { buildCostTable, runFigures } from "../../../src/core/report/figures.ts";
import { load } from "../../support/results-fixture.ts";
import { PAIRS, ladderRun } from "../../support/ladder-fixture.ts";

const { manifest, cells } = load("repeats");

describe("buildCostTable", () => {
  it("the ratio table's two servers; none with one server", () => {
    const t = buildCostTable(manifest, cells)!;
    expect([t.numerator, t.denominator, t.pairing]).toEqual(["mariadb", "mysql", "paired"]);
    expect(t.recorded).toBe(false);
    const one = structuredClone(manifest) as RunManifest;
    one.scenario.servers = one.scenario.servers.slice(0, 1);
    expect(buildCostTable(one, cells)).toBeNull();
  });
});

describe("runFigures", () => {
  it("the two-server pair: three latency tables of it; no NOPM without TPC-C-like records", () => {
    const f = runFigures(manifest, cells, null);
    expect(f.latency!.tables.map((t) => `${t.table.numerator}/${t.table.denominator} ${t.percentile}`)).toEqual([
      "mariadb/mysql p50",
      "mariadb/mysql p95",
      "mariadb/mysql p99",
    ]);
    expect(f.nopm).toEqual([]);
  });
  it("an explicit pair and the margin reach the tables", () => {
    const f = runFigures(manifest, cells, null, { numerator: "mysql", denominator: "mariadb", marginPct: 2 });
    expect(f.latency!.tables[0]!.table).toMatchObject({ numerator: "mysql", denominator: "mariadb", marginPct: 2 });
  });
  it("a ladder: every pair's three percentiles", () => {
    const l = ladderRun("ladder");
    const f = runFigures(l.manifest, l.cells, PAIRS);
    expect(f.latency!.tables.map((t) => t.table.numerator)).toEqual([
      "mariadb",
      "mariadb",
      "mariadb",
      "mariadb-10",
      "mariadb-10",
      "mariadb-10",
    ]);
  });
  it("one server: no latency section", () => {
    const one = structuredClone(manifest) as RunManifest;
    one.scenario.servers = one.scenario.servers.slice(0, 1);
    expect(runFigures(one, cells, null).latency).toBeNull();
  });
});
