/** The history's printed form: what was read, the level between runs when measured, and each cell's runs. */
import { describe, expect, it } from "vitest";
import { levelLine, NO_LEVEL_YET, renderHistory, replicationLines } from "../../../src/core/report/history.ts";
import { buildRunReport } from "../../../src/core/report/model.ts";
import { CSV_HEADER, REPLICATION_CSV_HEADER, renderCsv } from "../../../src/core/report/csv.ts";
import { LATENCY_CSV_HEADER } from "../../../src/core/report/latency.ts";
import { historyEntry } from "../../../src/core/stats/history.ts";
import { hostKey } from "../../../src/core/plan/calibration/host-key.ts";
import { load } from "../../support/results-fixture.ts";
import type { HistoryView } from "../../../src/core/stats/history-view.ts";
import type { ReplicationCell } from "../../../src/core/stats/replication.ts";

const empty: HistoryView = { hosts: [], cells: [], outside: [], skipped: [] };

describe("renderHistory", () => {
  it("no runs: says so, and that no level between runs is measured", () => {
    expect(renderHistory(empty)).toEqual(["No runs in the history.", NO_LEVEL_YET]);
  });

  it("this host has no runs but others do: says so, and how to show the one with the most", () => {
    const v: HistoryView = {
      ...empty,
      host: "mine",
      hosts: [
        { hostKey: "h1", cpuModel: "AMD EPYC", runs: 7 },
        { hostKey: "h2", cpuModel: "Intel Xeon", runs: 2 },
      ],
    };
    expect(renderHistory(v)).toEqual([
      "No runs of this host in the history.",
      "Runs of 2 other hosts are here; the most: AMD EPYC, 7 runs:",
      "  twinbench history --host h1",
      NO_LEVEL_YET,
    ]);
  });

  it("one run on a host: the host line, no level yet, and the run under its cell", () => {
    const v: HistoryView = {
      ...empty,
      host: "h1",
      hosts: [{ hostKey: "h1", cpuModel: "AMD EPYC", runs: 1 }],
      cells: [
        {
          key: "k",
          name: "oltp_read_only @ 1",
          runs: [{ runId: "run-1", startedAt: "2025-01-01T10:00:00.000Z", estimate: 104.2, low: 100, high: 110 }],
          level: { k: 1 } as ReplicationCell,
        },
      ],
    };
    const lines = renderHistory(v);
    expect(lines[0]).toBe("History on AMD EPYC: 1 run, 1 cell.");
    expect(lines[1]).toBe(NO_LEVEL_YET);
    expect(lines).toContain("oltp_read_only @ 1:");
    expect(lines).toContain("  2025-01-01 10:00  104.2 [100.0–110.0]  run-1");
    expect(lines.some((l) => l.includes("left out"))).toBe(false);
  });

  it("a run left out of a cell's level (far noisier than the others): marked under its cell, and why, once", () => {
    const run = (runId: string, low: number, high: number) => ({
      runId,
      startedAt: `2025-01-0${runId.slice(-1)}T10:00:00.000Z`,
      estimate: 105,
      low,
      high,
    });
    const v: HistoryView = {
      ...empty,
      host: "h1",
      hosts: [{ hostKey: "h1", cpuModel: "AMD EPYC", runs: 3 }],
      cells: [
        {
          key: "k",
          name: "oltp_point_select @ 4",
          runs: [run("run-1", 100, 110), run("run-2", 1, 9000), run("run-3", 101, 109)],
          level: { k: 2, leftOut: ["run-2"] } as ReplicationCell,
        },
      ],
    };
    const lines = renderHistory(v);
    expect(lines).toContain("  2025-01-02 10:00  105.0 [1.0–9000.0]  run-2  (left out)");
    expect(lines).toContain("  2025-01-01 10:00  105.0 [100.0–110.0]  run-1");
    expect(lines.filter((l) => l.startsWith("(left out):"))).toHaveLength(1);
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(120);
  });
});

describe("the verdicts' level in a run's report", () => {
  const { manifest, cells } = load("repeats");
  const own = buildRunReport(manifest, cells);
  const hostKeyOf = (m: typeof manifest) => hostKey(m.hosts[0]);
  // Three earlier runs of the same cells on this host, each moved by a level between runs (±8%).
  const earlier = [-0.08, 0.0, 0.08].map((shift, i) => {
    const e = historyEntry(manifest, own.table!, { hostKey: hostKeyOf(manifest) })!;
    return {
      ...e,
      runId: `earlier-${i}`,
      startedAt: `2025-01-0${i + 1}T10:00:00.000Z`,
      cells: e.cells.map((c) => ({ ...c, y: c.y + shift })),
    };
  });

  it("without history the report names no level", () => {
    expect(own.level).toBeUndefined();
    expect(levelLine(own)).toEqual([]);
  });

  it("with no earlier runs: this run alone, and the plain sentence that no level is measured", () => {
    const r = buildRunReport(manifest, cells, { history: [] });
    expect(r.level).toMatchObject({ level: "run", asked: "default" });
    expect(replicationLines(r)).toEqual([NO_LEVEL_YET, "Verdicts are for this run alone (--level run)."]);
  });

  it("with a level between runs the default is the host: every interval widened, the run's own kept", () => {
    const r = buildRunReport(manifest, cells, { history: earlier });
    expect(r.level).toMatchObject({ level: "host", asked: "default", runs: 3 });
    expect(r.level!.widened).toBe(r.table!.rows.flatMap((x) => x.cells).filter((c) => c.low !== null).length);
    expect(r.level!.runTable).toEqual(own.table);
    r.table!.rows.forEach((row, i) =>
      row.cells.forEach((c, j) => {
        const o = own.table!.rows[i].cells[j];
        if (o.low === null) return;
        expect(c.estimate).toBe(o.estimate);
        expect(c.low!).toBeLessThanOrEqual(o.low);
        expect(c.high!).toBeGreaterThanOrEqual(o.high!);
      }),
    );
    // The run's cells on many pairs widen; a cell on very few keeps its own, wider interval.
    const wider = r
      .table!.rows.flatMap((x) => x.cells)
      .filter((c, i) => c.high! > own.table!.rows.flatMap((x) => x.cells)[i].high!);
    expect(wider.length).toBeGreaterThan(0);
    expect(replicationLines(r)[0]).toMatch(/^Verdicts are for runs on this host: .*up to 3 runs; --level run/);
    for (const l of replicationLines(r)) expect(l.length).toBeLessThanOrEqual(120);
  });

  it("--level run keeps the run's own intervals even when the level is known", () => {
    const r = buildRunReport(manifest, cells, { history: earlier, level: "run" });
    expect(r.level).toMatchObject({ level: "run", asked: "run" });
    expect(r.table).toEqual(own.table);
    expect(levelLine(r)).toEqual(["Verdicts are for this run alone (--level run)."]);
  });

  it("comparison.csv carries the level, the run's own interval and where a second run lands", () => {
    const r = buildRunReport(manifest, cells, { history: earlier });
    const [head, first] = renderCsv(r).split("\n");
    // after the table's columns, before the latency and NOPM columns (src/core/report/latency.ts)
    const at = CSV_HEADER.length;
    expect(head.split(",").slice(at, at + REPLICATION_CSV_HEADER.length)).toEqual([...REPLICATION_CSV_HEADER]);
    expect(head.split(",").slice(at + REPLICATION_CSV_HEADER.length)).toEqual([...LATENCY_CSV_HEADER]);
    expect(first.split(",")[at]).toBe("host");
  });
});
