/** The history view: the host with most runs, its cells with their runs and the level between runs. */
import { describe, expect, it } from "vitest";
import { buildRunReport } from "../../../src/core/report/model.ts";
import { historyEntry } from "../../../src/core/stats/history.ts";
import { historyView } from "../../../src/core/stats/history-view.ts";
import { load } from "../../support/results-fixture.ts";

const { manifest, cells } = load("repeats");
const table = buildRunReport(manifest, cells).table!;
const run = (runId: string, day: number, hostKey = "h1") => ({
  ...historyEntry(manifest, table, { hostKey, cpuModel: `cpu ${hostKey}` })!,
  runId,
  startedAt: `2025-01-0${day}T10:00:00.000Z`,
});

describe("historyView", () => {
  const n = run("r1", 1).cells.length;

  it.each<
    [
      string,
      ReturnType<typeof run>[],
      Parameters<typeof historyView>[1],
      { host?: string; runs: number; cells: number },
    ]
  >([
    [
      "two runs on one host: each cell with both runs",
      [run("r1", 1), run("r2", 2)],
      {},
      { host: "h1", runs: 2, cells: n },
    ],
    [
      "the host with most runs is the one shown",
      [run("r1", 1), run("r2", 2, "h2"), run("r3", 3, "h2")],
      {},
      { host: "h2", runs: 2, cells: n },
    ],
    [
      "a host asked for by name",
      [run("r1", 1), run("r2", 2, "h2"), run("r3", 3, "h2")],
      { host: "h1" },
      { host: "h1", runs: 1, cells: n },
    ],
    ["a scenario that has no runs: nothing", [run("r1", 1)], { scenario: "no-such-scenario" }, { runs: 0, cells: 0 }],
  ])("%s", (_, entries, opts, want) => {
    const v = historyView({ entries, skipped: [] }, opts);
    expect(v.host).toBe(want.host);
    expect(v.cells).toHaveLength(want.cells);
    for (const c of v.cells) {
      expect(c.runs).toHaveLength(want.runs);
      expect(c.level.k).toBe(want.runs);
    }
  });

  it("lists every host read with its run count", () => {
    const v = historyView({ entries: [run("r1", 1), run("r2", 2, "h2"), run("r3", 3, "h2")], skipped: [] });
    expect(v.hosts).toEqual(
      expect.arrayContaining([
        { hostKey: "h1", cpuModel: "cpu h1", runs: 1 },
        { hostKey: "h2", cpuModel: "cpu h2", runs: 2 },
      ]),
    );
    expect(v.hosts).toHaveLength(2);
  });
});
