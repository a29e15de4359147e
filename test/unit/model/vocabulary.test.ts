import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseCellsJsonl } from "../../../src/adapters/report-files.ts";
import type { RunEvent } from "../../../src/core/model/events.ts";
import type { CellRecord, RunManifest } from "../../../src/core/model/results.ts";
import { buildRunReport } from "../../../src/core/report/model.ts";
import { renderText } from "../../../src/core/report/text.ts";
import { renderMarkdown } from "../../../src/core/report/markdown.ts";
import { renderHtml } from "../../../src/core/report/html.ts";
import { buildHtmlData } from "../../../src/core/report/html-data.ts";
import { forestLines, forestOf } from "../../../src/core/report/forest.ts";
import { renderComparisonMarkdown, renderComparisonText } from "../../../src/core/report/compare.ts";
import { compareRuns } from "../../../src/core/stats/compare.ts";
import { roundLine } from "../../../src/core/plan/adaptive.ts";
import { initialState, reduce } from "../../../src/tui/state.ts";
import { tableCellText } from "../../../src/tui/format.ts";
import { VERDICTS, directionOfKind } from "../../../src/core/model/verdict.ts";
import {
  DIRECTIONS,
  DIRECTION_MARKS,
  DIRECTION_WORDS,
  FLAG_MARKS,
  STATE_MARKS,
  STATE_WORDS,
  VERDICT_MARKS,
  legendEntries,
  longLegend,
  shortLegend,
  verdictMark,
  verdictSentence,
  verdictWords,
} from "../../../src/core/model/vocabulary.ts";
import { tableLegend } from "../../../src/tui/format.ts";
import { verdictLegend } from "../../../src/core/report/text.ts";
import { ratioTableFromSides } from "../../../src/core/stats/ratio.ts";

describe("one vocabulary", () => {
  it("every verdict kind has a mark and a word; no two kinds share a mark; no mark is a state's", () => {
    for (const v of VERDICTS) {
      expect(VERDICT_MARKS[v], v).toMatch(/\S/);
      expect(verdictWords(v, 5), v).toMatch(/\S/);
      // The words name the direction, and (with an interval) the margin.
      expect(verdictWords(v, 5)).toContain(DIRECTION_WORDS[directionOfKind(v)]);
      if (v !== "unknown") expect(verdictWords(v, 5)).toContain("±5%");
      // A kind's mark starts with its direction's mark, except `=` (no clear difference within the margin).
      if (v !== "equivalent") expect(VERDICT_MARKS[v].startsWith(DIRECTION_MARKS[directionOfKind(v)])).toBe(true);
    }
    const marks = Object.values(VERDICT_MARKS);
    expect(new Set(marks).size).toBe(marks.length);
    for (const s of Object.values(STATE_MARKS)) expect(marks).not.toContain(s);
    for (const d of DIRECTIONS) expect([DIRECTION_MARKS[d], DIRECTION_WORDS[d]].every(Boolean)).toBe(true);
    for (const s of Object.keys(STATE_MARKS) as Array<keyof typeof STATE_MARKS>) expect(STATE_WORDS[s]).toMatch(/\S/);
  });

  it("the TUI legend and the report legend are made of the same words", () => {
    const tui = tableLegend({
      numerator: "mariadb",
      denominator: "mysql",
      threads: [1],
      rows: [],
      marginPct: 5,
      forest: {
        groups: [],
        marginPct: 5,
        confidence: 0.95,
        numeratorLabel: "mariadb",
        denominatorLabel: "mysql",
        axis: { min: 90, max: 110, ticks: [100] },
      },
    }).join("\n");
    const table = ratioTableFromSides(
      { id: "a", label: "A", records: [] },
      { id: "b", label: "B", records: [] },
      ["t"],
      [1],
    );
    const report = verdictLegend(table).join("\n");
    const e = legendEntries(5);
    const shared = [...e.directions, ...e.equivalences, e.fdr, `${STATE_MARKS.missing} ${STATE_WORDS.missing}`];
    for (const entry of shared) {
      expect(tui, entry).toContain(entry);
      expect(report, entry).toContain(entry);
    }
    // The report spells out every kind and state; the TUI shows the running state only it has.
    for (const k of [...e.kinds, ...e.states.filter((s) => !s.startsWith(STATE_MARKS.running))])
      expect(report).toContain(k);
    expect(tui).toContain(`${STATE_MARKS.running} ${STATE_WORDS.running}`);
    // The old words are gone from both.
    for (const old of ["same", "undecided", "unknown", "inconclusive"]) {
      expect(tui).not.toMatch(new RegExp(`\\b${old}\\b`));
      expect(report).not.toMatch(new RegExp(`\\b${old}\\b`));
    }
    expect(tui).toContain(`x${FLAG_MARKS.fdrFails}`);
  });

  it("the TUI legend packs its entries into the screen's width, never splitting one", () => {
    const head = "(mariadb q/s / mysql q/s * 100)";
    for (const w of [60, 80, 120]) {
      const lines = shortLegend(5, head, w);
      for (const l of lines) expect(l.length).toBeLessThanOrEqual(w);
      expect(lines.join("  ")).toBe(shortLegend(5, head, 10_000)[0]);
    }
    expect(shortLegend(5, head, 80)).toHaveLength(3);
  });

  it("the legends follow the margin", () => {
    expect(shortLegend(3).join(" ")).toContain("= within ±3%");
    expect(longLegend({ marginPct: 2.5, numerator: "A", denominator: "B", few: "pairs" }).join(" ")).toContain(
      "inside 97.5–102.5",
    );
  });
});

