/**
 * The forest plot (src/core/report/forest.ts) on the `repeats` fixture: rows and words from the vocabulary, the
 * axis, its text and SVG drawings; and report.html opening with it, with the disturbed cells as a table.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseCellsJsonl } from "../../../src/adapters/report-files.ts";
import type { CellRecord, RunManifest } from "../../../src/core/model/results.ts";
import { buildRunReport } from "../../../src/core/report/model.ts";
import { renderHtml } from "../../../src/core/report/html.ts";
import { buildHtmlData } from "../../../src/core/report/html-data.ts";
import { AXIS_LIMITS, forestHeight, forestLines, forestOf, forestSvg } from "../../../src/core/report/forest.ts";
import { STATE_MARKS, STATE_WORDS } from "../../../src/core/model/vocabulary.ts";

const FIX = join(import.meta.dirname, "../../fixtures/results");
function load(name: string): { manifest: RunManifest; cells: CellRecord[] } {
  const manifest = JSON.parse(readFileSync(join(FIX, name, "run.json"), "utf8")) as RunManifest;
  const { cells } = parseCellsJsonl(readFileSync(join(FIX, name, "cells.jsonl"), "utf8"));
  return { manifest, cells };
}

const { manifest, cells } = load("repeats");
const table = buildRunReport(manifest, cells).table!;
const forest = forestOf(table);

describe("forestOf", () => {
  it("has one group per test and one row per thread count, in the table's order", () => {
    expect(forest.groups.map((g) => g.test)).toEqual(table.rows.map((r) => r.test));
    for (const [i, g] of forest.groups.entries())
      expect(g.rows.map((r) => r.threads)).toEqual(table.rows[i]!.cells.map((c) => c.threads));
  });
  it("takes each cell's figures and verdict word from the table and the vocabulary", () => {
    const ro4 = forest.groups[0]!.rows.find((r) => r.threads === 4)!;
    expect(ro4.estimate).toBeCloseTo(102.0, 1);
    expect(ro4).toMatchObject({ verdict: "faster-within", word: "faster", label: "faster" });
    expect(ro4.low).toBeCloseTo(101.8, 1);
    const ps = forest.groups[1]!.rows;
    expect(ps.find((r) => r.threads === 1)).toMatchObject({ verdict: "slower-beyond", word: "slower" });
    expect(ps.find((r) => r.threads === 4)).toMatchObject({
      estimate: null,
      word: STATE_MARKS.failed,
      label: STATE_WORDS.failed,
    });
    expect(ps.find((r) => r.threads === 8)).toMatchObject({
      estimate: null,
      word: STATE_MARKS.missing,
      label: STATE_WORDS.missing,
    });
  });
  it("says `same` where the plot is narrow, and `same within ±5%` beside the SVG's rows", () => {
    const same = structuredClone(table);
    const c = same.rows[0]!.cells.find((x) => x.threads === 4)!;
    Object.assign(c, { verdict: "equivalent", direction: "none", equivalence: "within", fdr: null });
    const row = forestOf(same).groups[0]!.rows.find((r) => r.threads === 4)!;
    expect(row).toMatchObject({ word: "same", label: "same within ±5%" });
    expect(forestSvg(forestOf(same))).toContain("same within ±5%");
  });
  it("spans the band and every estimate, and no more than a factor of 2 either way", () => {
    const { min, max, ticks } = forest.axis;
    expect(min).toBeLessThanOrEqual(100 - table.marginPct);
    expect(max).toBeGreaterThanOrEqual(100 + table.marginPct);
    // read_only @ 8 is [48.1–234.5]: clipped at the limits
    expect([min, max]).toEqual([...AXIS_LIMITS]);
    expect(ticks).toContain(100);
    for (const r of forest.groups.flatMap((g) => g.rows))
      if (r.estimate !== null) expect(r.estimate).toBeGreaterThanOrEqual(min);
  });
  it("a narrow table gets a narrow axis", () => {
    const narrow = structuredClone(table);
    narrow.rows = [{ ...narrow.rows[0]!, cells: narrow.rows[0]!.cells.filter((c) => c.threads === 4) }];
    const f = forestOf(narrow);
    expect(f.axis.min).toBeGreaterThanOrEqual(90);
    expect(f.axis.max).toBeLessThanOrEqual(110);
  });
});

describe("forestLines (the TUI's drawing)", () => {
  it("draws a title per test, a line per cell and the axis, within the width", () => {
    for (const width of [60, 80, 120]) {
      const lines = forestLines(forest, width);
      expect(lines).toHaveLength(forestHeight(forest));
      for (const l of lines) expect(l.length).toBeLessThanOrEqual(width);
    }
    const lines = forestLines(forest, 100);
    expect(lines[0]).toBe("oltp_read_only");
    const ro4 = lines[2]!;
    expect(ro4).toMatch(/^ {4}4 /);
    expect(ro4).toMatch(/●/);
    expect(ro4.endsWith("102.0 [101.8–102.2] faster")).toBe(true);
    // [48.1–234.5] runs off both ends
    expect(lines[3]).toMatch(/<─+.*─+>/);
    expect(lines[5]!.endsWith("90.0 [87.5–92.5] slower")).toBe(true);
    expect(lines[6]!.endsWith(STATE_MARKS.failed)).toBe(true);
    expect(lines.at(-1)).toMatch(/50 +100 +150 +200/);
  });
  it("puts the line at 100 in the same column on every row", () => {
    const lines = forestLines(forest, 100)
      .slice(0, -1)
      .filter((l) => /^ {2}/.test(l));
    const cols = new Set(lines.map((l) => Math.max(l.indexOf("│"), l.indexOf("┼"))).filter((c) => c >= 0));
    expect(cols.size).toBe(1);
  });
});

describe("forestSvg and report.html", () => {
  it("draws every cell with its verdict", () => {
    const svg = forestSvg(forest);
    expect((svg.match(/<g class="forest-row"/g) ?? []).length).toBe(6);
    expect(svg).toContain('data-test="oltp_read_only" data-threads="4" data-verdict="faster-within"');
    expect(svg).toContain('data-threads="4" data-verdict="failed"');
    expect(svg).toContain("102.0 [101.8–102.2]</tspan>  faster</text>");
    expect((svg.match(/class="off-plot"/g) ?? []).length).toBe(2);
  });
  it("report.html draws the forest plot first among the details, after the answer", () => {
    const html = renderHtml(buildHtmlData(manifest, cells, buildRunReport(manifest, cells)), "");
    const forestAt = html.indexOf('<svg xmlns="http://www.w3.org/2000/svg" class="forest"');
    expect(forestAt).toBeGreaterThan(html.indexOf('<table class="answer">'));
    expect(forestAt).toBeGreaterThan(html.indexOf("<h2>Details</h2>"));
    expect(forestAt).toBeLessThan(html.indexOf('<table class="verdicts">'));
  });
  it("lists disturbed cells as a table, not as a sentence", () => {
    const disturbed = cells.map((c, i) =>
      c.phase === "measure" && c.status === "ok"
        ? {
            ...c,
            interference: {
              stealPct: 0,
              psiCpuSomePct: 1,
              outsiderCores: i % 3 === 0 ? 0.8 : 0.01,
              disturbed: i % 3 === 0,
              reasons: i % 3 === 0 ? ["outsiders used 0.80 core (threshold 0.5)"] : [],
            },
          }
        : c,
    );
    const report = buildRunReport(manifest, disturbed);
    expect(report.disturbedCells.length).toBeGreaterThan(1);
    const html = renderHtml(buildHtmlData(manifest, disturbed, report), "");
    expect(html).toContain('<table class="disturbed">');
    const tbl = html.slice(
      html.indexOf('<table class="disturbed">'),
      html.indexOf("</table>", html.indexOf('<table class="disturbed">')),
    );
    expect((tbl.match(/<td>outsiders used 0\.80 core \(threshold 0\.5\)<\/td>/g) ?? []).length).toBe(
      report.disturbedCells.length,
    );
    expect(html).not.toMatch(/<p>\d+ of \d+ measured cells were disturbed: /);
  });
});
