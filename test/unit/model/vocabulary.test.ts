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
import { VERDICTS, directionOfKind, equivalenceOfKind } from "../../../src/core/model/verdict.ts";
import {
  LOAD_BOUND,
  STATE_MARKS,
  STATE_WORDS,
  VERDICT_WORDS,
  cellVerdictText,
  familyName,
  legendWords,
  shortLegend,
  verdictLabel,
  verdictSentence,
  verdictWordOf,
} from "../../../src/core/model/vocabulary.ts";
import { tableLegend } from "../../../src/tui/format.ts";
import { verdictLegend } from "../../../src/core/report/text.ts";
import { ratioTableFromSides } from "../../../src/core/stats/ratio.ts";
import type { RatioCell } from "../../../src/core/stats/ratio-model.ts";

/** The verdict marks the reports and the TUI used to print (`+=`, `x?`, a lone `~`, …): none may be left. */
const MARKS = /(^|\s)(\+\+|\+=|-=|--|\+|=|~|\?|x\?|L)(\?|!)?(\s|$)|\d(\+\+|\+=|-=|~|\?)(\s|$)/;

describe("one vocabulary", () => {
  it("every verdict kind reads as one of four words; a word is never a state's", () => {
    for (const v of VERDICTS) {
      const d = directionOfKind(v);
      const holds = d === "faster" || d === "slower" ? "holds" : null;
      const w = verdictWordOf({ verdict: v, fdr: holds })!;
      expect(VERDICT_WORDS, v).toContain(w);
      // faster and slower only with a direction that holds; same only within the margin with no clear difference.
      expect(w === "faster" || w === "slower").toBe(d === "faster" || d === "slower");
      expect(w === "same").toBe(d === "none" && equivalenceOfKind(v) === "within");
      if (holds) expect(verdictWordOf({ verdict: v, fdr: "fails" })).toBe("unclear");
      expect(verdictWordOf({ verdict: v, fdr: holds, loadBound: true })).toBe("unclear");
    }
    for (const w of [...VERDICT_WORDS, LOAD_BOUND.word]) {
      expect(Object.values(STATE_WORDS)).not.toContain(w);
      expect(Object.values(STATE_MARKS)).not.toContain(w);
    }
    for (const s of Object.keys(STATE_MARKS) as Array<keyof typeof STATE_MARKS>) {
      expect(STATE_WORDS[s]).toMatch(/\S/);
      expect(verdictWordOf({ status: s, verdict: "faster", fdr: "holds" })).toBeNull();
      expect(cellVerdictText({ status: s, verdict: "faster", fdr: "holds" })).toBe(STATE_WORDS[s]);
    }
  });

  it("a table says `same` where it is narrow and `same within ±5%` where it has room; load-bound is its own word", () => {
    expect(cellVerdictText({ verdict: "equivalent", fdr: null })).toBe("same");
    expect(cellVerdictText({ verdict: "equivalent", fdr: null }, 5)).toBe("same within ±5%");
    expect(verdictLabel("same", 2.5)).toBe("same within ±2.5%");
    expect(cellVerdictText({ verdict: "faster-within", fdr: "holds" }, 5)).toBe("faster");
    expect(cellVerdictText({ verdict: "unknown", fdr: null, loadBound: true }, 5)).toBe("load-bound");
    expect(verdictWordOf({ verdict: "unknown", fdr: null, loadBound: true })).toBe("unclear"); // JSON's machine word
  });

  it("names the families as people write them", () => {
    expect(["mariadb", "mysql", "MariaDB", "percona"].map(familyName)).toEqual([
      "MariaDB",
      "MySQL",
      "MariaDB",
      "percona",
    ]);
  });

  it("the TUI legend and the report legend explain the same words, and no mark", () => {
    const tui = tableLegend({
      numerator: "mariadb",
      denominator: "mysql",
      threads: [1],
      rows: [],
      marginPct: 5,
    }).join("\n");
    const table = ratioTableFromSides(
      { id: "a", label: "A", records: [] },
      { id: "b", label: "B", records: [] },
      ["t"],
      [1],
    );
    const report = verdictLegend(table).join("\n");
    for (const out of [tui, report]) {
      for (const w of VERDICT_WORDS) expect(out, w).toMatch(new RegExp(`\\b${w}\\b`));
      expect(out).toContain("±5%");
      expect(out).toContain("95–105");
      expect(out).toContain(`${STATE_MARKS.missing} ${STATE_WORDS.missing}`);
      for (const l of out.split("\n")) expect(l, l).not.toMatch(MARKS);
      expect(out).not.toMatch(/\b(undecided|inconclusive|Marks)\b/);
    }
    const w = legendWords(5);
    for (const entry of [w.fasterSlower, w.same, w.unclear]) expect(report).toContain(entry);
    for (const entry of Object.values(w.narrow)) expect(tui).toContain(entry);
    expect(tui).toContain(`${STATE_MARKS.running} ${STATE_WORDS.running}`);
    // load-bound is explained where a cell is load-bound, and only there
    expect(tui).not.toContain(LOAD_BOUND.word);
    expect(shortLegend(5, "", 100, undefined, true).join(" ")).toContain(w.loadBound);
  });

  it("the TUI legend packs its entries into the screen's width, never splitting one", () => {
    const head = "(mariadb q/s / mysql q/s * 100)";
    for (const w of [60, 80, 120]) {
      const lines = shortLegend(5, head, w);
      for (const l of lines) expect(l.length).toBeLessThanOrEqual(w);
      expect(lines.join("  ")).toBe(shortLegend(5, head, 10_000)[0]);
    }
    expect(shortLegend(5, head, 80)).toHaveLength(2);
  });

  it("the legends follow the margin", () => {
    expect(shortLegend(3).join(" ")).toContain("same: within ±3%, inside 97–103");
    const table = ratioTableFromSides(
      { id: "a", label: "A", records: [] },
      { id: "b", label: "B", records: [] },
      ["t"],
      [1],
      { marginPct: 2.5 },
    );
    expect(verdictLegend(table).join(" ")).toContain("same within ±2.5%: the interval lies inside 97.5–102.5");
  });
});

