/**
 * The ladder in every report format: three servers, two of them against the base, built by hand from the `repeats`
 * fixture (mariadb and mysql as recorded there, plus a third server `mariadb-10` with the q/s below). Every format
 * is checked against a snapshot file generated once and read for sense (test/fixtures/results/golden/ladder.*).
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildRunReport } from "../../../src/core/report/model.ts";
import { renderText } from "../../../src/core/report/text.ts";
import { renderMarkdown } from "../../../src/core/report/markdown.ts";
import { renderCsv, CSV_HEADER } from "../../../src/core/report/csv.ts";
import { LATENCY_CSV_HEADER } from "../../../src/core/report/latency.ts";
import { reportJson } from "../../../src/core/report/json.ts";

import { PAIRS, ladderRun } from "../../support/ladder-fixture.ts";

const GOLDEN = join(import.meta.dirname, "../../fixtures/results/golden");

describe("ladder in every report format (snapshots read for sense)", () => {
  const { manifest, cells } = ladderRun("ladder");
  const report = buildRunReport(manifest, cells, { pairs: PAIRS });

  it("text", async () => {
    const text = renderText(report);
    expect(text.split("\n")[0]).toMatch(/^MariaDB [\d.]+ vs MySQL [\d.]+ vs MariaDB [\d.]+: repeats, on /);
    expect(text).toContain("mariadb-10 / mysql * 100: median / median over repeats, as in the seed tables");
    expect(text).toContain("(Benjamini–Hochberg over every pair × cell)");
    await expect(text).toMatchFileSnapshot(join(GOLDEN, "ladder.txt"));
  });
  it("markdown", async () => {
    const md = renderMarkdown(report);
    expect(md).toContain("| sysbench test | threads | mariadb / mysql | mariadb-10 / mysql |");
    await expect(md).toMatchFileSnapshot(join(GOLDEN, "ladder.md"));
  });
  it("csv: the two-server columns, one line per pair × cell", async () => {
    const csv = renderCsv(report);
    const lines = csv.trimEnd().split("\n");
    expect(lines[0]).toBe([...CSV_HEADER, ...LATENCY_CSV_HEADER].join(","));
    expect(lines.length).toBe(1 + 2 * 2 * 3);
    expect(lines.filter((x) => x.includes(",mariadb-10,mysql,")).length).toBe(6);
    await expect(csv).toMatchFileSnapshot(join(GOLDEN, "ladder.csv"));
  });
  it("json: one block per pair", () => {
    const j = reportJson(report) as {
      ladder: { base: string; pairs: Array<{ numerator: string; denominator: string }> };
    };
    expect(j.ladder.base).toBe("mysql");
    expect(j.ladder.pairs.map((p) => p.numerator)).toEqual(["mariadb", "mariadb-10"]);
  });
  it("a run whose compare names only a base has its ladder, the first block as its primary table, and no 'only one server' note", () => {
    const m = structuredClone(manifest);
    (m.scenario as { compare?: unknown }).compare = { base: "mysql" };
    const r = buildRunReport(m, cells, { pairs: PAIRS });
    // The primary table is the ladder's first block (the JSON's top level keeps the two-server shape).
    expect(r.table).toBe(r.ladder!.blocks[0]);
    expect(r.notes.some((n) => n.startsWith("Only one server"))).toBe(false);
    expect((reportJson(r) as { ladder?: { pairs: unknown[] } }).ladder?.pairs.length).toBe(2);
    expect(renderText(r)).toContain("mariadb-10 / mysql * 100: median / median");
    expect(renderMarkdown(r)).toContain("| sysbench test | threads | mariadb / mysql | mariadb-10 / mysql |");
    expect(renderCsv(r).trimEnd().split("\n").length).toBe(13);
  });
  it("with one pair the reports are the two-server ones, byte for byte", () => {
    const two = buildRunReport(manifest, cells, { pairs: PAIRS.slice(0, 1) });
    const none = buildRunReport(manifest, cells);
    expect(renderText(two)).toBe(renderText(none));
    expect(renderMarkdown(two)).toBe(renderMarkdown(none));
    expect(renderCsv(two)).toBe(renderCsv(none));
    expect(JSON.stringify(reportJson(two))).toBe(JSON.stringify(reportJson(none)));
  });
});
