/** The ladder: each server against the base, the change between two ladder runs, and the TUI's live rows. */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildRunReport } from "../../../src/core/report/model.ts";
import { buildRatioTable } from "../../../src/core/stats/ratio.ts";
import { buildLadder, compareLadders, isLadder, ladderFromTables, liveLadder } from "../../../src/core/stats/ladder.ts";
import { compareRuns } from "../../../src/core/stats/compare.ts";
import {
  comparisonJson,
  renderComparisonCsv,
  renderComparisonMarkdown,
  renderComparisonText,
} from "../../../src/core/report/compare.ts";
import { benjaminiHochberg } from "../../../src/core/stats/fdr.ts";
import { PAIRS, ladderRun } from "../../support/ladder-fixture.ts";

const GOLDEN = join(import.meta.dirname, "../../fixtures/results/golden");

describe("buildLadder: each server against the base, q over every pair × cell", () => {
  const { manifest, cells } = ladderRun("ladder");
  const l = buildLadder(manifest, cells, PAIRS)!;
  const cell = (i: number, test: string, th: number) =>
    l.blocks[i]!.rows.find((r) => r.test === test)!.cells.find((c) => c.threads === th)!;

  it("is a ladder only with more than one pair", () => {
    expect(isLadder(PAIRS)).toBe(true);
    expect(isLadder(PAIRS.slice(0, 1))).toBe(false);
    expect(buildLadder(manifest, cells, PAIRS.slice(0, 1))).toBeNull();
    expect(buildRunReport(manifest, cells).ladder).toBeNull();
  });

  it("one block per pair, with the base as every denominator", () => {
    expect(l.base).toBe("mysql");
    expect(l.blocks.map((b) => `${b.numerator}/${b.denominator}`)).toEqual(["mariadb/mysql", "mariadb-10/mysql"]);
    expect(l.tests).toEqual(["oltp_read_only", "oltp_point_select"]);
    expect(l.threads).toEqual([1, 4, 8]);
  });

  it("the first pair's estimates and intervals are those of the two-server table of the same pair", () => {
    const two = buildRatioTable(
      manifest,
      cells.filter((c) => c.server !== "mariadb-10"),
    )!;
    for (const r of two.rows)
      for (const c of r.cells) {
        const lc = cell(0, r.test, c.threads);
        expect([lc.estimate, lc.low, lc.high, lc.verdict, lc.ratio, lc.p]).toEqual([
          c.estimate,
          c.low,
          c.high,
          c.verdict,
          c.ratio,
          c.p,
        ]);
      }
  });

  it("the third server: slower at read_only@1, faster at point_select@1, failed where the base failed, missing where not measured", () => {
    expect(cell(1, "oltp_read_only", 1)).toMatchObject({ ratio: 95.5, direction: "slower", status: "ok" });
    expect(cell(1, "oltp_point_select", 1)).toMatchObject({ ratio: 120, direction: "faster" });
    expect(cell(1, "oltp_point_select", 4).status).toBe("failed");
    expect(cell(1, "oltp_point_select", 8).status).toBe("missing");
  });

  it("q is Benjamini–Hochberg over every pair × cell, not per pair", () => {
    const all = l.blocks.flatMap((b) => b.rows.flatMap((r) => r.cells));
    const qs = benjaminiHochberg(all.map((c) => c.p));
    all.forEach((c, i) => expect(c.q).toBe(qs[i] === null ? null : Number(qs[i]!.toFixed(6))));
    // With more p-values in the family, a q is never smaller than within its own pair.
    const own = buildRatioTable(manifest, cells, { numerator: "mariadb-10", denominator: "mysql" })!;
    for (const r of own.rows)
      for (const c of r.cells)
        if (c.q !== null) expect(cell(1, r.test, c.threads).q!).toBeGreaterThanOrEqual(c.q - 1e-9);
    expect(l.method.intervals).toBe(all.filter((c) => c.low !== null).length);
    expect(l.method.expectedFalse).toBeCloseTo(l.method.intervals * 0.05, 10);
  });

  it("a faster/slower reading that holds within one pair can fail over the ladder (the ? flag follows the joint q)", () => {
    // Synthetic: two tables whose p-values only survive BH when counted alone.
    const own = buildRatioTable(manifest, cells, { numerator: "mariadb-10", denominator: "mysql" })!;
    const j = ladderFromTables([own, own, own, own, own, own, own, own, own, own]);
    for (const c of j.blocks.flatMap((b) => b.rows.flatMap((r) => r.cells))) {
      if (c.direction === "faster" || c.direction === "slower") expect(c.fdr).toBe(c.q! <= 0.05 ? "holds" : "fails");
      else expect(c.fdr).toBeNull();
    }
  });
});