const cell = (o: Partial<RatioCell>): RatioCell =>
  ({
    status: "ok",
    threads: 4,
    estimate: 121,
    low: 114,
    high: 128,
    verdict: "faster-beyond",
    fdr: "holds",
    loadBound: false,
    ...o,
  }) as RatioCell;

describe("the verdict words of a table's cell", () => {
  it("faster and slower need the interval off 100 and the reading to hold over the table's cells", () => {
    expect(verdictWordOf(cell({}))).toBe("faster");
    expect(verdictWordOf(cell({ verdict: "faster-within" }))).toBe("faster");
    expect(verdictWordOf(cell({ verdict: "slower" }))).toBe("slower");
    expect(verdictWordOf(cell({ verdict: "slower-beyond", fdr: "fails" }))).toBe("unclear");
  });
  it("same only when the interval lies inside the margin; unclear otherwise, and for load-bound cells", () => {
    expect(verdictWordOf(cell({ verdict: "equivalent", fdr: null }))).toBe("same");
    expect(verdictWordOf(cell({ verdict: "inconclusive", fdr: null }))).toBe("unclear");
    expect(verdictWordOf(cell({ verdict: "unknown", fdr: null }))).toBe("unclear");
    expect(verdictWordOf(cell({ loadBound: true }))).toBe("unclear");
  });
  it("cells without a verdict say their state", () => {
    expect(verdictWordOf(cell({ status: "failed" }))).toBeNull();
    expect(cellVerdictText(cell({ status: "failed" }), 5)).toBe("failed");
    expect(cellVerdictText(cell({ status: "missing" }), 5)).toBe("not measured");
    expect(verdictLabel("same", 2.5)).toBe("same within ±2.5%");
  });
});

