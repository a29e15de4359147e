/** The compact cost table (src/core/report/cost-summary.ts): read like q/s, only the figures that moved. */
import { describe, expect, it } from "vitest";
import { buildRunReport } from "../../../src/core/report/model.ts";
import { costSummary, costSummaryLines } from "../../../src/core/report/cost-summary.ts";
import { load } from "../../support/results-fixture.ts";

const { manifest, cells } = load("quick");
const report = buildRunReport(manifest, cells);

describe("cost summary", () => {
  const s = costSummary(report.costs)!;
  it("server CPU per query always, then only the figures that moved (multiplicity controlled)", () => {
    expect(s.figures[0]!.key).toBe("serverCpuUs");
    expect(s.figures.map((f) => f.key)).toContain("logBytes"); // MariaDB writes fewer redo bytes per update
    expect(s.figures.map((f) => f.key)).not.toContain("rowsRead"); // equal on both sides
    expect(s.figures.length).toBeLessThanOrEqual(4);
  });
  it("reads like the q/s table: above 100 means the numerator does the same query for less", () => {
    const raw = report.costs!.cells.find((c) => c.test === "oltp_point_select" && c.threads === 1)!;
    const cpu = raw.figures.find((f) => f.figure === "serverCpuUs")!;
    const row = s.rows.find((r) => r.test === "oltp_point_select" && r.threads === 1)!;
    expect(cpu.estimate!).toBeLessThan(100); // MariaDB costs less per query …
    expect(row.points[0]!.estimate).toBeCloseTo(10000 / cpu.estimate!, 6); // … so it reads above 100
    expect(row.points[0]!.low).toBeCloseTo(10000 / cpu.high!, 6);
    const redo = s.rows.find((r) => r.test === "oltp_update_non_index" && r.threads === 1)!.points[
      s.figures.findIndex((f) => f.key === "logBytes")
    ]!;
    expect(redo.estimate).toBeGreaterThan(120);
    expect(redo.moved).toBe(true);
  });
  it("its text is a table within 120 characters, and a run without cost readings has none", () => {
    const lines = costSummaryLines(s);
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(120);
    expect(lines[0]).toBe("Cost per query, MySQL / MariaDB × 100 (above 100: MariaDB does the same work for less):");
    expect(costSummary(null)).toBeNull();
    const none = load("repeats");
    expect(costSummary(buildRunReport(none.manifest, none.cells).costs)).toBeNull();
  });
});
