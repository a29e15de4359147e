/** The hyperfine-style sentences, the servers' names and the legend (src/core/report/answer.ts). */
import { describe, expect, it } from "vitest";
import {
  answerLegend,
  answerSentence,
  shortName,
  sideNamesOf,
  verdictWordsLegend,
  wrap,
} from "../../../src/core/report/answer.ts";
import { ratioTableFromSides } from "../../../src/core/stats/ratio.ts";
import type { RatioCell } from "../../../src/core/stats/ratio-model.ts";

const cell = (o: Partial<RatioCell>): RatioCell =>
  ({
    status: "ok",
    threads: 4,
    estimate: 121,
    low: 114,
    high: 128,
    verdict: "faster-beyond",
    fdr: "holds",
    ...o,
  }) as RatioCell;
const names = { numerator: "MariaDB 11.8", denominator: "MySQL 9.7" };

describe("sentences", () => {
  it("names the faster server first, with a factor above 1", () => {
    expect(answerSentence("oltp_point_select", cell({}), names, 5)).toBe(
      "MariaDB 11.8 ran oltp_point_select at 4 threads 1.21 [1.14–1.28] times as fast as MySQL 9.7.",
    );
    expect(
      answerSentence(
        "oltp_update_non_index",
        cell({ threads: 1, estimate: 80, low: 75, high: 85, verdict: "slower-beyond" }),
        names,
        5,
      ),
    ).toBe("MySQL 9.7 ran oltp_update_non_index at 1 thread 1.25 [1.18–1.33] times as fast as MariaDB 11.8.");
  });
  it("same within the margin; no sentence for an unclear cell", () => {
    expect(
      answerSentence("select", cell({ estimate: 101, low: 98, high: 104, verdict: "equivalent", fdr: null }), names, 5),
    ).toBe("MariaDB 11.8 and MySQL 9.7 ran select at 4 threads at the same speed within ±5% (1.01 [0.98–1.04]).");
    expect(answerSentence("select", cell({ verdict: "inconclusive", fdr: null }), names, 5)).toBeNull();
  });
  it("short names: the family as people write it and the major.minor version", () => {
    expect(shortName("MariaDB", "11.8.9-MariaDB-4")).toBe("MariaDB 11.8");
    expect(shortName("mariadb", "11.8.9-MariaDB-4 from Debian")).toBe("MariaDB 11.8");
    expect(shortName("MySQL", null)).toBe("MySQL");
  });
  it("names the sides as the title does; ids when the servers are not known or would read alike", () => {
    const ids = { numerator: "mariadb", denominator: "mysql" };
    expect(
      sideNamesOf(
        [
          { id: "mysql", family: "mysql", version: "9.7.4-2" },
          { id: "mariadb", family: "mariadb", version: "11.8.9-MariaDB-4" },
        ],
        ids,
      ),
    ).toEqual({ numerator: "MariaDB 11.8", denominator: "MySQL 9.7" });
    expect(sideNamesOf([{ id: "mariadb", version: "11.8.9" }], ids)).toEqual(ids);
    expect(
      sideNamesOf(
        [
          { id: "a", family: "mariadb", version: "11.8.9" },
          { id: "b", family: "mariadb", version: "11.8.2" },
        ],
        { numerator: "a", denominator: "b" },
        { numerator: "A", denominator: "B" },
      ),
    ).toEqual({ numerator: "a", denominator: "b" });
    expect(sideNamesOf([], ids, { numerator: "MariaDB", denominator: "MySQL" })).toEqual({
      numerator: "MariaDB",
      denominator: "MySQL",
    });
  });
  it("wraps at spaces, keeps short lines as they are, indents continuations", () => {
    expect(wrap("  a  b", 120)).toEqual(["  a  b"]);
    expect(wrap("aaa bbb ccc", 7)).toEqual(["aaa bbb", "  ccc"]);
    for (const l of wrap("word ".repeat(100).trim(), 50)) expect(l.length).toBeLessThanOrEqual(50);
  });
});

describe("the legend", () => {
  it("is at most three lines of words, and says what load-bound is only when a cell is", () => {
    const t = ratioTableFromSides(
      { id: "a", label: "MariaDB", records: [] },
      { id: "b", label: "MySQL", records: [] },
      ["t"],
      [1],
    );
    const legend = answerLegend(t);
    expect(legend).toHaveLength(3);
    expect(legend.join(" ")).not.toContain("load-bound");
    const loadBound = {
      ...t,
      rows: t.rows.map((r) => ({ ...r, cells: r.cells.map((c) => ({ ...c, loadBound: true })) })),
    };
    const withLb = answerLegend(loadBound);
    expect(withLb).toHaveLength(3);
    expect(withLb[2]).toContain("load-bound: sysbench set the pace");
    for (const margin of [5, 2.5, 12.5])
      for (const l of verdictWordsLegend({
        marginPct: margin,
        together: "also when all 128 cells of every pair are read together",
        loadBound: true,
      }))
        expect(l.length).toBeLessThanOrEqual(120);
  });
});
