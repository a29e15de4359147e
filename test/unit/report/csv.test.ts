/** The CSV report on the repeats fixture: one line per cell, empty fields for failed and missing cells. */
import { describe, expect, it } from "vitest";
import { renderCsv } from "../../../src/core/report/csv.ts";
import { buildRunReport } from "../../../src/core/report/model.ts";
import { load } from "../../support/results-fixture.ts";

describe("renderCsv", () => {
  const { manifest, cells } = load("repeats");
  const report = buildRunReport(manifest, cells);

  it("csv: one line per cell, empty fields for failed/missing", () => {
    const lines = renderCsv(report).trim().split("\n");
    expect(lines[0]).toBe(
      "test,threads,metric,numerator,denominator,status,estimate,low,high,verdict,n,ratio,cv_numerator_pct,cv_denominator_pct,numerator_median,denominator_median,failed_repeats,instances,df,p,q,unstable,direction,equivalence,fdr",
    );
    expect(lines).toHaveLength(1 + 6);
    expect(lines[1]).toBe(
      "oltp_read_only,1,qps,mariadb,mysql,ok,109.6961,87.4599,137.5859,inconclusive,3,110,9.091,0,1100,1000,0,1,2,0.220872,0.294495,,none,undetermined,",
    );
    expect(lines[2]).toMatch(/^oltp_read_only,4,.*,faster-within,.*,faster,within,holds$/);
    expect(lines[5]).toBe(
      "oltp_point_select,4,qps,mariadb,mysql,failed,,,,unknown,0,,,,2000,,3,1,,,,,unknown,unknown,",
    );
  });
});
