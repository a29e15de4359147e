/**
 * The TUI's live table of a ladder run: one table per pair (rows computed in core by liveLadder), and the
 * two-server screen unchanged when the plan names one pair or none.
 */
import React from "react";
import { afterEach, describe, expect, it } from "vitest";
import { cleanup, render } from "ink-testing-library";
import type { RunEvent } from "../../../src/core/model/events.ts";
import type { Cell } from "../../../src/core/model/results.ts";
import { ColorContext } from "../../../src/tui/color.tsx";
import { RunView } from "../../../src/tui/components.tsx";
import { initialState, reduce } from "../../../src/tui/state.ts";
import { type ViewState } from "../../../src/tui/view-state.ts";
import { PAIRS, ladderRun } from "../../support/ladder-fixture.ts";
import { plain } from "../../support/fake-terminal.ts";

afterEach(() => cleanup());

function feed(pairs: Extract<RunEvent, { type: "plan-ready" }>["pairs"]): ViewState {
  const { manifest, cells } = ladderRun("ladder");
  const at = "2025-01-01T10:00:00.000Z";
  const plan: RunEvent = {
    type: "plan-ready",
    at,
    runId: "ladder",
    dir: "results/ladder",
    scenario: "ladder",
    cells: manifest.cells as Cell[],
    estimateSeconds: 60,
    servers: manifest.scenario.servers.map((s) => ({ id: s.id, image: s.image })),
    storage: "tmpfs",
    transport: "socket",
    ...(pairs ? { pairs } : {}),
  };
  let s = reduce(initialState(), plan);
  for (const r of cells.filter((c) => c.phase !== "warmup")) {
    const cell = manifest.cells.find((c) => c.key === r.key) as Cell;
    s = reduce(s, { type: r.status === "failed" ? "cell-failed" : "cell-finished", at, cell, record: r } as RunEvent);
  }
  return s;
}

function frame(s: ViewState, height = 40): string {
  const { lastFrame } = render(
    <ColorContext.Provider value={false}>
      <RunView state={s} size={{ width: 100, height }} />
    </ColorContext.Provider>,
  );
  return plain(lastFrame());
}

describe("TUI ladder", () => {
  it("state: one table per pair, words from q over every pair × cell", () => {
    const s = feed(PAIRS);
    expect(s.ladder.map((t) => `${t.numerator}/${t.denominator}`)).toEqual(["mariadb/mysql", "mariadb-10/mysql"]);
    expect(s.ladder[1]!.rows[0]!.cells[0]).toMatchObject({ threads: 1, ratio: 95.5, status: "ok" });
    expect(s.ladder[1]!.rows[1]!.cells[1]!.status).toBe("failed");
  });
  it("screen: a titled block per pair", () => {
    const f = frame(feed(PAIRS));
    expect(f).toContain("mariadb / mysql");
    expect(f).toContain("mariadb-10 / mysql");
    expect(f.match(/Number of threads/g)?.length).toBe(2);
    expect(f).toMatch(/oltp_read_only\s+95\.50 slower/);
  });
  it("a short screen still shows both blocks (compact)", () => {
    const f = frame(feed(PAIRS), 22);
    expect(f).toContain("mariadb / mysql");
    expect(f).toContain("mariadb-10 / mysql");
  });
  it("one pair or none: no ladder, the two-server screen as before", () => {
    const one = feed(PAIRS.slice(0, 1));
    const none = feed(undefined);
    expect(one.ladder).toEqual([]);
    expect(frame(one)).toBe(frame(none));
    expect(frame(none)).not.toContain("mariadb-10 / mysql");
  });
});

describe("TUI final screen: a second run on this host", () => {
  it("shows the report's second-run sentences under the run's end", () => {
    let s = feed(PAIRS);
    const at = "2025-01-01T10:00:00.000Z";
    s = reduce(s, {
      type: "second-run",
      at,
      lines: ["No level between runs has been measured here.", "Verdicts are for this run alone (--level run)."],
    });
    s = reduce(s, { type: "run-finished", at, status: "ok", dir: "/tmp/r", exitCode: 0, cellsOk: 4, cellsFailed: 0 });
    expect(s.secondRun).toHaveLength(2);
    const f = frame(s);
    expect(f).toContain("run ok: 4 cells ok, 0 failed");
    expect(f).toContain("Verdicts are for this run alone (--level run).");
    expect(f.indexOf("exit code 0")).toBeLessThan(f.indexOf("Verdicts are for this run alone"));
  });
});
