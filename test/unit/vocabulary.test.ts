import { describe, expect, it } from "vitest";
import { VERDICTS, directionOfKind } from "../../src/core/verdict.ts";
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
  verdictWords,
} from "../../src/core/vocabulary.ts";
import { tableLegend } from "../../src/tui/format.ts";
import { verdictLegend } from "../../src/core/report/text.ts";
import { ratioTableFromSides } from "../../src/core/report/ratio.ts";

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
    const tui = tableLegend({ numerator: "mariadb", denominator: "mysql", threads: [1], rows: [], marginPct: 5 }).join("\n");
    const table = ratioTableFromSides({ id: "a", label: "A", records: [] }, { id: "b", label: "B", records: [] }, ["t"], [1]);
    const report = verdictLegend(table).join("\n");
    const e = legendEntries(5);
    const shared = [...e.directions, ...e.equivalences, e.fdr, `${STATE_MARKS.missing} ${STATE_WORDS.missing}`];
    for (const entry of shared) {
      expect(tui, entry).toContain(entry);
      expect(report, entry).toContain(entry);
    }
    // The report spells out every kind and state; the TUI shows the running state only it has.
    for (const k of [...e.kinds, ...e.states.filter((s) => !s.startsWith(STATE_MARKS.running))]) expect(report).toContain(k);
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
    expect(longLegend({ marginPct: 2.5, numerator: "A", denominator: "B", few: "pairs" }).join(" ")).toContain("inside 97.5–102.5");
  });
});
