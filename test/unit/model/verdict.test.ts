import { describe, expect, it } from "vitest";
import { estimateRun } from "../../../src/core/stats/estimate.ts";
import { ratioTableFromSides } from "../../../src/core/stats/ratio.ts";
import type { CellRecord } from "../../../src/core/model/results.ts";
import {
  VERDICTS,
  cellVerdict,
  directionOf,
  directionOfKind,
  equivalenceOf,
  equivalenceOfKind,
  fdrOf,
  kindOf,
  verdictOf,
} from "../../../src/core/model/verdict.ts";
import { verdictSentence, verdictWordOf } from "../../../src/core/model/vocabulary.ts";
import { cellRecord, sysbench } from "../../support/record.ts";

describe("direction and equivalence are two readings, not one exclusive verdict", () => {
  it.each([
    // low, high, direction, equivalence (±5%), kind, word (with the reading holding over the table)
    [100.4, 102.0, "faster", "within", "faster-within", "faster"], // faster AND within the margin
    [101, 110, "faster", "undetermined", "faster", "faster"],
    [105, 110, "faster", "undetermined", "faster", "faster"], // touches 105: not wholly beyond it
    [105.01, 110, "faster", "beyond", "faster-beyond", "faster"],
    [90, 99, "slower", "undetermined", "slower", "slower"],
    [96, 99.9, "slower", "within", "slower-within", "slower"],
    [80, 94.9, "slower", "beyond", "slower-beyond", "slower"],
    [96, 104, "none", "within", "equivalent", "same"],
    [95, 105, "none", "within", "equivalent", "same"], // the band's edges are inside it (TOST)
    [94.9, 103, "none", "undetermined", "inconclusive", "unclear"],
    [70.6, 133.7, "none", "undetermined", "inconclusive", "unclear"], // a wide interval holding 100 is not "same"
    [null, null, "unknown", "unknown", "unknown", "unclear"],
  ] as const)("[%s, %s] -> %s, %s: %s %s", (low, high, direction, equivalence, kind, word) => {
    expect(directionOf(low, high)).toBe(direction);
    expect(equivalenceOf(low, high, 5)).toBe(equivalence);
    expect(verdictOf(low, high, 5)).toBe(kind);
    expect(
      verdictWordOf({ verdict: kind, fdr: direction === "faster" || direction === "slower" ? "holds" : null }),
    ).toBe(word);
  });

  it("the margin is a parameter", () => {
    expect(verdictOf(92, 107, 10)).toBe("equivalent");
    expect(verdictOf(92, 107, 5)).toBe("inconclusive");
    expect(verdictOf(100.4, 102, 1)).toBe("faster"); // reaches past 101
    expect(verdictOf(100.4, 102, 0.3)).toBe("faster-beyond");
  });

  it("every kind splits back into the direction and equivalence it was made of", () => {
    for (const v of VERDICTS) expect(kindOf(directionOfKind(v), equivalenceOfKind(v))).toBe(v);
    expect(kindOf("none", "beyond")).toBe("inconclusive"); // impossible from an interval; never "equivalent"
  });
});

