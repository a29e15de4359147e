/**
 * The TUI's final screen of a quick.yaml run (test/fixtures/results/quick fed as events): the answer in the report's
 * words, as the text report prints it: every verdict a word, one sentence per verdict, a legend of at most three
 * lines, no verdict marks, within 40 lines and 120 characters; the servers named as the report's title names them.
 */
import React from "react";
import { afterEach, describe, expect, it } from "vitest";
import { cleanup, render } from "ink-testing-library";
import type { RunEvent } from "../../../src/core/model/events.ts";
import type { Cell } from "../../../src/core/model/results.ts";
import { ColorContext } from "../../../src/tui/color.tsx";
import { RunView } from "../../../src/tui/components.tsx";
import { initialState, reduce } from "../../../src/tui/state.ts";
import type { ViewState } from "../../../src/tui/view-state.ts";
import { load } from "../../support/results-fixture.ts";

afterEach(() => cleanup());
// eslint-disable-next-line no-control-regex -- strips the terminal's colour codes
const plain = (s: string | undefined) => (s ?? "").replace(/\x1b\[[0-9;?]*[a-zA-Z]/g, "");

function finishedRun(finish = true): ViewState {
  const { manifest, cells } = load("quick");
  const at = "2025-01-01T10:00:00.000Z";
  let s = reduce(initialState(), {
    type: "plan-ready",
    at,
    runId: "quick",
    dir: "results/quick",
    scenario: "quick",
    cells: manifest.cells as Cell[],
    estimateSeconds: 600,
    servers: manifest.scenario.servers.map((x) => ({ id: x.id, image: x.image })),
    storage: "tmpfs",
    transport: "socket",
  } as RunEvent);
  // The servers say who they are, as a run's set-up does: their versions, then their families with the config check.
  for (const sv of manifest.servers)
    s = reduce(s, { type: "server-ready", at, server: sv.id, version: sv.version ?? "", seconds: 1 });
  s = reduce(s, { type: "config-identity", at, rows: [], differences: 0, servers: manifest.servers });
  for (const r of cells) {
    const cell = manifest.cells.find((c) => c.key === r.key) as Cell;
    s = reduce(s, { type: "cell-finished", at, cell, record: r } as RunEvent);
  }
  if (finish)
    s = reduce(s, {
      type: "run-finished",
      at,
      status: "ok",
      dir: "results/quick",
      exitCode: 0,
      cellsOk: cells.length,
      cellsFailed: 0,
    });
  return s;
}

/** The screen's lines from its header on (the cells' log lines scroll above it). */
function frame(s: ViewState, width = 120, height = 60): string[] {
  const { lastFrame } = render(
    <ColorContext.Provider value={false}>
      <RunView state={s} size={{ width, height }} />
    </ColorContext.Provider>,
  );
  const lines = plain(lastFrame()).split("\n");
  return lines.slice(lines.findIndex((l) => l.startsWith("twinbench ·")));
}

describe("TUI final screen", () => {
  it("shows the answer in words within 40 lines of 120 characters", () => {
    const lines = frame(finishedRun());
    expect(lines.length).toBeLessThanOrEqual(40);
    for (const l of lines) expect(l.trimEnd().length).toBeLessThanOrEqual(120);
    const rows = lines.filter((l) => /^ {2}oltp_\w+ +\d+ +\d/.test(l));
    expect(rows).toHaveLength(6);
    for (const r of rows) expect(r.trimEnd()).toMatch(/ (faster|slower|same within ±5%|unclear)$/);
    expect(lines.some((l) => l.includes("times as fast as"))).toBe(true);
  });

  it("its legend is the report's, at most three lines, and no verdict mark is left", () => {
    const s = finishedRun();
    const lines = frame(s);
    expect(s.table!.answer).toBeDefined();
    const legend = lines.filter((l) => /^(estimate:|faster, slower:|same within)/.test(l));
    expect(legend.length).toBeLessThanOrEqual(3);
    expect(legend.length).toBeGreaterThan(0);
    const text = lines.join("\n");
    expect(text).not.toMatch(/\d(\+\+|\+=|-=|--|~|\?)(\s|$)/);
    expect(text).not.toContain("x?");
    // The report's legend for the same cells, word for word.
    expect(legend).toEqual(s.table!.answer!.slice(-legend.length));
  });

  it("names the servers by family and version, as the report's title does, not by their ids", () => {
    const text = frame(finishedRun()).join("\n");
    expect(text).toContain("(MariaDB 11.8 q/s / MySQL 9.7 q/s * 100)");
    expect(text).toContain("MariaDB 11.8 ran oltp_point_select at 1 thread");
    expect(text).toMatch(/^estimate: MariaDB 11\.8 \/ MySQL 9\.7 × 100/m);
    expect(text).not.toMatch(/\bmariadb ran\b|as fast as mysql\b/);
  });

  it("while the run goes on, the live table shows each cell's figure with its word, and no mark", () => {
    const lines = frame(finishedRun(false));
    const rows = lines.filter((l) => /^ {2}oltp_\w+ +\d+\.\d+ /.test(l));
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) expect(r.trimEnd()).toMatch(/\d (faster|slower|same|unclear|load-bound)$/);
    expect(lines.join("\n")).not.toMatch(/\d(\+\+|\+=|-=|--|~|\?)(\s|$)/);
  });
});
