/** The CSV report on the repeats fixture: one line per cell, empty fields for failed and missing cells. */
import { describe, expect, it } from "vitest";
import { CSV_HEADER, renderCsv } from "../../../src/core/report/csv.ts";
import { LATENCY_CSV_HEADER } from "../../../src/core/report/latency.ts";
import { buildRunReport } from "../../../src/core/report/model.ts";
import { load } from "../../support/results-fixture.ts";

describe("renderCsv", () => {
  const { manifest, cells } = load("repeats");
  const report = buildRunReport(manifest, cells);

  it("csv: one line per cell, empty fields for failed/missing", () => {
    const lines = renderCsv(report).trim().split("\n");
    // The table's columns, unchanged, then the latency percentiles' and NOPM's (src/core/report/latency.ts)
    const table = (l: string) => l.split(",").slice(0, CSV_HEADER.length).join(",");
    expect(table(lines[0])).toBe(
      "test,threads,metric,numerator,denominator,status,estimate,low,high,verdict,n,ratio,cv_numerator_pct,cv_denominator_pct,numerator_median,denominator_median,failed_repeats,instances,df,p,q,unstable,direction,equivalence,fdr",
    );
    expect(lines[0]).toBe([...CSV_HEADER, ...LATENCY_CSV_HEADER].join(","));
    expect(lines).toHaveLength(1 + 6);
    for (const l of lines) expect(l.split(",")).toHaveLength(CSV_HEADER.length + LATENCY_CSV_HEADER.length);
    expect(table(lines[1])).toBe(
      "oltp_read_only,1,qps,mariadb,mysql,ok,109.6961,87.4599,137.5859,inconclusive,3,110,9.091,0,1100,1000,0,1,2,0.220872,0.294495,,none,undetermined,",
    );
    expect(table(lines[2])).toMatch(/^oltp_read_only,4,.*,faster-within,.*,faster,within,holds$/);
    expect(table(lines[5])).toBe(
      "oltp_point_select,4,qps,mariadb,mysql,failed,,,,unknown,0,,,,2000,,3,1,,,,,unknown,unknown,",
    );
    // p95 of oltp_read_only at 4 threads: each side's median (ms), the plain latency ratio, its verdict
    const p95 = lines[2].split(",").slice(CSV_HEADER.length + LATENCY_CSV_HEADER.indexOf("p95_numerator_ms"));
    // the geometric mean of 117.65/120, 116.5/118.81 and 118.81/121.21
    expect(p95.slice(0, 3)).toEqual(["117.65", "120", "0.9804"]);
  });
});
