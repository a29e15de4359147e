/**
 * The first screen a DBA reads, on the quick.yaml fixture (test/fixtures/results/quick: 3 tests × 2 thread counts,
 * adaptive repeats): at most 40 lines, a legend of at most 3, no line over 120 characters anywhere in the report,
 * and every verdict a word, in the text and Markdown reports alike.
 */
import { describe, expect, it } from "vitest";
import { buildRunReport } from "../../../src/core/report/model.ts";
import { renderText } from "../../../src/core/report/text.ts";
import { renderMarkdown } from "../../../src/core/report/markdown.ts";
import {
  DETAILS_RULE,
  answerBlock,
  disturbanceLine,
  firstScreen,
  sideNames,
  titleLine,
} from "../../../src/core/report/first-screen.ts";
import { load } from "../../support/results-fixture.ts";

const { manifest, cells } = load("quick");
// history: [] stands for a host with no earlier runs (the report then says so once).
const report = buildRunReport(manifest, cells, { history: [] });
const WORDS = ["faster", "slower", "same within ±5%", "unclear"];
/** The verdict marks the reports used to print; none may be left in a verdict column or a legend. */
const MARKS = /(^|\s)(\+\+|\+=|-=|--|\+|-|=|~|\?|x\?|!)(\s|$)/;

/** The answer table's rows of a text: the lines that start with a test name and a thread count. */
const answerRows = (lines: string[]) => lines.filter((l) => /^ {2}oltp_\w+ +\d+ /.test(l));

describe("the first screen of a quick.yaml run", () => {
  const text = renderText(report);
  const lines = text.trimEnd().split("\n");

  it("text: at most 40 lines, none over 120 characters, in the order title, seeds' table, answer", () => {
    expect(lines.length).toBeLessThanOrEqual(40);
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(120);
    expect(lines[0]).toBe(titleLine(report));
    expect(lines[0]).toMatch(
      /^MariaDB 11\.8\.9 vs MySQL 9\.7\.4: quick, on .*2 CPUs, 2025-01-01 10:00 UTC, took 9m 12s$/,
    );
    expect(lines.indexOf("(MariaDB q/s / MySQL q/s * 100)")).toBeLessThan(
      lines.findIndex((l) => l.includes("verdict")),
    );
  });

  it("every verdict is a word, and the known answers read as they should", () => {
    const rows = answerRows(lines);
    expect(rows).toHaveLength(6);
    for (const r of rows) expect(WORDS.some((w) => r.endsWith(w))).toBe(true);
    for (const r of rows) expect(r.replace(/\d+\.\d+–\d+\.\d+/, "")).not.toMatch(MARKS);
    expect(rows[0]).toMatch(/oltp_read_only +1 .* same within ±5%$/);
    expect(rows[2]).toMatch(/oltp_point_select +1 .* faster$/);
    expect(rows[4]).toMatch(/oltp_update_non_index +1 .* slower$/);
    expect(rows[5]).toMatch(/oltp_update_non_index +4 .* unclear$/);
  });

  it("one sentence per cell with a verdict, in the way hyperfine writes its summary", () => {
    const s = firstScreen(report, null);
    expect(s.sentences).toHaveLength(5); // the unclear cell has none
    expect(s.sentences).toContain(
      "MariaDB 11.8 ran oltp_point_select at 1 thread 1.20 [1.18–1.23] times as fast as MySQL 9.7.",
    );
    // A slower cell names the faster server first, so the factor reads above 1.
    expect(s.sentences.find((x) => x.includes("oltp_update_non_index"))).toMatch(
      /^MySQL 9\.7 ran oltp_update_non_index at 1 thread 1\.\d\d \[1\.\d\d–1\.\d\d\] times as fast as MariaDB 11\.8\.$/,
    );
    expect(s.sentences[0]).toMatch(
      /^MariaDB 11\.8 and MySQL 9\.7 ran oltp_read_only at 1 thread at the same speed within ±5%/,
    );
    for (const x of s.sentences) expect(text).toContain(x);
  });

  it("the legend is at most 3 lines, in words", () => {
    const s = firstScreen(report, null);
    expect(s.legend.length).toBeLessThanOrEqual(3);
    for (const l of s.legend) expect(lines).toContain(l);
    expect(s.legend.join(" ")).not.toMatch(/\+\+|\+=|-=|x\?/);
  });

  it("says once that no level between runs has been measured here; the details come after a rule or on request", () => {
    expect(text.match(/No level between runs has been measured on this host yet/g)).toHaveLength(1);
    expect(text).not.toContain("Config identity");
    expect(text).not.toContain(DETAILS_RULE);
    const full = renderText(report, { details: true });
    expect(full.startsWith(lines.slice(0, -1).join("\n"))).toBe(true);
    expect(full).toContain(DETAILS_RULE);
    expect(full).toContain("Config identity");
  });

  it("no line of the whole report is over 120 characters, details included", () => {
    for (const l of renderText(report, { details: true }).split("\n")) expect(l.length).toBeLessThanOrEqual(120);
  });

  it("the text report and the answer block say the same words", () => {
    for (const l of answerBlock(report.table!, sideNames(report, report.table!))) expect(lines).toContain(l);
  });

  it("markdown: the same first screen before the rule, within 40 lines, with the same words", () => {
    const md = renderMarkdown(report);
    const first = md.slice(0, md.indexOf("\n---\n")).trimEnd().split("\n");
    expect(first.length).toBeLessThanOrEqual(40);
    for (const l of md.split("\n")) if (!l.startsWith("|")) expect(l.length).toBeLessThanOrEqual(120);
    const s = firstScreen(report, null);
    for (const x of [...s.sentences, ...s.legend]) expect(md).toContain(x);
    expect(first.filter((l) => /^\| oltp_\w+ \| \d+ \|/.test(l)).map((l) => l.split("|").at(-2)!.trim())).toEqual([
      "same within ±5%",
      "faster",
      "faster",
      "faster",
      "slower",
      "unclear",
    ]);
  });
});

