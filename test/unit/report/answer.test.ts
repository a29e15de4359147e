/** The verdict words and the hyperfine-style sentences (src/core/report/answer.ts). */
import { describe, expect, it } from "vitest";
import {
  answerSentence,
  cellVerdictText,
  shortName,
  verdictLabel,
  verdictWordOf,
  wrap,
} from "../../../src/core/report/answer.ts";
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

describe("verdict words", () => {
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
  it("short names: the family and the major.minor version", () => {
    expect(shortName("MariaDB", "11.8.9-MariaDB-4")).toBe("MariaDB 11.8");
    expect(shortName("MySQL", null)).toBe("MySQL");
  });
  it("wraps at spaces, keeps short lines as they are, indents continuations", () => {
    expect(wrap("  a  b", 120)).toEqual(["  a  b"]);
    expect(wrap("aaa bbb ccc", 7)).toEqual(["aaa bbb", "  ccc"]);
    for (const l of wrap("word ".repeat(100).trim(), 50)) expect(l.length).toBeLessThanOrEqual(50);
  });
});
