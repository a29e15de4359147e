/** The history's printed form: what was read, the level between runs when measured, and each cell's runs. */
import { describe, expect, it } from "vitest";
import { NO_LEVEL_YET, renderHistory } from "../../../src/core/report/history.ts";
import type { HistoryView } from "../../../src/core/stats/history-view.ts";
import type { ReplicationCell } from "../../../src/core/stats/replication.ts";

const empty: HistoryView = { hosts: [], cells: [], outside: [], skipped: [] };

describe("renderHistory", () => {
  it("no runs: says so, and that no level between runs is measured", () => {
    expect(renderHistory(empty)).toEqual(["No runs in the history.", NO_LEVEL_YET]);
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
  });
});