describe("one vocabulary across the front ends (issue 25, item 6)", () => {
  const FIX = join(import.meta.dirname, "../../fixtures/results");
  const load = (name: string): { manifest: RunManifest; cells: CellRecord[] } => ({
    manifest: JSON.parse(readFileSync(join(FIX, name, "run.json"), "utf8")) as RunManifest,
    cells: parseCellsJsonl(readFileSync(join(FIX, name, "cells.jsonl"), "utf8")).cells,
  });
  const { manifest, cells } = load("repeats");
  const report = buildRunReport(manifest, cells);
  const t = report.table!;
  const measured = t.rows.flatMap((r) =>
    r.cells.filter((c) => c.status === "ok" && c.estimate !== null).map((c) => ({ test: r.test, c })),
  );

  // The TUI's view of the same records, fed as the run's events.
  const at = "2025-01-01T12:00:00.000Z";
  const events: RunEvent[] = [
    {
      type: "plan-ready",
      at,
      runId: manifest.runId,
      dir: "/d",
      scenario: manifest.scenario.name,
      cells: manifest.cells,
      estimateSeconds: 60,
      servers: manifest.scenario.servers.map((s) => ({ id: s.id, image: "x" })),
      storage: "tmpfs",
      transport: "tcp",
    },
    ...cells
      .filter((r) => r.phase === "measure")
      .map((r): RunEvent => {
        const cell = manifest.cells.find((c) => c.key === r.key)!;
        return r.status === "ok"
          ? { type: "cell-finished", at, cell, record: r }
          : { type: "cell-failed", at, cell, record: r };
      }),
  ];
  const tui = events.reduce(reduce, initialState());

  it("the fixture has cells of several kinds and a failed and an unmeasured cell", () => {
    expect(new Set(measured.map((m) => m.c.verdict)).size).toBeGreaterThanOrEqual(3);
    expect(t.rows.flatMap((r) => r.cells).map((c) => c.status)).toEqual(expect.arrayContaining(["failed", "missing"]));
  });

  it("every cell shows the same mark in the text, markdown and HTML reports, the forest plot and the TUI table", () => {
    const text = renderText(report);
    const md = renderMarkdown(report);
    const html = renderHtml(buildHtmlData(manifest, cells, report), "");
    const forest = forestLines(forestOf(t), 120);
    for (const { test, c } of measured) {
      const mark = verdictMark(c);
      const ci = `[${c.low!.toFixed(1)}–${c.high!.toFixed(1)}]`;
      const fig = `${c.estimate!.toFixed(1)} ${ci}`;
      const where = `${test} @ ${c.threads}`;
      expect(text, where).toContain(`${fig} ${mark}`);
      expect(md, where).toContain(`${fig} ${mark}`);
      expect(html, where).toContain(`<b>${c.estimate!.toFixed(1)}</b> <small>${ci}</small> ${mark}`);
      expect(
        forest.some((l) => l.endsWith(`${fig} ${mark}`)),
        where,
      ).toBe(true);
      const tuiCell = tui.table!.rows.find((r) => r.test === test)!.cells.find((x) => x.threads === c.threads)!;
      expect(tuiCell.mark, where).toBe(mark);
      // The words beside the mark are the vocabulary's.
      expect(text, where).toContain(verdictSentence(c, t.marginPct));
    }
    // States: the same marks in the reports and the TUI.
    for (const r of t.rows) {
      for (const c of r.cells.filter((x) => x.status !== "ok")) {
        const tuiCell = tui.table!.rows.find((x) => x.test === r.test)!.cells.find((x) => x.threads === c.threads)!;
        expect(tableCellText(tuiCell)).toBe(STATE_MARKS[c.status as keyof typeof STATE_MARKS]);
        expect(html).toContain(`data-verdict="${c.status}">${STATE_MARKS[c.status as keyof typeof STATE_MARKS]}<`);
      }
    }
    // What a reader sees of the page: no script, no style, no tags (class names keep the verdict kinds' ids).
    const shown = html.replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/g, "").replace(/<[^>]+>/g, " ");
    for (const out of [text, md, shown, forest.join("\n"), tableLegend(tui.table!).join("\n")])
      expect(out).not.toMatch(/\b(undecided|inconclusive)\b|~ same\b/);
  });

  it("the plain round lines mark a cell as the report does", () => {
    const line = roundLine({
      type: "round-finished",
      at,
      round: 1,
      instance: 1,
      etaSeconds: null,
      budgetLeftSeconds: null,
      cells: measured.map(({ test, c }) => ({
        test,
        threads: c.threads,
        n: c.n,
        estimate: c.estimate,
        low: c.low,
        high: c.high,
        halfWidthPct: 1,
      })),
    });
    for (const { test, c } of measured)
      expect(line).toContain(
        `${test}@${c.threads} ${c.estimate!.toFixed(1)} ±1.0% ${VERDICT_MARKS[c.verdict]} n=${c.n}`,
      );
  });

  it("compare marks its cells with the same vocabulary", () => {
    const cmp = compareRuns(load("compare-a"), load("compare-b"));
    const text = renderComparisonText(cmp);
    const md = renderComparisonMarkdown(cmp);
    let n = 0;
    for (const ct of cmp.tables)
      for (const r of ct.rows)
        for (const c of r.cells) {
          if (c.status !== "ok" || c.estimate === null) continue;
          n++;
          const cell = `${c.estimate.toFixed(1)}${c.low !== null ? ` [${c.low.toFixed(1)}–${c.high!.toFixed(1)}]` : ""} ${verdictMark(c)}`;
          expect(text).toContain(cell);
          expect(md).toContain(cell);
        }
    expect(n).toBeGreaterThan(0);
    for (const out of [text, md]) expect(out).not.toMatch(/\b(undecided|inconclusive)\b|~ same\b/);
  });
});
