/** The method in plain words (src/core/report/method.ts): no statistician's shorthand. */
import { describe, expect, it } from "vitest";
import { buildRunReport } from "../../../src/core/report/model.ts";
import { methodLines } from "../../../src/core/report/method.ts";
import { load } from "../../support/results-fixture.ts";

describe("method lines", () => {
  for (const name of ["quick", "repeats"]) {
    it(`${name}: says what the intervals hold and what chance gives, without jargon`, () => {
      const { manifest, cells } = load(name);
      const lines = methodLines(buildRunReport(manifest, cells).table!);
      const text = lines.join("\n");
      for (const jargon of ["prior df", "moderated toward", "stop half", "combined df", "Replication unit"])
        expect(text).not.toContain(jargon);
      expect(text).toContain("Each server was started once");
      expect(text).toMatch(/chance alone would call about \d+\.\d of them faster or slower/);
    });
  }
  it("quick: says which cells stopped on the budget and that their intervals use all their pairs", () => {
    const { manifest, cells } = load("quick");
    const text = methodLines(buildRunReport(manifest, cells).table!).join("\n");
    expect(text).toContain("6 cells stopped on the budget or the round limit");
  });
});