describe("one vocabulary across the front ends", () => {
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

  it("every cell shows the same verdict word in the text, markdown and HTML reports and the TUI's answer", () => {
    const text = renderText(report, { details: true });
    const md = renderMarkdown(report);
    const html = renderHtml(buildHtmlData(manifest, cells, report), "");
    const forest = forestLines(forestOf(t), 120);
    const tuiAnswer = tui.table!.answer!;
    for (const { test, c } of measured) {
      const word = cellVerdictText(c, t.marginPct);
      const est = c.estimate!.toFixed(1);
      const iv = `${c.low!.toFixed(1)}–${c.high!.toFixed(1)}`;
      const where = `${test} @ ${c.threads}`;
      const row = (l: string) => l.trim().split(/ {2,}/).join("|") === [test, c.threads, est, iv, word].join("|");
      expect(text.split("\n").some(row), where).toBe(true);
      expect(tuiAnswer.some(row), where).toBe(true);
      expect(md, where).toContain(`| ${test} | ${c.threads} | ${est} | ${iv} | ${word} |`);
      expect(html, where).toContain(`data-word="${verdictWordOf(c)}">${word}<`);
      // The narrow views say the same word in its narrow form (`same`): the forest plot and the TUI's live table.
      const narrow = cellVerdictText(c);
      expect(word.startsWith(narrow), where).toBe(true);
      expect(
        forest.some((l) => l.endsWith(`${est} [${iv}] ${narrow}`)),
        where,
      ).toBe(true);
      const tuiCell = tui.table!.rows.find((r) => r.test === test)!.cells.find((x) => x.threads === c.threads)!;
      expect(tuiCell.word, where).toBe(narrow);
      expect(tableCellText(tuiCell), where).toBe(`${tuiCell.ratio!.toFixed(2)} ${narrow}`);
      // The figures behind the word are the vocabulary's, in the details (lines wrapped at 120 joined again).
      expect(text.replace(/\n {2,}/g, " "), where).toContain(verdictSentence(c, t.marginPct));
    }
    // States: the same words in the reports and in the live TUI table (`·` where a cell has no record yet).
    for (const r of t.rows) {
      for (const c of r.cells.filter((x) => x.status !== "ok")) {
        const tuiCell = tui.table!.rows.find((x) => x.test === r.test)!.cells.find((x) => x.threads === c.threads)!;
        expect(tableCellText(tuiCell)).toBe(STATE_MARKS[c.status as keyof typeof STATE_MARKS]);
        const word = STATE_WORDS[c.status as keyof typeof STATE_WORDS];
        expect(html).toContain(`data-verdict="${c.status}" data-word="${c.status}">${word}<`);
        expect(md).toContain(`| ${r.test} | ${c.threads} |  |  | ${word} |`);
      }
    }
    // What a reader sees of the page: no script, no style, no tags (class names keep the verdict kinds' ids).
    const shown = html.replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/g, "").replace(/<[^>]+>/g, " ");
    for (const out of [text, md, shown, forest.join("\n"), tableLegend(tui.table!).join("\n")]) {
      expect(out).not.toMatch(/\b(undecided|inconclusive)\b|~ same\b/);
      expect(out).not.toMatch(/\d(\+\+|\+=|-=|~|\?)(\s|$)| x\? /);
    }
  });

  it("the plain round lines give a cell the report's word", () => {
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
        `${test}@${c.threads} ${c.estimate!.toFixed(1)} ±1.0% ${cellVerdictText({ verdict: c.verdict })} n=${c.n}`,
      );
  });

  it("compare says its cells' verdicts in the same words", () => {
    const cmp = compareRuns(load("compare-a"), load("compare-b"));
    const text = renderComparisonText(cmp);
    const md = renderComparisonMarkdown(cmp);
    let n = 0;
    for (const ct of cmp.tables)
      for (const r of ct.rows)
        for (const c of r.cells) {
          if (c.status !== "ok" || c.estimate === null) continue;
          n++;
          const cell = `${c.estimate.toFixed(1)}${c.low !== null ? ` [${c.low.toFixed(1)}–${c.high!.toFixed(1)}]` : ""} ${cellVerdictText(c)}`;
          expect(text).toContain(cell);
          expect(md).toContain(cell);
        }
    expect(n).toBeGreaterThan(0);
    for (const out of [text, md]) expect(out).not.toMatch(/\b(undecided|inconclusive)\b|~ same\b/);
  });
});
