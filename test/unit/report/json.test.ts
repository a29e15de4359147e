/** The JSON report: the ratio table's fixed shape at the top, the run's facts under `run`. */
import { answerLegend } from "../../../src/core/report/answer.ts";
import { cellVerdictText, verdictWordOf } from "../../../src/core/model/vocabulary.ts";
import { titleLine } from "../../../src/core/report/first-screen.ts";
import { describe, expect, it } from "vitest";
import { buildRunReport, type RunReport } from "../../../src/core/report/model.ts";
import { renderJson, reportJson } from "../../../src/core/report/json.ts";
import { ratioTableJson } from "../../../src/core/stats/ratio.ts";
import { load } from "../../support/results-fixture.ts";

describe("reportJson", () => {
  const { manifest, cells } = load("repeats");
  const report = buildRunReport(manifest, cells);
  const json = (r: RunReport) => reportJson(r) as Record<string, unknown> & { run: Record<string, unknown> };

  it("a two-server run: the ratio table's fields at the top, then run", () => {
    const j = json(report);
    const { run, answer, latency, nopm, ...top } = j;
    // The latency percentiles and NOPM beside the table (src/core/report/latency.ts has their shape).
    expect(latency).toMatchObject({ fdr: { method: "benjamini-hochberg" }, tables: expect.any(Array) });
    expect(nopm).toEqual([]);
    // The ratio table's fixed shape, each cell with its verdict in the report's words added.
    const plainTable = ratioTableJson(report.table!) as { rows: Array<{ cells: object[] }> };
    expect(top).toEqual({
      ...plainTable,
      rows: plainTable.rows.map((r, i) => ({
        ...r,
        cells: r.cells.map((c, k) => {
          const cell = report.table!.rows[i]!.cells[k]!;
          return {
            ...c,
            verdictWord: verdictWordOf(cell),
            verdictText: cellVerdictText(cell, report.table!.marginPct),
          };
        }),
      })),
    });
    const words = (top.rows as Array<{ cells: Array<{ verdictWord: string | null }> }>).flatMap((r) =>
      r.cells.map((c) => c.verdictWord),
    );
    expect(words).toEqual(["unclear", "faster", "unclear", "slower", null, null]);
    expect(answer).toMatchObject({ title: titleLine(report), legend: answerLegend(report.table!) });
    expect(top).toMatchObject({ numerator: "mariadb", denominator: "mysql" });
    expect(run).toMatchObject({
      runId: report.runId,
      scenario: report.scenarioName,
      status: report.status,
      partial: report.partial,
      planned: report.planned,
      recorded: report.recorded,
      failed: report.failed,
    });
    expect(Object.keys(run.configIdentity as object).sort()).toEqual(["checked", "differing", "verdict"]);
    expect(run).not.toHaveProperty("replication");
  });

  it.each<[string, Partial<RunReport>, Record<string, unknown>]>([
    [
      "no table and no ladder: the fixed shape, empty",
      { table: null, ladder: null },
      { metric: null, numerator: null, denominator: null, threads: [], rows: [] },
    ],
    [
      "replication asked for but none: null",
      { replication: null },
      { run: expect.objectContaining({ replication: null }) },
    ],
    [
      "replication: its cells as an object",
      {
        replication: {
          runs: 3,
          cells: new Map([["oltp_read_only@1", { n: 3 }]]),
        } as unknown as RunReport["replication"],
      },
      { run: expect.objectContaining({ replication: { runs: 3, cells: { "oltp_read_only@1": { n: 3 } } } }) },
    ],
  ])("%s", (_, over, want) => expect(json({ ...report, ...over })).toMatchObject(want));

  it("renderJson is the same object as text, two-space indented, with a final newline", () => {
    const text = renderJson(report);
    expect(text.endsWith("}\n")).toBe(true);
    expect(text.split("\n")[1]).toMatch(/^ {2}"/);
    expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(reportJson(report))));
  });
});
