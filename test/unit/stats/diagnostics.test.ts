/** A run's diagnostics: the order effect, outlier pairs, and the false-verdict control over many cells. */
import { describe, expect, it } from "vitest";
import { type CellInput } from "../../../src/core/stats/estimate.ts";
import { orderEffect, outlierPairs } from "../../../src/core/stats/diagnostics.ts";
import { normalFrom, seededRandom } from "../../../src/core/base/random.ts";

const cell = (...ds: number[]): CellInput => ({ pairs: ds.map((d) => ({ d })) });

describe("order effect and outliers", () => {
  it("a +4% order effect in ABBA cells is estimated near 104", () => {
    const z = normalFrom(seededRandom(3));
    const cells: CellInput[] = Array.from({ length: 6 }, () => ({
      pairs: Array.from({ length: 8 }, (_, r) => {
        const order = (r % 4 === 0 || r % 4 === 3 ? 1 : -1) as 1 | -1;
        return { d: 0.04 * order + 0.05 * z(), order };
      }),
    }));
    const o = orderEffect(cells)!;
    expect(o.n).toBe(48);
    expect(o.low).toBeGreaterThan(101);
    expect(o.high).toBeLessThan(107);
    expect(orderEffect([cell(0.1, 0.2)])).toBeNull();
  });

  it("an outlier pair is flagged against the run's pooled robust scale", () => {
    const z = normalFrom(seededRandom(5));
    const cells: CellInput[] = Array.from({ length: 6 }, () => cell(...Array.from({ length: 4 }, () => 0.1 * z())));
    cells[2].pairs = [...cells[2].pairs.slice(0, 3), { d: 0.9 }];
    const out = outlierPairs(cells);
    expect(out[2]).toEqual([3]);
    expect(out.filter((x, i) => i !== 2).flat()).toEqual([]);
  });
});
