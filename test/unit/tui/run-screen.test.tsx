import React from "react";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { cleanup, render } from "ink-testing-library";
import type { RunEvent } from "../../../src/core/model/events.ts";
import type { Cell } from "../../../src/core/model/results.ts";
import { ColorContext } from "../../../src/tui/color.tsx";
import { RunView } from "../../../src/tui/components.tsx";
import { createRunStore, mountRunScreen, RunScreenApp, type RunStore } from "../../../src/tui/run-screen.tsx";
import { initialState, reduce } from "../../../src/tui/state.ts";
import { type ViewState } from "../../../src/tui/view-state.ts";
import { forestLines } from "../../../src/core/report/forest.ts";
import { FakeStdin, FakeStdout, plain } from "../../support/fake-terminal.ts";

const FIX = join(import.meta.dirname, "../../fixtures/events");
const load = (name: string): RunEvent[] =>
  readFileSync(join(FIX, name), "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as RunEvent);
const synthetic = load("synthetic.ndjson");
const tick = () => new Promise((r) => setTimeout(r, 20));

afterEach(() => cleanup());

function screen(store: RunStore, handlers: Partial<{ onCancel: () => void; onSkip: () => void }> = {}) {
  return render(
    <RunScreenApp
      store={store}
      onCancel={handlers.onCancel ?? (() => {})}
      onSkip={handlers.onSkip ?? (() => {})}
      tickMs={0}
      color={false}
      size={{ width: 80, height: 24 }}
    />,
  );
}

/** Feed the events up to (and including) the first matching one. */
function feedUntil(store: RunStore, pred: (e: RunEvent) => boolean): void {
  for (const e of synthetic) {
    store.dispatch(e);
    if (pred(e)) return;
  }
}

describe("run screen frames, phase by phase", () => {
  it.each([
    {
      name: "plan",
      at: (e: RunEvent) => e.type === "plan-ready",
      want: [
        "twinbench · synthetic · run 20250101-120000-abcd · storage tmpfs · tcp",
        "cells 0/16",
        "ETA 2m 00s",
        "q cancel · s skip cell",
      ],
    },
    {
      name: "image build",
      at: (e: RunEvent) => e.type === "image-progress",
      want: ["▶ images · mariadb-11.8: build · Step 1/4 : FROM debian"],
    },
    {
      name: "server ready",
      at: (e: RunEvent) => e.type === "server-ready" && e.server === "mysql",
      want: ["mariadb 11.8.9-MariaDB vs mysql 9.7.4", "● server mysql ready in 3.0 s: 9.7.4"],
    },
    { name: "config identity", at: (e: RunEvent) => e.type === "config-identity", want: ["config ok (2 equal)"] },
    {
      name: "prepare",
      at: (e: RunEvent) => e.type === "phase" && e.phase === "prepare",
      want: ["▶ prepare · mariadb · oltp_read_only: 1 table × 1000 rows"],
    },
    {
      name: "warm-up",
      at: (e: RunEvent) => e.type === "interval" && e.phase === "warmup",
      want: ["▶ warm-up · mariadb · oltp_read_only · threads 4 · 1s/2s", "tps", "qps"],
    },
    {
      name: "measure",
      at: (e: RunEvent) => e.type === "interval" && e.phase === "measure" && e.sample.t === 3,
      want: [
        "▶ measure · mariadb · oltp_read_only · threads 1 · repeat 1/2 · 3s/3s",
        "p95 ms",
        "err/s",
        "reconn/s",
        "Number of threads",
        "oltp_read_only          …",
      ],
    },
    {
      name: "a cell finished",
      at: (e: RunEvent) => e.type === "cell-finished",
      want: ["✓ ok mariadb oltp_read_only t=1 r=1: qps 2108.40", "cells 1/16"],
    },
    {
      name: "a failure",
      at: (e: RunEvent) => e.type === "cell-failed",
      want: ["failures (1):", "✗ mysql oltp_point_select t=4 r=1: mysql_stmt_execute() returned error 2013"],
    },
    {
      name: "finished",
      at: (e: RunEvent) => e.type === "run-finished",
      want: [
        "run partial: 14 cells ok, 2 failed",
        "results: results/20250101-120000-abcd",
        "report:  results/20250101-120000-abcd/report.html",
        "exit code 1",
        "oltp_read_only       105.00   95.00",
        "verdict",
      ],
    },
  ])("$name", async ({ at, want }) => {
    const store = createRunStore();
    const r = screen(store);
    feedUntil(store, at);
    for (const w of want) await expect.poll(() => plain(r.lastFrame())).toContain(w);
  });

  it("live figures show the latest sample and a sparkline", async () => {
    const store = createRunStore();
    const r = screen(store);
    feedUntil(store, (e) => e.type === "interval" && e.phase === "measure" && e.sample.t === 3);
    const qpsLine = () =>
      plain(r.lastFrame())
        .split("\n")
        .find((l) => l.trimStart().startsWith("qps")) ?? "";
    await expect.poll(qpsLine).toMatch(/^ {2}qps +2129\.5 [▁-█]{3}$/);
  });
});

describe("layout", () => {
  /** A seed-sized matrix (8 tests × 7 thread counts), mid-run, with failures. */
  function seedState(): ViewState {
    const tests = [
      "delete",
      "insert",
      "oltp_complex_ro",
      "oltp_complex_rw",
      "oltp_simple",
      "select",
      "update_index",
      "update_non_index",
    ];
    const threads = [1, 4, 8, 16, 32, 64, 128];
    const cells: Cell[] = [];
    for (const test of tests)
      for (const t of threads)
        for (const server of ["mariadb", "mysql"])
          cells.push({
            index: cells.length,
            key: `${server}/${test}/${t}/1`,
            server,
            test,
            script: test,
            threads: t,
            repeat: 1,
          });
    const at = "2025-01-01T12:00:00.000Z";
    const evs: RunEvent[] = [
      {
        type: "plan-ready",
        at,
        runId: "r1",
        dir: "results/r1",
        scenario: "seed-000",
        cells,
        estimateSeconds: 36000,
        servers: [
          { id: "mariadb", image: "mariadb-11.8" },
          { id: "mysql", image: "mysql-9.7" },
        ],
        storage: "raid0",
        transport: "tcp",
      },
      { type: "cell-started", at, cell: cells[20], phase: "measure", seconds: 300 },
    ];
    for (let t = 1; t <= 90; t++)
      evs.push({
        type: "interval",
        at,
        cell: cells[20],
        phase: "measure",
        sample: {
          t,
          threads: 32,
          tps: 100 + (t % 7),
          qps: 2000 + t,
          readsPerSec: 0,
          writesPerSec: 0,
          otherPerSec: 0,
          latencyPercentile: 95,
          latencyMs: 3,
          errorsPerSec: 0,
          reconnectsPerSec: 0,
        },
      });
    for (const c of cells.slice(0, 6))
      evs.push({
        type: "cell-failed",
        at,
        cell: c,
        record: {
          key: c.key,
          server: c.server,
          test: c.test,
          threads: c.threads,
          repeat: 1,
          phase: "measure",
          status: "failed",
          error: "x".repeat(200),
          metrics: null,
          raw: "r",
          startedAt: at,
          endedAt: at,
        },
      });
    return { ...evs.reduce(reduce, initialState()), log: [] };
  }

  it.each([
    { width: 80, height: 24 },
    { width: 120, height: 40 },
    { width: 60, height: 20 },
  ])("the live area fits $width×$height", ({ width, height }) => {
    const r = render(
      <ColorContext.Provider value={false}>
        <RunView state={seedState()} size={{ width, height }} />
      </ColorContext.Provider>,
    );
    const lines = plain(r.lastFrame()).split("\n");
    expect(lines.length).toBeLessThan(height);
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(width);
    expect(lines.join("\n")).toContain("failures (6)");
  });

  it("draws the forest plot of the cells under the live table when it fits, and leaves it out when it does not", () => {
    // Before the run finishes (the final screen shows the answer in words instead).
    const done = { ...synthetic.filter((e) => e.type !== "run-finished").reduce(reduce, initialState()), log: [] };
    const frame = (height: number) =>
      plain(
        render(
          <ColorContext.Provider value={false}>
            <RunView state={done} size={{ width: 100, height }} />
          </ColorContext.Provider>,
        ).lastFrame(),
      ).split("\n");
    const tall = frame(50);
    const forest = forestLines(done.table!.forest!, 100);
    // The forest's lines, in order, each cell's figure and verdict word at the end of its line.
    const first = tall.indexOf(forest[0]!);
    expect(first).toBeGreaterThan(tall.findIndex((l) => l.includes("Number of threads")));
    expect(tall.slice(first, first + forest.length)).toEqual(forest);
    expect(forest.some((l) => /●.*\] ?\S+$|●.* \S+$/.test(l))).toBe(true);
    expect(tall.length).toBeLessThan(50);
    const short = frame(20);
    expect(short.length).toBeLessThan(20);
    expect(short).not.toContain(forest.at(-1));
  });

  it("uses the width for the sparklines (up to 60 s)", () => {
    const frame = (width: number) => {
      const r = render(
        <ColorContext.Provider value={false}>
          <RunView state={seedState()} size={{ width, height: 40 }} />
        </ColorContext.Provider>,
      );
      return plain(r.lastFrame())
        .split("\n")
        .find((l) => l.trimStart().startsWith("tps"))!;
    };
    expect(frame(80).match(/[▁-█]+/)![0].length).toBe(58);
    expect(frame(160).match(/[▁-█]+/)![0].length).toBe(60);
  });

  it("without colour there are no escape codes", () => {
    const r = render(
      <ColorContext.Provider value={false}>
        <RunView state={seedState()} size={{ width: 80, height: 24 }} />
      </ColorContext.Provider>,
    );
    // eslint-disable-next-line no-control-regex -- strips the terminal's colour codes
    expect(r.lastFrame()).not.toMatch(/\x1b\[/);
  });
});

describe("keys", () => {
  it.each([
    { key: "q", cancels: 1, skips: 0 },
    { key: "\x03", cancels: 1, skips: 0 },
    { key: "s", cancels: 0, skips: 1 },
  ])("$key", async ({ key, cancels, skips }) => {
    const store = createRunStore();
    let c = 0;
    let s = 0;
    const r = screen(store, { onCancel: () => c++, onSkip: () => s++ });
    feedUntil(store, (e) => e.type === "interval" && e.phase === "measure");
    await tick();
    r.stdin.write(key);
    await expect.poll(() => [c, s]).toEqual([cancels, skips]);
    if (cancels) await expect.poll(() => plain(r.lastFrame())).toContain("cleaning up… (Ctrl-C again to force)");
  });

  it("a second Ctrl-C is passed on too, and shows that it forces", async () => {
    const store = createRunStore();
    let c = 0;
    const r = screen(store, { onCancel: () => c++ });
    feedUntil(store, (e) => e.type === "interval" && e.phase === "measure");
    await tick();
    r.stdin.write("\x03");
    await expect.poll(() => c).toBe(1);
    r.stdin.write("\x03");
    await expect.poll(() => c).toBe(2);
    await expect.poll(() => plain(r.lastFrame())).toContain("forcing: removing this run's resources…");
  });

  it("s does nothing once a cancel was asked for", async () => {
    const store = createRunStore();
    let s = 0;
    const r = screen(store, { onSkip: () => s++ });
    feedUntil(store, (e) => e.type === "interval" && e.phase === "measure");
    await tick();
    r.stdin.write("q");
    await expect.poll(() => store.get().ui.cancelRequests).toBe(1);
    r.stdin.write("s");
    r.stdin.write("d"); // a key after s: once it is handled, s was too
    await expect.poll(() => store.get().ui.details).toBe(true);
    expect(s).toBe(0);
  });

  it("d shows the details of the latest finished cell; arrows select another", async () => {
    const store = createRunStore();
    const r = screen(store);
    feedUntil(store, (e) => e.type === "cell-finished" && e.cell.key === "mariadb/oltp_read_only/4/1");
    await tick();
    r.stdin.write("d");
    await expect.poll(() => plain(r.lastFrame())).toContain("details 5/5: mariadb/oltp_read_only/4/1 (ok)");
    let frame = plain(r.lastFrame());
    expect(frame).toContain("qps 7630.40 · tps 476.90");
    expect(frame).toContain("latency ms min 0.31 · avg 8.39 · max 12.50 · p95 10.90");
    expect(frame).toContain("raw log: raw/mariadb/oltp_read_only-t4-r1.log");
    r.stdin.write("\x1b[A"); // up
    await expect.poll(() => plain(r.lastFrame())).toContain("details 4/5: mysql/oltp_read_only/1/2 (ok)");
    r.stdin.write("d");
    await expect.poll(() => plain(r.lastFrame())).not.toContain("details 4/5");
    frame = plain(r.lastFrame());
    expect(frame).toContain("Number of threads");
  });
});

// ---- mountRunScreen, with fake terminal streams, and a fake run that honours its signal ----

/** A run that replays the synthetic plan, emits intervals until its signal aborts, then cleans up and finishes. */
async function fakeRun(signal: AbortSignal, emit: (e: RunEvent) => void): Promise<130 | 0> {
  const plan = synthetic[0] as Extract<RunEvent, { type: "plan-ready" }>;
  const at = () => new Date().toISOString();
  emit({ ...plan, at: at() });
  const cell = plan.cells[0];
  emit({ type: "cell-started", at: at(), cell, phase: "measure", seconds: 1000 });
  for (let t = 1; t <= 1000 && !signal.aborted; t++) {
    emit({
      type: "interval",
      at: at(),
      cell,
      phase: "measure",
      sample: {
        t,
        threads: 1,
        tps: 100 + t,
        qps: 2000 + t,
        readsPerSec: 0,
        writesPerSec: 0,
        otherPerSec: 0,
        latencyPercentile: 95,
        latencyMs: 2,
        errorsPerSec: 0,
        reconnectsPerSec: 0,
      },
    });
    await new Promise((r) => setTimeout(r, 10));
  }
  if (!signal.aborted) return 0;
  emit({
    type: "cell-failed",
    at: at(),
    cell,
    record: {
      key: cell.key,
      server: cell.server,
      test: cell.test,
      threads: 1,
      repeat: 1,
      phase: "measure",
      status: "failed",
      error: "cancelled by the user",
      metrics: null,
      raw: "r",
      startedAt: at(),
      endedAt: at(),
    },
  });
  emit({ type: "cancelling", at: at(), reason: "cancelled by the user" });
  emit({ type: "phase", at: at(), phase: "teardown" });
  await new Promise((r) => setTimeout(r, 50)); // teardown takes a while
  emit({
    type: "run-finished",
    at: at(),
    status: "cancelled",
    dir: plan.dir,
    exitCode: 130,
    cellsOk: 0,
    cellsFailed: 1,
  });
  return 130;
}

describe("mountRunScreen", () => {
  it("q cancels the run gracefully: cleaning up… until teardown ends, then the final state, then done", async () => {
    const stdout = new FakeStdout();
    const stdin = new FakeStdin();
    const ac = new AbortController();
    let cancels = 0;
    const screen = mountRunScreen({
      stdout: stdout as unknown as NodeJS.WriteStream,
      stdin: stdin as unknown as NodeJS.ReadStream,
      onCancel: () => {
        cancels++;
        ac.abort();
      },
      onSkip: () => {},
      color: false,
      tickMs: 0,
    });
    const run = fakeRun(ac.signal, screen.dispatch);
    await expect.poll(() => screen.state().live?.samples.length ?? 0).toBeGreaterThan(2);
    expect(stdout.all()).toContain("qps");
    stdin.write("q");
    await expect.poll(() => screen.state().cancelling).toBeDefined();
    expect(stdout.all()).toContain("cleaning up…");
    expect(await run).toBe(130);
    await screen.done;
    expect(cancels).toBe(1);
    const out = stdout.all();
    expect(out).toContain("run cancelled: 0 cells ok, 1 failed");
    expect(out).toContain("exit code 130");
    // The final frame is the last thing written: no live figures after it.
    expect(out.slice(out.lastIndexOf("run cancelled"))).not.toContain("cleaning up…");
  });

  it("close() unmounts a screen whose run never finished", async () => {
    const screen = mountRunScreen({
      stdout: new FakeStdout() as unknown as NodeJS.WriteStream,
      stdin: new FakeStdin() as unknown as NodeJS.ReadStream,
      onCancel: () => {},
      onSkip: () => {},
      tickMs: 0,
    });
    screen.dispatch(synthetic[0]);
    screen.close();
    screen.close();
    await screen.done;
  });
});

describe("adaptive rounds on the run screen", () => {
  type Round = Extract<RunEvent, { type: "round-finished" }>;
  const round = (r: number, hw: [number, number], done: [string?, string?] = []): Round => ({
    type: "round-finished",
    at: `2025-01-01T12:0${r}:00.000Z`,
    round: r,
    instance: r - 1,
    etaSeconds: 300 / r,
    budgetLeftSeconds: 900 - 60 * r,
    precisionPct: 5,
    cells: [
      {
        test: "oltp_read_only",
        threads: 1,
        n: r,
        estimate: 101,
        low: 101 / (1 + hw[0] / 100),
        high: 101 * (1 + hw[0] / 100),
        halfWidthPct: hw[0],
        ...(done[0] ? { done: done[0] as "precision" } : {}),
      },
      {
        test: "oltp_read_only",
        threads: 4,
        n: r,
        estimate: 97,
        low: 90,
        high: 104,
        halfWidthPct: hw[1],
        ...(done[1] ? { done: done[1] as "max" } : {}),
      },
    ],
  });
  const state = () =>
    [round(1, [30, 40]), round(2, [12, 25]), round(3, [4.5, 14], ["precision"])].reduce(
      reduce,
      synthetic.slice(0, 3).reduce(reduce, initialState()),
    );

  it("keeps each cell's half-width after every round and takes the ETA from the latest round", () => {
    const s = state();
    expect(s.adaptive!.round).toBe(3);
    expect(s.adaptive!.cells.map((c) => c.widths)).toEqual([
      [30, 12, 4.5],
      [40, 25, 14],
    ]);
    expect(s.progress.etaSeconds).toBe(100);
    expect(s.progress.etaMinimum).toBe(false);
    // Before any forecast, round 1's minimum is a lower bound on screen too.
    const first = reduce(synthetic.slice(0, 3).reduce(reduce, initialState()), {
      ...round(1, [30, 40]),
      etaMinimum: true,
    });
    expect(first.progress).toMatchObject({ etaSeconds: 300, etaMinimum: true });
    // a stopped cell keeps its history when later rounds leave it out
    const s4 = reduce(s, {
      ...round(4, [4.5, 9]),
      cells: [round(3, [4.5, 0], ["precision"]).cells[0], round(4, [0, 9]).cells[1]],
    });
    expect(s4.adaptive!.cells[0].widths).toEqual([30, 12, 4.5]);
    // Each cell carries the vocabulary's word of its latest interval: [96.7–105.5] and [90–104] include 100, and
    // both reach past 95–105: unclear.
    expect(s.adaptive!.cells.map((c) => c.word)).toEqual(["unclear", "unclear"]);
    const faster = reduce(s, {
      ...round(5, [1, 1]),
      cells: [{ ...round(5, [1, 1]).cells[0], low: 100.4, high: 102 }, round(5, [1, 1]).cells[1]],
    });
    expect(faster.adaptive!.cells[0].word).toBe("faster");
    expect(s4.log.at(-1)!.text).toMatch(/^round 4 \(instance 3\): 1 open/);
  });

  it("words the cells and the table at the run's margin (plan-ready, round-finished), not the default 5%", () => {
    const plan = synthetic[0] as Extract<RunEvent, { type: "plan-ready" }>;
    // [96.7–105.5] and [90–104]: at ±5% both reach past an edge (unclear); at ±20% both are inside (same)
    const wide = [round(1, [30, 40]), round(2, [12, 25]), round(3, [4.5, 14], ["precision"])].reduce(
      reduce,
      [{ ...plan, marginPct: 20 }, ...synthetic.slice(1, 3)].reduce(reduce, initialState()),
    );
    expect(wide.marginPct).toBe(20);
    expect(wide.adaptive!.cells.map((c) => c.word)).toEqual(["same", "same"]);
    expect(wide.log.at(-1)!.text).toContain("101.0 ±4.5% unclear n=3"); // the event carries no margin: the line's default
    const withEvent = reduce(wide, { ...round(4, [4.5, 14], ["precision"]), marginPct: 20 });
    expect(withEvent.log.at(-1)!.text).toContain("101.0 ±4.5% same n=4 (precision)");
    // and a stop whose printed interval is wider than the target says so
    const stopHalf = reduce(wide, { ...round(4, [12, 14], ["precision"]), marginPct: 20 });
    expect(stopHalf.adaptive!.cells[0].reason).toBe("stopped wider than the target");
    expect(stopHalf.log.at(-1)!.text).toContain("(stopped wider than the target)");
  });

  it("the table's words and legend take the run's margin", () => {
    const plan = synthetic[0] as Extract<RunEvent, { type: "plan-ready" }>;
    const at5 = synthetic.reduce(reduce, initialState());
    const at20 = [{ ...plan, marginPct: 20 }, ...synthetic.slice(1)].reduce(reduce, initialState());
    expect(at5.table!.marginPct).toBe(5);
    expect(at20.table!.marginPct).toBe(20);
  });

  it("renders the narrowing and the ETA within the screen", () => {
    for (const size of [
      { width: 80, height: 24 },
      { width: 60, height: 20 },
    ]) {
      const r = render(
        <ColorContext.Provider value={false}>
          <RunView state={{ ...state(), log: [] }} size={size} />
        </ColorContext.Provider>,
      );
      const lines = plain(r.lastFrame()).split("\n");
      expect(lines.length).toBeLessThan(size.height);
      for (const l of lines) expect(l.length).toBeLessThanOrEqual(size.width);
      const text = lines.join("\n");
      expect(text).toContain("round 3 · instance 2 · 1/2 cells open · ETA");
      if (size.width >= 80)
        // At 80 columns the trail keeps the latest half-widths that fit, so the stop reason is never cut.
        expect(text).toContain("101.0 [96.7–105.5] unclear  ±12.0 → ±4.5%  n=3  precision");
    }
  });
});
