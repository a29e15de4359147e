/**
 * A results folder is input: --resume reads run.json back through the manifest check (readRunManifest and
 * readResultsFolder in src/adapters/report-files.ts), refusing a run id or a scenario the check refuses.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, rmSync, writeFileSync, cpSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readRunManifest, readResultsFolder } from "../../../src/adapters/report-files.ts";

const FIX = join(import.meta.dirname, "../../fixtures/results/repeats");
const fixture = () => JSON.parse(readFileSync(join(FIX, "run.json"), "utf8")) as Record<string, unknown>;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tb-trust-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("run.json read back", () => {
  it("--resume refuses a run id of `..` (it would name the folder above the mount root)", async () => {
    const m = { ...fixture(), runId: ".." };
    cpSync(FIX, join(dir, "r"), { recursive: true });
    writeFileSync(join(dir, "r", "run.json"), JSON.stringify(m));
    await expect(readRunManifest(join(dir, "r"))).rejects.toMatchObject({
      code: "RESULTS_INVALID",
      problems: [expect.stringMatching(/run\.json: runId: /)],
    });
  });

  it("--resume refuses a recorded scenario the schema refuses, naming the field", async () => {
    const m = fixture();
    (m.scenario as { workload: { threads: unknown } }).workload.threads = ["<b>"];
    m.runId = "20261206-170000-ab12";
    cpSync(FIX, join(dir, "r"), { recursive: true });
    writeFileSync(join(dir, "r", "run.json"), JSON.stringify(m));
    await expect(readRunManifest(join(dir, "r"))).rejects.toMatchObject({
      code: "RESULTS_INVALID",
      problems: [expect.stringContaining("scenario.workload.threads.0")],
    });
    await expect(readResultsFolder(join(dir, "r"))).rejects.toMatchObject({ code: "RESULTS_INVALID" });
  });
});
