/** The markdown report on the repeats fixture against its golden. */
import { describe, expect, it } from "vitest";
import { renderMarkdown } from "../../../src/core/report/markdown.ts";
import { buildRunReport } from "../../../src/core/report/model.ts";
import { golden, load } from "../../support/results-fixture.ts";

describe("renderMarkdown", () => {
  const { manifest, cells } = load("repeats");
  const report = buildRunReport(manifest, cells);

  it("markdown", () => expect(renderMarkdown(report)).toBe(golden("repeats.md")));
});