describe("compare of two ladder runs: per pair and cell, the change of its ratio", () => {
  const a = ladderRun("ladder-a");
  // NEW: mariadb-10 is 10% faster at read_only@1 (with some spread), the rest as in BASE.
  const b = ladderRun("ladder-b", (test, th, rep) =>
    test === "oltp_read_only" && th === 1 ? [1.1, 1.09, 1.11][rep - 1]! : 1,
  );
  const cmp = compareRuns(a, b, { pairs: PAIRS });

  it("one change block per pair; the changed cell moved, the rest did not", () => {
    const l = cmp.ladder!;
    expect(l.kind).toBe("change");
    expect(l.blocks.map((t) => `${t.numerator}/${t.denominator}`)).toEqual(["mariadb/mysql", "mariadb-10/mysql"]);
    const c = (i: number, test: string, th: number) =>
      l.blocks[i]!.rows.find((r) => r.test === test)!.cells.find((x) => x.threads === th)!;
    // The estimate is the geometric mean of the factors 1.1, 1.09, 1.11; the seed figure is median(NEW) / median(BASE)
    // of the pair ratios: 104.64 / 95.5.
    expect(c(1, "oltp_read_only", 1)).toMatchObject({ direction: "faster", ratio: 109.5707 });
    expect(c(1, "oltp_read_only", 1).estimate!).toBeCloseTo(100 * Math.cbrt(1.1 * 1.09 * 1.11), 3);
    expect(c(1, "oltp_read_only", 1).low!).toBeGreaterThan(100);
    // mariadb/mysql is the same in both runs: every change is exactly 100 with zero spread (no interval), or 100 inside.
    for (const r of l.blocks[0]!.rows)
      for (const x of r.cells) if (x.estimate !== null) expect(x.estimate).toBeCloseTo(100, 6);
    expect(c(1, "oltp_point_select", 4).status).toBe("failed");
    expect(c(1, "oltp_point_select", 8).status).toBe("missing");
  });
  it("renders in text, markdown, csv and json (snapshot read for sense)", async () => {
    const text = renderComparisonText(cmp);
    expect(text).toContain("Ladder: each pair's ratio in NEW / its ratio in BASE");
    expect(text).toContain("NEW / BASE of mariadb-10 / mysql");
    await expect(text).toMatchFileSnapshot(join(GOLDEN, "ladder-compare.txt"));
    expect(renderComparisonMarkdown(cmp)).toContain("## Ladder: each pair's ratio in NEW / its ratio in BASE");
    expect(
      renderComparisonCsv(cmp)
        .split("\n")
        .filter((x) => x.startsWith("mariadb-10/mysql,")).length,
    ).toBe(6);
    expect((comparisonJson(cmp) as { ladder?: unknown }).ladder).toBeDefined();
  });
  it("without pairs the comparison is as before (no ladder)", () => {
    const plain = compareRuns(a, b);
    expect(plain.ladder).toBeNull();
    expect(renderComparisonText(plain)).not.toContain("Ladder:");
  });
  it("compareLadders needs two shared pairs", () => {
    const la = buildLadder(a.manifest, a.cells, PAIRS)!;
    const lb = buildLadder(b.manifest, b.cells, [PAIRS[0]!, { numerator: "mariadb", denominator: "mariadb-10" }])!;
    expect(compareLadders(la, lb)).toBeNull();
  });
});

describe("liveLadder: the TUI's rows, computed in core", () => {
  const { cells } = ladderRun("ladder");
  const tests = ["oltp_read_only", "oltp_point_select"];
  it("one block per pair with the seed figure and the report's words", () => {
    const live = liveLadder(cells, PAIRS, tests, [1, 4, 8]);
    expect(live.map((b) => b.numerator)).toEqual(["mariadb", "mariadb-10"]);
    expect(live[1]!.rows[0]!.cells[0]).toMatchObject({ threads: 1, ratio: 95.5, status: "ok" });
    expect(live[1]!.rows[0]!.cells[0]!.word).toBe("slower");
    expect(liveLadder(cells, PAIRS.slice(0, 1), tests, [1, 4, 8])).toEqual([]);
  });
});
