/** The history view: the host with most runs, its cells with their runs and the level between runs. */
import { describe, expect, it } from "vitest";
import { buildRunReport } from "../../../src/core/report/model.ts";
import { historyEntry, serverCellKey } from "../../../src/core/stats/history.ts";
import { historyView, serverLevels } from "../../../src/core/stats/history-view.ts";
import { hostLevelLines, renderHistory } from "../../../src/core/report/history.ts";
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

  it("names apart two cells of one test and thread count whose keys differ, and says why once", () => {
    const old = run("r1", 1);
    const other = { ...old, cells: old.cells.map((c) => ({ ...c, key: `f${c.key.slice(1)}` })) };
    const v = historyView({ entries: [other, run("r2", 2), run("r3", 3)], skipped: [] });
    expect(v.cells).toHaveLength(2 * n);
    expect(new Set(v.cells.map((c) => c.name)).size).toBe(2 * n);
    for (const c of v.cells) expect(c.name).toMatch(new RegExp(` \\(key ${c.key.slice(0, 6)}\\)$`));
    const text = renderHistory(v);
    expect(text.filter((l) => l.startsWith("(key …)"))).toHaveLength(1);
    const alone = renderHistory(historyView({ entries: [run("r2", 2), run("r3", 3)], skipped: [] }));
    expect(alone.some((l) => l.includes("(key"))).toBe(false);
  });

  it("a run read twice (the host's folder and the project's) counts once", () => {
    const v = historyView({ entries: [run("r1", 1), run("r2", 2), run("r1", 1)], skipped: [] });
    expect(v.hosts).toEqual([expect.objectContaining({ hostKey: "h1", runs: 2 })]);
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

describe("each server's own level in the history, for compare", () => {
  const e = historyEntry(manifest, table, { hostKey: "h1" })!;

  it("an entry keeps each server's log mean, se and df under a key of that server's facts", () => {
    // A side needs 2 or more repeats that differ: the fixture has cells with one side only, and cells with both.
    const c = e.cells.find((x) => x.sides?.length === 2)!;
    expect(c.sides?.map((s) => s.server).sort()).toEqual([table.numerator, table.denominator].sort());
    for (const s of c.sides!) {
      expect(s.key).toBe(serverCellKey(manifest, table.metric, s.server, c.test, c.threads));
      expect(s.se).toBeGreaterThan(0);
      expect(s.df).toBeGreaterThanOrEqual(1);
    }
    // A server's key does not depend on the other server: the same facts give the same key.
    expect(serverCellKey(manifest, "qps", table.numerator, c.test, c.threads)).not.toBe(
      serverCellKey(manifest, "qps", table.denominator, c.test, c.threads),
    );
  });

  it("serverLevels: the level between runs of a server from the earlier runs, the compared runs left out", () => {
    const c = e.cells.find((x) => x.sides?.length === 2)!;
    const side = c.sides!.find((s) => s.server === table.numerator)!;
    const shifted = (runId: string, d: number) => ({
      ...e,
      runId,
      cells: e.cells.map((x) => ({ ...x, sides: x.sides!.map((s) => ({ ...s, y: s.y + d })) })),
    });
    const history = [shifted("r1", -0.1), shifted("r2", 0), shifted("r3", 0.1), shifted("compared", 5)];
    const keys = [{ server: table.numerator, test: c.test, threads: c.threads, key: side.key }];
    const levels = serverLevels(history, "h1", keys, new Set(["compared"]));
    const l = levels.get(table.numerator)?.get(`${c.test}|${c.threads}`);
    expect(l?.k).toBe(3);
    // Runs 10% apart with small own se: τ near the sd of −0.1, 0, 0.1 (0.1), far below what the left-out run would give.
    expect(l!.tau).toBeGreaterThan(0.05);
    expect(l!.tau).toBeLessThan(0.2);
    expect(serverLevels(history, "other-host", keys, new Set()).size).toBe(0);
  });
});

describe("the host as a level (--hosts)", () => {
  const shifted = (runId: string, day: number, hostKey: string, d: number) => {
    const r = run(runId, day, hostKey);
    return { ...r, cells: r.cells.map((c) => ({ ...c, y: c.y + d })) };
  };

  it("one host read: no host level", () => {
    expect(historyView({ entries: [run("r1", 1), run("r2", 2)], skipped: [] }).byHost).toBeUndefined();
  });

  it("two hosts: each cell per host, and too few hosts for a level between them", () => {
    const v = historyView({
      entries: [shifted("a1", 1, "h1", 0), shifted("a2", 2, "h1", 0.01), shifted("b1", 3, "h2", 0.4)],
      skipped: [],
    });
    expect(v.byHost!.hosts).toHaveLength(2);
    expect(v.byHost!.most).toBe(2);
    const c = v.byHost!.cells[0];
    expect(c.perHost.map((p) => p?.runs)).toEqual([2, 1]);
    // The second host reads about e^0.4 ≈ 1.49 times the first.
    expect(c.perHost[1]!.estimate / c.perHost[0]!.estimate).toBeCloseTo(Math.exp(0.4 - 0.005), 2);
    expect(c.tau).toBeNull();
    const lines = hostLevelLines(v.byHost!, v.host);
    expect(lines.at(-1)).toMatch(
      /^Hosts are too few to estimate a level between hosts \(at most 2 .* needs 3 or more\)\.$/,
    );
  });

  it("three hosts apart: a level between hosts with its interval, and where a run on another host lands", () => {
    const v = historyView({
      entries: [shifted("a1", 1, "h1", 0), shifted("b1", 2, "h2", 0.2), shifted("c1", 3, "h3", -0.2)],
      skipped: [],
    });
    const c = v.byHost!.cells[0];
    expect(c.tau!).toBeGreaterThan(0.1);
    expect(c.tauLow!).toBeLessThanOrEqual(c.tau!);
    expect(c.nextLow!).toBeLessThan(c.perHost[2]!.estimate);
    expect(c.nextHigh!).toBeGreaterThan(c.perHost[1]!.estimate);
    const lines = hostLevelLines(v.byHost!, v.host);
    expect(lines.some((l) => l.startsWith("Between hosts"))).toBe(true);
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(120);
  });
});
