import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { RunEvent } from "../../../src/core/model/events.ts";
import type { Cell, CellRecord, Forecast } from "../../../src/core/model/results.ts";
import type { IntervalSample } from "../../../src/core/model/sysbench/result.ts";
import { initialState, reduce, reduceUi, selectedRecord } from "../../../src/tui/state.ts";
import { SPARK_WINDOW_SECONDS, type ViewState } from "../../../src/tui/view-state.ts";
import { bar, duration, figure, fit, sparkline, tableLines } from "../../../src/tui/format.ts";
import { VERDICT_WORDS } from "../../../src/core/model/vocabulary.ts";

const FIX = join(import.meta.dirname, "../../fixtures/events");
export function loadEvents(name: string): RunEvent[] {
  return readFileSync(join(FIX, name), "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as RunEvent);
}
const fold = (events: RunEvent[], s: ViewState = initialState()) => events.reduce(reduce, s);
/** State after the events up to and including the first that matches. */
function until(events: RunEvent[], pred: (e: RunEvent) => boolean): ViewState {
  const i = events.findIndex(pred);
  expect(i).toBeGreaterThanOrEqual(0);
  return fold(events.slice(0, i + 1));
}

const synthetic = loadEvents("synthetic.ndjson");
const cancelled = loadEvents("cancelled.ndjson");

describe("reduce over the synthetic stream", () => {
  const cases: Array<{ name: string; at: (e: RunEvent) => boolean; check: (s: ViewState) => void }> = [
    {
      name: "plan-ready: header, totals, an empty table",
      at: (e) => e.type === "plan-ready",
      check: (s) => {
        expect(s.scenario).toBe("synthetic");
        expect(s.storage).toBe("tmpfs");
        expect(s.transport).toBe("tcp");
        expect(s.servers.map((x) => [x.id, x.status])).toEqual([
          ["mariadb", "pending"],
          ["mysql", "pending"],
        ]);
        expect(s.progress).toMatchObject({ done: 0, total: 16, failed: 0, elapsedSeconds: 0, etaSeconds: 120 });
        expect(s.table?.threads).toEqual([1, 4]);
        expect(s.table?.rows.map((r) => r.test)).toEqual(["oltp_read_only", "oltp_point_select"]);
        expect(s.table?.rows.flatMap((r) => r.cells.map((c) => c.status))).toEqual([
          "missing",
          "missing",
          "missing",
          "missing",
        ]);
      },
    },
    {
      name: "image-progress: the image, its step and its latest line",
      at: (e) => e.type === "image-progress",
      check: (s) =>
        expect(s.step).toMatchObject({
          phase: "images",
          image: "mariadb-11.8",
          imageStep: "build",
          imageLine: "Step 1/4 : FROM debian",
        }),
    },
    {
      name: "image-ready: counted, logged",
      at: (e) => e.type === "image-ready",
      check: (s) => {
        expect(s.step).toMatchObject({ phase: "images", imagesReady: 1 });
        expect(s.log.at(-1)?.text).toContain("twinbench/mariadb-11.8:abc123");
      },
    },
    {
      name: "server-ready: the version in the header",
      at: (e) => e.type === "server-ready" && e.server === "mysql",
      check: (s) =>
        expect(s.servers.map((x) => [x.id, x.status, x.version])).toEqual([
          ["mariadb", "ready", "11.8.9-MariaDB"],
          ["mysql", "ready", "9.7.4"],
        ]),
    },
    {
      name: "config-identity: ok",
      at: (e) => e.type === "config-identity",
      check: (s) => expect(s.identity).toEqual({ differences: 0, variables: 2, names: [] }),
    },
    {
      name: "prepare phase: the current step",
      at: (e) => e.type === "phase" && e.phase === "prepare",
      check: (s) =>
        expect(s.step).toMatchObject({
          phase: "prepare",
          server: "mariadb",
          test: "oltp_read_only",
          detail: "1 table × 1000 rows",
        }),
    },
    {
      name: "warm-up started: current cell in warm-up",
      at: (e) => e.type === "cell-started" && e.phase === "warmup",
      check: (s) => {
        expect(s.current).toMatchObject({ phase: "warmup", seconds: 2 });
        expect(s.current?.cell.server).toBe("mariadb");
        expect(s.live?.samples).toEqual([]);
      },
    },
    {
      name: "measure interval: live figures of the measured cell only",
      at: (e) => e.type === "interval" && e.phase === "measure",
      check: (s) => {
        expect(s.current?.phase).toBe("measure");
        expect(s.live?.phase).toBe("measure");
        expect(s.live?.samples.map((x) => x.t)).toEqual([1]);
        expect(s.table?.rows[0].cells[0].status).toBe("running");
      },
    },
    {
      name: "first cell finished: counted, logged, current cleared",
      at: (e) => e.type === "cell-finished",
      check: (s) => {
        expect(s.progress).toMatchObject({ done: 1, failed: 0 });
        expect(s.current).toBeUndefined();
        expect(s.live).toBeUndefined();
        expect(s.log.at(-1)).toMatchObject({ kind: "ok" });
        expect(s.log.at(-1)?.text).toMatch(/^ok mariadb oltp_read_only t=1 r=1: qps 2108\.40/);
        // One side only: no ratio yet.
        expect(s.table?.rows[0].cells[0]).toMatchObject({ status: "missing", ratio: null });
        expect(s.progress.etaSeconds).not.toBeNull();
      },
    },
    {
      name: "both sides of a cell: a ratio, unsure with one repeat",
      at: (e) => e.type === "cell-finished" && e.cell.key === "mysql/oltp_read_only/1/1",
      check: (s) => {
        expect(s.table?.rows[0].cells[0].status).toBe("ok");
        expect(s.table?.rows[0].cells[0].ratio).toBeCloseTo(105, 2);
        expect(s.table?.rows[0].cells[0].word).toBe("unclear");
      },
    },
    {
      name: "failed cell: sysbench's FATAL message in the failures list",
      at: (e) => e.type === "cell-failed" && e.record.status === "failed",
      check: (s) => {
        expect(s.failures).toHaveLength(1);
        expect(s.failures[0]).toMatchObject({
          kind: "cell",
          key: "mysql/oltp_point_select/4/1",
          title: "mysql oltp_point_select t=4 r=1",
        });
        expect(s.failures[0].message).toMatch(/^mysql_stmt_execute\(\) returned error 2013 \(Lost connection/);
        expect(s.progress.failed).toBe(1);
        expect(s.table?.rows[1].cells[1].status).toBe("failed");
      },
    },
    {
      name: "skipped cell: listed as skipped, counted apart",
      at: (e) => e.type === "cell-failed" && e.record.status === "skipped",
      check: (s) => {
        expect(s.failures.at(-1)).toMatchObject({ kind: "skipped", message: "skipped by the user" });
        expect(s.progress).toMatchObject({ failed: 1, skipped: 1 });
      },
    },
    {
      name: "run-finished: final table, folder, report path, exit code",
      at: (e) => e.type === "run-finished",
      check: (s) => {
        expect(s.finished).toEqual({
          status: "partial",
          dir: "results/20250101-120000-abcd",
          reportHtml: "results/20250101-120000-abcd/report.html",
          exitCode: 1,
          cellsOk: 14,
          cellsFailed: 2,
          message: undefined,
        });
        expect(s.progress).toMatchObject({ done: 16, total: 16, failed: 1, skipped: 1, etaSeconds: 0 });
        expect(s.progress.elapsedSeconds).toBe(75);
        const cells = s.table!.rows.map((r) =>
          r.cells.map((c) => [c.status, c.ratio === null ? null : Number(c.ratio.toFixed(2)), c.word]),
        );
        // read_only: mariadb 5 % faster at 1 thread, 5 % slower at 4; point_select t=4 has one pair left.
        // The 105 cells' pairs agree exactly: a zero-width interval is no interval (unclear).
        expect(cells).toEqual([
          [
            ["ok", 105, "unclear"],
            ["ok", 95, "slower"],
          ],
          // One usable repeat a side (mysql r1 failed, mariadb r2 skipped): a ratio of medians, no interval.
          [
            ["ok", 105, "unclear"],
            ["ok", 94.62, "unclear"],
          ],
        ]);
      },
    },
  ];
  it.each(cases)("$name", ({ at, check }) => check(until(synthetic, at)));

  it("ignores warm-up records (they are not cells of the matrix)", () => {
    const s = fold(synthetic.filter((e) => e.type === "plan-ready"));
    const cell: Cell = {
      index: 0,
      key: "mariadb/oltp_read_only/warmup",
      server: "mariadb",
      test: "oltp_read_only",
      script: "oltp_read_only",
      threads: 4,
      repeat: 0,
    };
    const rec = {
      key: cell.key,
      server: "mariadb",
      test: "oltp_read_only",
      threads: 4,
      repeat: 0,
      phase: "warmup",
      status: "ok",
      metrics: null,
      raw: "x",
      startedAt: "",
      endedAt: "",
    } as CellRecord;
    const after = reduce(s, { type: "cell-finished", at: "2025-01-01T12:00:01.000Z", cell, record: rec });
    expect(after.records).toEqual({});
    expect(after.progress.done).toBe(0);
    expect(after.log).toEqual(s.log);
  });
});

describe("reduce: a ladder's pairs", () => {
  it("the live table shows plan-ready's first pair; without pairs, the first two servers", () => {
    const plan = synthetic[0] as Extract<RunEvent, { type: "plan-ready" }>;
    expect(fold([plan]).table).toMatchObject({ numerator: "mariadb", denominator: "mysql" });
    const ladder: RunEvent = {
      ...plan,
      pairs: [
        { numerator: "mysql", denominator: "mariadb" },
        { numerator: "x", denominator: "mariadb" },
      ],
    };
    expect(fold([ladder]).table).toMatchObject({ numerator: "mysql", denominator: "mariadb" });
  });
});

describe("reduce: cancel and resume", () => {
  it("cancelled stream: cancelling noted, exit 130, the cancelled cell failed", () => {
    const s = fold(cancelled);
    expect(s.cancelling).toEqual({ at: expect.any(String), reason: "cancelled by the user" });
    expect(s.finished).toMatchObject({ status: "cancelled", exitCode: 130 });
    expect(s.failures.map((f) => f.message)).toEqual(["cancelled by the user"]);
  });

  it("a resumed cell: the later record replaces the earlier one (counted once, failure cleared)", () => {
    const plan = synthetic[0];
    const firstOk = synthetic.find(
      (e): e is Extract<RunEvent, { type: "cell-finished" }> => e.type === "cell-finished",
    )!;
    const failedBefore: RunEvent = {
      type: "cell-failed",
      at: plan.at,
      cell: firstOk.cell,
      record: { ...firstOk.record, status: "failed", error: "boom", metrics: null },
    };
    const s1 = fold([plan, failedBefore]);
    expect(s1.progress).toMatchObject({ done: 1, failed: 1 });
    expect(s1.failures).toHaveLength(1);
    const s2 = reduce(s1, firstOk);
    expect(s2.progress).toMatchObject({ done: 1, failed: 0 });
    expect(s2.failures).toEqual([]);
    expect(s2.finishedKeys).toEqual([firstOk.cell.key]);
  });
});

describe("reduce: live figures", () => {
  it("keeps the last 60 s of samples and starts over for a new cell", () => {
    let s = fold(synthetic.slice(0, 1));
    const cell = s.cells[0] as Cell;
    const started = "2025-01-01T12:00:00.000Z";
    s = reduce(s, { type: "cell-started", at: started, cell, phase: "measure", seconds: 100 });
    const sample = (t: number): IntervalSample => ({
      t,
      threads: 1,
      tps: t,
      qps: 10 * t,
      readsPerSec: 0,
      writesPerSec: 0,
      otherPerSec: 0,
      latencyPercentile: 95,
      latencyMs: 1,
      errorsPerSec: 0,
      reconnectsPerSec: 0,
    });
    for (let t = 1; t <= 100; t++)
      s = reduce(s, {
        type: "interval",
        at: new Date(Date.parse(started) + t * 1000).toISOString(),
        cell,
        phase: "measure",
        sample: sample(t),
      });
    expect(s.live?.samples).toHaveLength(SPARK_WINDOW_SECONDS);
    expect(s.live?.samples[0].t).toBe(41);
    expect(s.progress.elapsedSeconds).toBe(100);
    const other = s.cells[1] as Cell;
    s = reduce(s, {
      type: "interval",
      at: "2025-01-01T12:01:41.000Z",
      cell: other,
      phase: "measure",
      sample: sample(1),
    });
    expect(s.live?.cellKey).toBe(other.key);
    expect(s.live?.samples.map((x) => x.t)).toEqual([1]);
  });
});

describe("reduceUi", () => {
  const done = fold(
    synthetic.slice(
      0,
      synthetic.findIndex((e) => e.type === "run-finished"),
    ),
  );
  it.each([
    { name: "first up selects the one before the latest", actions: [-1], selected: 14 },
    { name: "down past the end stays on the latest", actions: [1, 1], selected: 15 },
    { name: "up past the start stays on the first", actions: Array(40).fill(-1), selected: 0 },
  ])("$name", ({ actions, selected }) => {
    const s = actions.reduce((st: ViewState, d: number) => reduceUi(st, { type: "select", delta: d }), done);
    expect(s.ui.selected).toBe(selected);
    expect(selectedRecord(s)?.record.key).toBe(done.finishedKeys[selected]);
  });

  it("details show the latest finished cell until one is selected", () => {
    const s = reduceUi(done, { type: "toggle-details" });
    expect(s.ui.details).toBe(true);
    expect(selectedRecord(s)).toEqual({ index: 15, record: done.records[done.finishedKeys[15]] });
    expect(reduceUi(s, { type: "toggle-details" }).ui.details).toBe(false);
  });

  it("select does nothing with no finished cell", () => {
    const s = fold(synthetic.slice(0, 1));
    expect(reduceUi(s, { type: "select", delta: -1 })).toBe(s);
    expect(selectedRecord(s)).toBeNull();
  });

  it("counts cancel requests", () => {
    const s = reduceUi(reduceUi(done, { type: "cancel-requested" }), { type: "cancel-requested" });
    expect(s.ui.cancelRequests).toBe(2);
  });

  it("ticks move the clock (elapsed, ETA) until the run has finished", () => {
    const s0 = fold(synthetic.slice(0, 1));
    const s1 = reduceUi(s0, { type: "tick", at: "2025-01-01T12:00:30.000Z" });
    expect(s1.progress).toMatchObject({ elapsedSeconds: 30, etaSeconds: 90 });
    // A tick older than the latest event does not move the clock back.
    expect(reduceUi(s1, { type: "tick", at: "2025-01-01T12:00:10.000Z" }).progress.elapsedSeconds).toBe(30);
    const fin = fold(synthetic);
    expect(reduceUi(fin, { type: "tick", at: "2030-01-01T00:00:00.000Z" })).toBe(fin);
  });
});

describe("format", () => {
  it.each([
    [null, "-"],
    [0, "0s"],
    [59.4, "59s"],
    [-5, "0s"],
    [192, "3m 12s"],
    [3600 + 120, "1h 02m"],
  ])("duration(%s) = %s", (x, want) => expect(duration(x)).toBe(want));

  it.each([
    [null, "-"],
    [2.4712, "2.47"],
    [24691.234, "24691.2"],
    [123456.7, "123457"],
  ])("figure(%s) = %s", (x, want) => expect(figure(x)).toBe(want));

  it.each([
    { values: [], width: 10, want: "" },
    { values: [1, 2, 3, 4, 5, 6, 7, 8], width: 10, want: "▁▂▃▄▅▆▇█" },
    { values: [5, 5, 5], width: 10, want: "▄▄▄" },
    { values: [0, 0], width: 10, want: "▁▁" },
    { values: [1, 2, 3, 4, 5, 6, 7, 8], width: 3, want: "▁▅█" },
  ])("sparkline($values, $width) = $want", ({ values, width, want }) => expect(sparkline(values, width)).toBe(want));

  it.each([
    [0, 4, "[░░░░]"],
    [0.5, 4, "[██░░]"],
    [1.5, 4, "[████]"],
  ])("bar(%s, %s) = %s", (f, w, want) => expect(bar(f, w)).toBe(want));

  it.each([
    ["abcdef", 10, "abcdef"],
    ["abcdef", 4, "abc…"],
    ["abcdef", 0, ""],
  ])("fit(%s, %s) = %s", (t, w, want) => expect(fit(t, w)).toBe(want));

  it("lays the table out as the seeds do, decimal points aligned, words hanging", () => {
    const t = fold(synthetic).table!;
    expect(tableLines(t, 80)).toEqual([
      "                     Number of threads",
      "                            1               4",
      " sysbench test",
      "  oltp_read_only       105.00 unclear   95.00 slower",
      "  oltp_point_select    105.00 unclear   94.62 unclear",
    ]);
  });

  it("keeps the seeds' two decimals while every column fits, one when that makes them fit", () => {
    const t = fold(synthetic).table!;
    expect(tableLines(t, 52)[3]).toBe("  oltp_read_only      105.0 unclear  95.0 slower");
    for (const l of tableLines(t, 52)) expect(l.length).toBeLessThanOrEqual(52);
  });

  it("drops thread columns that do not fit, with a marker", () => {
    const t = fold(synthetic).table!;
    expect(tableLines(t, 40)[1]).toBe("                          1 >");
    for (const l of tableLines(t, 40)) expect(l.length).toBeLessThanOrEqual(40);
  });

  it("seven thread counts of the seeds' longest test names, every word shown, fit in 120 characters", () => {
    const words = ["faster", "slower", "same", "unclear", "load-bound"];
    const threads = [1, 4, 8, 16, 32, 64, 128];
    const t = {
      numerator: "mariadb",
      denominator: "mysql",
      threads,
      marginPct: 5,
      rows: ["update_non_index", "oltp_complex_rw"].map((test, i) => ({
        test,
        cells: threads.map((th, j) => ({
          threads: th,
          ratio: 99.5 + j,
          word: words[(i + j) % (words.length - 1)]!, // load-bound, the widest, shown below
          status: "ok" as const,
        })),
      })),
    };
    const lines = tableLines(t, 120);
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(120);
    expect(lines[1]).not.toContain(">");
    expect(lines[3]).toContain(" unclear");
  });
});

describe("reduce over a recorded run (test/fixtures/events/quick.ndjson, `twinbench run --json-events`)", () => {
  const recorded = loadEvents("quick.ndjson");
  const s = fold(recorded);
  const plan = recorded[0] as Extract<RunEvent, { type: "plan-ready" }>;
  const finishedEvents = recorded.filter(
    (e): e is Extract<RunEvent, { type: "cell-finished" }> => e.type === "cell-finished",
  );

  it("header: every server ready with its version, config identity ok", () => {
    expect(s.servers.map((x) => x.status)).toEqual(plan.servers.map(() => "ready"));
    for (const x of s.servers) expect(x.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(s.identity?.differences).toBe(0);
    expect(s.storage).toBe(plan.storage);
  });

  it("progress: all cells done, elapsed from the first to the last event", () => {
    expect(s.progress).toMatchObject({ done: plan.cells.length, total: plan.cells.length, failed: 0, etaSeconds: 0 });
    expect(s.progress.elapsedSeconds).toBeCloseTo((Date.parse(recorded.at(-1)!.at) - Date.parse(plan.at)) / 1000, 3);
    expect(s.finished).toMatchObject({ status: "ok", exitCode: 0, reportHtml: `${plan.dir}/report.html` });
  });

  it("the table: median numerator qps / median denominator qps × 100 for each test and thread count", () => {
    const [num, den] = plan.servers.map((x) => x.id);
    const median = (xs: number[]) => {
      const a = [...xs].sort((x, y) => x - y);
      return a.length % 2 ? a[(a.length - 1) / 2] : (a[a.length / 2 - 1] + a[a.length / 2]) / 2;
    };
    const qps = (server: string, test: string, threads: number) =>
      finishedEvents
        .filter((e) => e.cell.server === server && e.cell.test === test && e.cell.threads === threads)
        .map((e) => e.record.metrics!.qps!);
    for (const row of s.table!.rows)
      for (const c of row.cells) {
        expect(c.status).toBe("ok");
        expect(c.ratio!).toBeCloseTo(
          (median(qps(num, row.test, c.threads)) / median(qps(den, row.test, c.threads))) * 100,
          2,
        );
        expect(VERDICT_WORDS).toContain(c.word);
      }
  });

  it("live figures follow the interval events of the current cell", () => {
    const firstInterval = recorded.findIndex((e) => e.type === "interval" && e.phase === "measure");
    const mid = fold(recorded.slice(0, firstInterval + 1));
    const e = recorded[firstInterval] as Extract<RunEvent, { type: "interval" }>;
    expect(mid.live).toEqual({ cellKey: e.cell.key, phase: "measure", samples: [e.sample] });
    expect(mid.current?.cell.key).toBe(e.cell.key);
  });
});

describe("adaptive runs: the count and the ETA are the forecast's", () => {
  const planReady = (cells: number): RunEvent => ({
    type: "plan-ready",
    at: "2025-01-01T12:00:00.000Z",
    runId: "r",
    dir: "/d",
    scenario: "q",
    estimateSeconds: 200,
    storage: "tmpfs",
    transport: "bridge",
    servers: [
      { id: "a", image: "x" },
      { id: "b", image: "y" },
    ],
    cells: Array.from({ length: cells }, (_, i) => ({
      index: i,
      key: `k${i}`,
      server: i % 2 ? "b" : "a",
      test: "t",
      script: "t",
      threads: 1,
      repeat: 1,
    })),
  });
  const forecast = (over: Partial<Forecast> = {}): Forecast => ({
    stage: "round",
    round: 2,
    at: "2025-01-01T12:05:00.000Z",
    source: "run",
    pairSdPct: 6,
    instanceSdPct: 0,
    elapsedSeconds: 300,
    totalSeconds: { median: 800, low: 600, high: 900 },
    remainingSeconds: 500,
    budgetSeconds: 900,
    budgetShare: 0.1,
    budgetStops: false,
    precisionPct: 10,
    cells: 6,
    cellsLikely: 5,
    measuredCells: 40,
    ...over,
  });

  it("without a forecast yet: no total and no ETA from the first round's count", () => {
    const s = [
      planReady(24),
      {
        type: "forecast",
        at: "2025-01-01T12:00:01.000Z",
        forecast: null,
        note: "no calibration for this host: forecast after the first round",
      } as RunEvent,
    ].reduce(reduce, initialState());
    expect(s.progress).toMatchObject({ total: 0, totalKnown: false, etaSeconds: null, likely: null });
    expect(s.log.at(-1)!.text).toBe("forecast: no calibration for this host: forecast after the first round");
  });

  it("with one: the likely count of measured cells, its time left counting down, and whether the budget stops the run", () => {
    const s = [
      planReady(24),
      { type: "forecast", at: "2025-01-01T12:05:00.000Z", forecast: forecast() } as RunEvent,
    ].reduce(reduce, initialState());
    expect(s.progress).toMatchObject({
      total: 40,
      totalKnown: false,
      etaSeconds: 500,
      budgetStops: false,
      likely: "cells likely to reach ±10%: 5 of 6",
    });
    const later = reduceUi(s, { type: "tick", at: "2025-01-01T12:06:00.000Z" });
    expect(later.progress.etaSeconds).toBe(440);
    const b = reduce(s, {
      type: "forecast",
      at: "2025-01-01T12:06:00.000Z",
      forecast: forecast({ budgetStops: true, budgetShare: 0.9, remainingSeconds: 240 }),
    });
    expect(b.progress).toMatchObject({ budgetStops: true, etaSeconds: 240 });
    expect(b.log.at(-1)!.text).toMatch(
      /^forecast: the budget stops this run in 4m 00s; cells likely to reach ±10%: 5 of 6/,
    );
  });
});
