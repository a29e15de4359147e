/** The cost-per-query comparison in words: a cell's factor and values, the text section, what moved, the JSON. */
import { describe, expect, it } from "vitest";
import {
  costExplanation,
  costLines,
  costTableJson,
  costValueText,
  factorText,
} from "../../../src/core/report/costs.ts";
import { COST_FIGURES, type CostCell, type CostTable } from "../../../src/core/stats/costs.ts";

const cost = (over: Partial<CostCell>): CostCell => ({
  test: "oltp_point_select",
  threads: 1,
  figure: "serverCpuUs",
  status: "ok",
  estimate: 80,
  low: 68,
  high: 93,
  n: 3,
  df: 2,
  p: 0.01,
  moved: "lower",
  numeratorMedian: 41,
  denominatorMedian: 52,
  numeratorValues: [41],
  denominatorValues: [52],
  ...over,
});
const na = (figure: CostCell["figure"], reason: string) =>
  cost({ figure, status: "not-available", estimate: null, low: null, high: null, moved: "unknown", reason });
const table = (cells: CostTable["cells"], over: Partial<CostTable> = {}): CostTable => ({
  numerator: "mariadb",
  denominator: "mysql",
  numeratorLabel: "MariaDB",
  denominatorLabel: "MySQL",
  pairing: "paired",
  confidence: 0.95,
  cells,
  recorded: true,
  hardware: "Hardware counters: not recorded.",
  ...over,
});

describe("factorText and costValueText", () => {
  it("a ratio in % as a factor with its interval; n/a without an estimate", () => {
    expect(factorText({ estimate: 106, low: 98, high: 115 })).toBe("1.06× [0.98–1.15]");
    expect(factorText({ estimate: 106, low: null, high: null })).toBe("1.06×");
    expect(factorText({ estimate: null, low: null, high: null })).toBe("n/a");
  });
  it("a value with the figure's digits and unit", () => {
    expect(costValueText("serverCpuUs", 41)).toBe("41.0 µs");
    expect(costValueText("serverCsVoluntary", 2.1)).toBe("2.100");
    expect(costValueText("serverCpuUs", null)).toBe("n/a");
  });
});

describe("costLines", () => {
  it("a head, one line per cell with each figure and the reasons of those not available, the hardware line", () => {
    const lines = costLines(
      table([
        { test: "oltp_point_select", threads: 1, figures: [cost({}), na("fsyncs", "mysql: no fsyncs reading")] },
        {
          test: "oltp_read_only",
          threads: 4,
          figures: [
            na("serverCpuUs", "mariadb: no cost readings recorded"),
            na("fsyncs", "mariadb: no cost readings recorded"),
          ],
        },
      ]),
    );
    expect(lines).toEqual([
      "Cost per query, MariaDB / MySQL (paired repeats, 95% interval; above 1×: MariaDB costs more per query; medians per side):",
      "- oltp_point_select at 1 thread: server CPU 0.80× [0.68–0.93] (mariadb 41.0 µs, mysql 52.0 µs); fsyncs not available (mysql: no fsyncs reading)",
      "- oltp_read_only at 4 threads: not available (mariadb: no cost readings recorded)",
      "Hardware counters: not recorded.",
    ]);
  });
  it("a compare of one server names the sides NEW and BASE, unpaired", () => {
    const lines = costLines(
      table([{ test: "oltp_point_select", threads: 1, figures: [cost({})] }], {
        numerator: "mariadb",
        denominator: "mariadb",
        numeratorLabel: "NEW mariadb",
        denominatorLabel: "BASE mariadb",
        pairing: "unpaired",
      }),
    );
    expect(lines[0]).toMatch(/^Cost per query, NEW mariadb \/ BASE mariadb \(unpaired, 95% interval;/);
    expect(lines[1]).toContain("(NEW 41.0 µs, BASE 52.0 µs)");
  });
  it("nothing without a table or without readings", () => {
    expect(costLines(null)).toEqual([]);
    expect(costLines(table([], { recorded: false }))).toEqual([]);
  });
});

describe("costExplanation", () => {
  it("what rose, fell, did not move, and had no interval", () => {
    expect(
      costExplanation({
        figures: [
          cost({ estimate: 160, low: 140, high: 180, moved: "higher" }),
          cost({ figure: "clientCpuUs", moved: "lower" }),
          cost({ figure: "fsyncs", estimate: 100, low: 97, high: 103, moved: "none" }),
          cost({ figure: "serverCsVoluntary", low: null, high: null, moved: "unknown", reason: "too few pairs" }),
        ],
      }),
    ).toBe(
      "server CPU per query rose 1.60× [1.40–1.80]; client CPU per query fell 0.80× [0.68–0.93]; fsyncs per query did not move (1.00× [0.97–1.03]); server voluntary cs per query 0.80×, no interval (too few pairs)",
    );
  });
  it("a cell without any figure says why once", () => {
    expect(costExplanation({ figures: [na("serverCpuUs", "no readings"), na("fsyncs", "no readings")] })).toBe(
      "no cost per query (no readings)",
    );
  });
});

describe("costTableJson", () => {
  it("the table with every figure's key, label, unit and source", () => {
    const j = costTableJson(table([{ test: "oltp_point_select", threads: 1, figures: [cost({})] }])) as {
      figures: Array<{ key: string; unit: string }>;
      cells: unknown[];
      pairing: string;
    };
    expect(j.figures.map((f) => f.key)).toEqual(COST_FIGURES.map((f) => f.key));
    expect(j.figures[0]).toMatchObject({ key: "serverCpuUs", label: "server CPU", unit: "µs" });
    expect(j.cells).toHaveLength(1);
    expect(j.pairing).toBe("paired");
  });
});
