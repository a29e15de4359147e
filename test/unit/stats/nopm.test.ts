/** The NOPM tables: the engine's ratio table of `nopm`, cut to the TPC-C-like tests, q over the NOPM cells. */
import { describe, expect, it } from "vitest";
import { nopmTables, nopmTests } from "../../../src/core/stats/nopm.ts";
import { ratioTableFromSides } from "../../../src/core/stats/ratio.ts";
import { benjaminiHochberg } from "../../../src/core/stats/fdr.ts";
import type { CellRecord } from "../../../src/core/model/results.ts";
import { cellRecord, sysbench } from "../../support/record.ts";

function records(): CellRecord[] {
  const out: CellRecord[] = [];
  for (let r = 1; r <= 4; r++)
    for (const [server, nopm] of [
      ["a", 1100 + 10 * r],
      ["b", 1000 + 5 * (r % 2)],
      ["c", 990 + 7 * r],
    ] as const) {
      out.push(cellRecord({ server, repeat: r, test: "tpcc_like", metrics: sysbench({ qps: 9 }), tpcc: { nopm } }));
      out.push(cellRecord({ server, repeat: r, test: "oltp_read_only", metrics: sysbench({ qps: 9 + r }) }));
    }
  return out;
}

const table = (rs: CellRecord[], num: string, den: string) =>
  ratioTableFromSides(
    { id: num, label: num, records: rs.filter((r) => r.server === num) },
    { id: den, label: den, records: rs.filter((r) => r.server === den) },
    ["tpcc_like", "oltp_read_only"],
    [1],
    { metric: "nopm", pairing: "paired" },
  );

describe("nopmTables", () => {
  const rs = records();
  it("keeps the TPC-C-like tests only; NOPM reads like q/s (higher is better)", () => {
    expect([...nopmTests(rs)]).toEqual(["tpcc_like"]);
    const [t] = nopmTables(() => [table(rs, "a", "b")], rs);
    expect(t!.rows.map((r) => r.test)).toEqual(["tpcc_like"]);
    const c = t!.rows[0]!.cells[0]!;
    expect(c.estimate!).toBeGreaterThan(110);
    expect(c.direction).toBe("faster");
    expect(t!.inverted).toBe(false);
  });

  it("several pairs: q over every NOPM cell of them", () => {
    const ts = nopmTables(() => [table(rs, "a", "b"), table(rs, "c", "b")], rs);
    const cells = ts.map((t) => t.rows[0]!.cells[0]!);
    const qs = benjaminiHochberg(cells.map((c) => c.p));
    cells.forEach((c, i) => expect(c.q).toBeCloseTo(qs[i]!, 6));
  });

  it("empty when no record has a NOPM figure (and the tables are not built)", () => {
    const plain = rs.filter((r) => r.test !== "tpcc_like");
    expect(nopmTables(() => [table(plain, "a", "b")], plain)).toEqual([]);
    expect(
      nopmTables(() => {
        throw new Error("built");
      }, plain),
    ).toEqual([]);
  });
});