describe("outside work on the first screen", () => {
  const base = buildRunReport(manifest, cells, { history: [] });
  const withDisturbance = (disturbed: number, counted = false, blank = 0, bySpeed = 0) => {
    const table = structuredClone(base.table!);
    const flat = table.rows.flatMap((r) => r.cells);
    for (const c of flat.slice(0, blank)) Object.assign(c, { low: null, high: null });
    return { ...base, table, disturbance: { ...base.disturbance, measured: 48, disturbed, bySpeed, counted } };
  };

  it("says nothing when no cell was disturbed", () => {
    expect(disturbanceLine(withDisturbance(0))).toBeNull();
  });

  it("names the count, that the pairs were left out, and the cells it left without an interval", () => {
    expect(disturbanceLine(withDisturbance(3))).toBe(
      "Outside work disturbed 3 of 48 measured cells; their pairs were left out of the estimates.",
    );
    const r = withDisturbance(30, false, 5);
    const line = disturbanceLine(r)!;
    expect(line).toContain("5 cells have too few clean pairs for an interval");
    const text = renderText(r);
    expect(text.slice(0, text.indexOf(DETAILS_RULE) > 0 ? text.indexOf(DETAILS_RULE) : undefined)).toContain(
      "Outside work disturbed 30 of 48 measured cells",
    );
    for (const l of text.split("\n")) expect(l.length).toBeLessThanOrEqual(120);
    expect(renderMarkdown(r)).toContain("Outside work disturbed 30 of 48 measured cells");
  });

  it("names a change in CPU speed when it disturbed some or all of the cells", () => {
    expect(disturbanceLine(withDisturbance(3, false, 0, 3))).toBe(
      "A change in CPU speed disturbed 3 of 48 measured cells; their pairs were left out of the estimates.",
    );
    expect(disturbanceLine(withDisturbance(5, false, 0, 2))).toMatch(
      /^Outside work or a change in CPU speed disturbed 5 of 48 measured cells;/,
    );
  });

  it("a run that counted disturbed pairs says so", () => {
    expect(disturbanceLine(withDisturbance(2, true))).toContain("their pairs were counted (--no-rerun-disturbed)");
  });
});
