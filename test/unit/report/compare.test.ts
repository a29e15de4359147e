/** The comparison's words: text (golden), csv and json, and the notes on how many runs each side has and on a forced compare. */
import { describe, expect, it } from "vitest";
import type { CellRecord, RunManifest } from "../../../src/core/model/results.ts";
import { comparisonJson, renderComparisonCsv, renderComparisonText } from "../../../src/core/report/compare.ts";
import { compareRuns } from "../../../src/core/stats/compare.ts";
import { golden, load } from "../../support/results-fixture.ts";

const a = load("compare-a");
const b = load("compare-b");

describe("renderComparisonText, renderComparisonCsv, comparisonJson", () => {
  it("renders text (golden), csv and json", () => {
    const cmp = compareRuns(a, b);
    expect(renderComparisonText(cmp)).toBe(golden("compare.txt"));
    const csv = renderComparisonCsv(cmp).trim().split("\n");
    expect(csv).toHaveLength(1 + 8);
    expect(csv[0].startsWith("server,test,threads,")).toBe(true);
    const j = comparisonJson(cmp) as any;
    expect(j.tables[0]).toMatchObject({ metric: "qps", numerator: "mariadb", denominator: "mariadb", threads: [1, 4] });
  });

  it("one run a side: says the intervals hold only the variation between repeats", () => {
    expect(renderComparisonText(compareRuns(a, b))).toContain(
      "Fewer than 2 runs a side: the intervals hold only the variation between repeats",
    );
  });

  it("two runs a side: says each run's cell value is one observation, and names the runs", () => {
    const again = (d: { manifest: RunManifest; cells: CellRecord[] }, id: string) => {
      const c = structuredClone(d);
      c.manifest.runId = id;
      return c;
    };
    const text = renderComparisonText(compareRuns([a, again(a, "compare-a2")], [b, again(b, "compare-b2")]));
    expect(text).toContain(
      "Each run's cell value is one observation: the intervals include the variance between runs.",
    );
    expect(text).toContain("BASE runs: compare-a, compare-a2; NEW runs: compare-b, compare-b2");
  });

  it("a forced compare lists what differs first", () => {
    const b2 = structuredClone(b);
    b2.manifest.scenario.workload.threads = [1, 8];
    const text = renderComparisonText(compareRuns(a, b2, { force: true }));
    expect(text).toContain("FORCED: the runs differ in scenario, pins or config:");
    expect(text).toContain("scenario.workload.threads: [1,4] vs [1,8]");
  });
});
