/** The report model of a run: its counts, servers, notes and tables, from the recorded `repeats` run and by hand. */
import { describe, expect, it } from "vitest";
import type { AdaptiveSummary, MustMatchRow, RunManifest } from "../../../src/core/model/results.ts";
import {
  adaptiveNotes,
  buildRunReport,
  configIdentity,
  describeStorage,
  durationText,
  windowNotes,
} from "../../../src/core/report/model.ts";
import { load } from "../../support/results-fixture.ts";

const { manifest, cells } = load("repeats");

describe("buildRunReport", () => {
  const r = buildRunReport(manifest, cells);
  it("counts the planned, recorded, failed cells; a run with failures is partial", () => {
    expect(r).toMatchObject({ runId: "repeats", scenarioName: "repeats", planned: 36, failed: 3, skipped: 0 });
    expect(r.recorded).toBe(new Set(cells.filter((c) => c.phase !== "warmup").map((c) => c.key)).size);
    expect(r.partial).toBe(true);
    expect(r.durationText).toBe("Each test was run for 10 seconds.");
  });
  it("one line per server with its family's name and storage", () => {
    expect(r.servers.map((s) => [s.id, s.family, s.storage])).toEqual([
      ["mariadb", "MariaDB", "tmpfs 2 GiB (rw,nosuid,nodev)"],
      ["mysql", "MySQL", "tmpfs 2 GiB (rw,nosuid,nodev)"],
    ]);
  });
  it("two servers: one table, the primary one, and no ladder", () => {
    expect(r.table).not.toBeNull();
    expect(r.pairs).toEqual([r.table]);
    expect(r.ladder).toBeNull();
  });
  it("one server: no table, and a note that says how to compare", () => {
    const one = structuredClone(manifest) as RunManifest;
    one.scenario.servers = one.scenario.servers.slice(0, 1);
    one.servers = one.servers.slice(0, 1);
    const r1 = buildRunReport(
      one,
      cells.filter((c) => c.server === "mariadb"),
    );
    expect(r1.table).toBeNull();
    expect(r1.costs).toBeNull();
    expect(r1.notes).toContain(
      "Only one server in this run: no ratio table (use `twinbench compare` to compare runs).",
    );
  });
});

describe("describeStorage", () => {
  it("the kind, then what the facts add", () => {
    expect(describeStorage(undefined, "volume")).toBe("volume");
    expect(describeStorage(undefined)).toBe("unknown");
    expect(
      describeStorage({
        kind: "raid0",
        raidLevel: "raid0",
        members: [{ device: "/dev/loop0" }, { device: "/dev/loop1" }],
        loopBacked: true,
        chunk: "512K",
        fsType: "ext4",
        sizeBytes: 2 * 1024 ** 3,
        mountOptions: "rw,noatime",
      }),
    ).toBe("raid0 2 members (loop-backed) chunk 512K ext4 2 GiB (rw,noatime)");
  });
});

describe("durationText", () => {
  const withWorkload = (w: Record<string, unknown>) => ({ scenario: { workload: { ...w } } }) as unknown as RunManifest;
  it.each([
    [{ duration: "10s" }, "Each test was run for 10 seconds."],
    [{ duration: "1s" }, "Each test was run for 1 second."],
    [{ duration: "2m" }, "Each test was run for 2 minutes."],
    [{ duration: 60 }, "Each test was run for 1 minute."],
    [{ duration: "90s" }, "Each test was run for 90 seconds."],
    [{ events: 5000 }, "Each test was run for 5000 events."],
    [{}, ""],
  ])("%j → %s", (w, want) => expect(durationText(withWorkload(w))).toBe(want));
});

describe("configIdentity", () => {
  const row = (over: Partial<MustMatchRow>) =>
    ({ variable: "v", values: {}, equal: true, deliberate: false, ...over }) as MustMatchRow;
  it("identical, deliberate or differs, with the rows that differ", () => {
    expect(configIdentity(undefined)).toEqual({ verdict: "unknown", checked: 0, differing: [] });
    expect(configIdentity([row({}), row({})])).toMatchObject({ verdict: "identical", checked: 2 });
    const deliberate = row({ equal: false, deliberate: true });
    expect(configIdentity([row({}), deliberate])).toEqual({
      verdict: "deliberate",
      checked: 2,
      differing: [deliberate],
    });
    expect(configIdentity([deliberate, row({ equal: false })]).verdict).toBe("differs");
  });
});

describe("windowNotes", () => {
  it("the report's note groups the cells; the odd ones are named", () => {
    const w = (key: string, to: number) => ({
      key,
      from: 1,
      to,
      leadIn: 0,
      samples: null,
      source: "sysbench total" as const,
    });
    expect(windowNotes([w("a/x/1/1", 5), w("b/x/1/1", 5), w("a/x/1/2", 4)])).toEqual([
      "Seconds each cell's figure used: seconds 1–5 (sysbench's total, no lead-in) in 2 cells; seconds 1–4 (sysbench's total, no lead-in) in 1 cell (a/x/1/2).",
    ]);
    expect(windowNotes([])).toEqual([]);
  });
});

describe("adaptiveNotes", () => {
  const cell = (over: Partial<AdaptiveSummary["cells"][number]>) => ({
    test: "oltp_read_only",
    threads: 1,
    n: 8,
    rounds: 8,
    estimate: 100,
    low: 98,
    high: 102,
    halfWidthPct: 2,
    ...over,
  });
  const a: AdaptiveSummary = {
    min: 4,
    max: 40,
    precisionPct: 3,
    instances: 4,
    roundsPerInstance: 1,
    budgetSeconds: 1800,
    rounds: 12,
    cells: [
      cell({ done: "precision" }),
      cell({ threads: 4, done: "max", halfWidthPct: 4.25, rounds: 40, n: 40 }),
      cell({ threads: 8, done: "precision", halfWidthPct: 3.5 }),
      cell({ test: "oltp_point_select", halfWidthPct: null, rounds: 1, n: 1 }),
    ],
  };
  it("the settings and the count per reason, then a line per cell that did not reach the target", () => {
    expect(adaptiveNotes(a)).toEqual([
      "Adaptive repeats: target ±3% per cell, 4 to 40 rounds, a budget of 30m 00s; a fresh server instance every 1 round; 12 rounds run. " +
        "Stopped: 1 at the precision target, 1 with an interval still wider than the target, 1 at max, 0 by the budget, 1 still open (the run was cut short).",
      "- oltp_read_only at 4 threads: stopped (max) after 40 rounds, 40 pairs, reached ±4.3%",
      "- oltp_read_only at 8 threads: stopped after 8 rounds, 8 pairs; its interval was ±3.5% at the stop, wider than the ±3% target",
      "- oltp_point_select at 1 thread: open after 1 round, 1 pairs, reached no interval yet",
    ]);
  });
});
