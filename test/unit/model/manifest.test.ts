/**
 * run.json read back (src/core/model/manifest.ts): checked against the schema its scenario was written with; a
 * resumed run id must be one twinbench makes, and no id can name a parent folder.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkRunManifest, isGeneratedRunId } from "../../../src/core/model/manifest.ts";
import { newRunId } from "../../../src/app/run/session.ts";

const FIX = join(import.meta.dirname, "../../fixtures/results/repeats");
const fixture = () => JSON.parse(readFileSync(join(FIX, "run.json"), "utf8")) as Record<string, unknown>;

describe("checkRunManifest", () => {
  it("a generated run id has the checked form, and `..` never does", () => {
    expect(isGeneratedRunId(newRunId(new Date("2026-12-06T17:00:00Z")))).toBe(true);
    expect(isGeneratedRunId(`${newRunId(new Date())}-kernel-26-p3`)).toBe(true);
    for (const bad of ["..", ".", "../state", "a/b", "", "20261206-170000-ab12/..", "20261206-170000-ab12-.."])
      expect(isGeneratedRunId(bad)).toBe(false);
  });
  it("a run.json as a run writes it passes unchanged (its fingerprint stays as written)", () => {
    const m = { ...fixture(), runId: "20261206-170000-ab12" };
    expect(checkRunManifest(m, "run.json", { resume: true })).toBe(m);
    expect(checkRunManifest(fixture(), "run.json")).toEqual(fixture()); // reports take any safe id (fixtures' "repeats")
  });
});