describe("the Benjamini–Hochberg reading per cell", () => {
  it("only a faster/slower direction has one: it holds when q ≤ 0.05", () => {
    expect(fdrOf("faster", 0.05)).toBe("holds");
    expect(fdrOf("slower", 0.0501)).toBe("fails");
    expect(fdrOf("faster", null)).toBe("fails");
    expect(fdrOf("none", 0.001)).toBeNull();
    expect(fdrOf("unknown", null)).toBeNull();
    expect(cellVerdict({ low: 100.4, high: 102, q: 0.2 }, 5)).toEqual({
      verdict: "faster-within",
      direction: "faster",
      equivalence: "within",
      fdr: "fails",
    });
    // A faster reading that does not hold over the table is no verdict yet.
    expect(verdictWordOf({ verdict: "faster-within", fdr: "fails" })).toBe("unclear");
  });

  it("the p-value is the interval's own paired t: closed form for t with 2 df", () => {
    // One cell, nothing to pool: d = ln 1.1, ln 1.2, ln 1.0; t = m / (s / √3) with 2 df.
    // For 2 df the t CDF is closed: P(|T| > t) = 1 − t / √(2 + t²).
    const d = [Math.log(1.1), Math.log(1.2), Math.log(1.0)];
    const m = d.reduce((a, x) => a + x, 0) / 3;
    const s = Math.sqrt(d.reduce((a, x) => a + (x - m) ** 2, 0) / 2);
    const t = m / (s / Math.sqrt(3));
    const e = estimateRun([{ pairs: d.map((x) => ({ d: x })) }]).cells[0];
    expect(e.df).toBe(2);
    expect(e.p!).toBeCloseTo(1 - t / Math.sqrt(2 + t * t), 10);
  });

  const rec = (server: string, test: string, repeat: number, qps: number): CellRecord =>
    cellRecord({
      server,
      test,
      repeat,
      metrics: sysbench({ qps, tps: qps / 10 }),
      startedAt: `2026-12-01T00:00:${String(repeat * 10).padStart(2, "0")}.000Z`,
    });
  // Six cells of 3 pairs: one clearly faster (a), one faster at 95% on its own (b), four alike.
  const ratios: Record<string, number[]> = {
    a: [1.2, 1.22, 1.18],
    b: [1.04, 1.06, 1.02],
    c: [1.02, 0.97, 1.0],
    d: [0.99, 1.03, 0.98],
    e: [1.01, 0.96, 1.02],
    f: [0.97, 1.02, 1.01],
  };
  const num: CellRecord[] = [];
  const den: CellRecord[] = [];
  for (const [test, rs] of Object.entries(ratios))
    rs.forEach((r, i) => {
      num.push(rec("x", test, i + 1, 1000 * r));
      den.push(rec("y", test, i + 1, 1000));
    });
  const table = ratioTableFromSides(
    { id: "x", label: "X", records: num },
    { id: "y", label: "Y", records: den },
    Object.keys(ratios),
    [1],
  );
  const cells = table.rows.map((r) => r.cells[0]);

  it("each cell's q is Benjamini–Hochberg over the table's p-values (closed form: min over j ≥ rank of p·m/j)", () => {
    const ps = cells.map((c) => c.p!);
    const order = ps.map((p, i) => ({ p, i })).sort((x, y) => x.p - y.p);
    const m = ps.length;
    const want: number[] = [];
    order.forEach(({ i }, k) => (want[i] = Math.min(1, ...order.slice(k).map((o, j) => (o.p * m) / (k + j + 1)))));
    cells.forEach((c, i) => expect(c.q!).toBeCloseTo(want[i], 5));
  });

  it("every cell: the direction agrees with p < 0.05, the reading with q, the word with both", () => {
    for (const c of cells) {
      expect(c.direction === "faster" || c.direction === "slower").toBe(c.p! < 0.05);
      expect(c.fdr).toBe(c.direction === "none" ? null : c.q! <= 0.05 ? "holds" : "fails");
      expect(["faster", "slower"].includes(verdictWordOf(c)!)).toBe(c.fdr === "holds");
    }
    expect(table.method.verdicts).toBe(
      cells.filter((c) => c.direction === "faster" || c.direction === "slower").length,
    );
    expect(table.method.verdictsAtFdr).toBe(cells.filter((c) => c.fdr === "holds").length);
  });

  it("a faster cell that does not survive the table's six tests is shown so, per cell", () => {
    // With the moderated estimator (the six cells' spreads are alike: 12 df): b reads 104.0 [100.3–107.8],
    // p 0.036, q = 0.036 · 6 / 2 = 0.108. This case depends on the estimator's pooling; the invariants above do not.
    const [a, b] = cells;
    expect(a).toMatchObject({ verdict: "faster-beyond", fdr: "holds" });
    expect(b).toMatchObject({ verdict: "faster", direction: "faster", equivalence: "undetermined", fdr: "fails" });
    expect(verdictWordOf(b)).toBe("unclear");
    expect(verdictSentence(b, table.marginPct)).toMatch(
      /^faster \(p 0\.0\d+, BH q 0\.\d+: not at 5% FDR\); can't tell if within ±5%$/,
    );
  });
});
