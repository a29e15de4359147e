/**
 * run.json read back (src/core/model/manifest.ts): checked against the schema its scenario was written with; a
 * resumed run id must be one twinbench makes, and no id can name a parent folder.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  checkHostsRunManifest,
  checkResumedRunId,
  checkRunManifest,
  isGeneratedRunId,
} from "../../../src/core/model/manifest.ts";
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
  it("a resume refuses a run id not in the generated form, with RESULTS_INVALID naming the value and the file", () => {
    for (const bad of ["..", "../state", "x", "20261206-170000-ab12-.."]) {
      const m = { ...fixture(), runId: bad };
      let err: unknown;
      try {
        checkRunManifest(m, "/r/run.json", { resume: true });
      } catch (e) {
        err = e;
      }
      expect(err).toMatchObject({ code: "RESULTS_INVALID" });
      expect((err as Error).message).toContain("/r/run.json");
      expect((err as Error).message).toContain(JSON.stringify(bad));
    }
    // Read for a report, `..` is refused too (a safe id has no dot); a plain name is kept.
    expect(() => checkRunManifest({ ...fixture(), runId: ".." }, "/r/run.json")).toThrow(/\/r\/run\.json: runId/);
  });
});

describe("checkHostsRunManifest and checkResumedRunId", () => {
  const hostsRun = () => ({ runId: "20261206-170000-ab12", scenario: fixture().scenario, overrides: [] });
  it("a hosts-run.json as a multi-host run writes it passes unchanged", () => {
    const m = hostsRun();
    expect(checkHostsRunManifest(m, "hosts-run.json")).toBe(m);
  });
  it("refuses a run id not in the generated form, or a scenario its schema refuses, naming the file and the field", () => {
    for (const bad of ["..", "../../state", "a/b"])
      expect(() => checkHostsRunManifest({ ...hostsRun(), runId: bad }, "/r/hosts-run.json")).toThrow(
        `/r/hosts-run.json: runId: ${JSON.stringify(bad)} is not a run id twinbench makes`,
      );
    expect(() => checkHostsRunManifest({ ...hostsRun(), scenario: { name: 1 } }, "/r/hosts-run.json")).toThrow(
      /\/r\/hosts-run\.json: scenario/,
    );
    expect(() => checkResumedRunId("..", "/r/hosts/b/run.json")).toThrow(
      expect.objectContaining({
        code: "RESULTS_INVALID",
        message: expect.stringContaining('/r/hosts/b/run.json: runId: ".."'),
      }),
    );
    expect(checkResumedRunId("20261206-170000-ab12", "f")).toBe("20261206-170000-ab12");
  });
});
