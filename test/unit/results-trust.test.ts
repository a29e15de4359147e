/**
 * A results folder is input: run.json is checked against the schema its scenario was written with, a resumed run
 * id must be one twinbench makes, and no id can name a parent folder.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, rmSync, writeFileSync, cpSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkRunManifest, isGeneratedRunId } from "../../src/core/model/manifest.ts";
import { safeComponent } from "../../src/core/storage/plan.ts";
import { readRunManifest, readResultsFolder } from "../../src/adapters/report-files.ts";
import { globalStatePath } from "../../src/adapters/storage/state-file.ts";
import { newRunId } from "../../src/app/run/session.ts";
import { cleanResources } from "../../src/app/clean.ts";
import type { Engine } from "../../src/adapters/docker/engine.ts";
import { mkdirDurable } from "../../src/adapters/durable-file.ts";

const FIX = join(import.meta.dirname, "../fixtures/results/repeats");
const fixture = () => JSON.parse(readFileSync(join(FIX, "run.json"), "utf8")) as Record<string, unknown>;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tb-trust-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("run.json read back", () => {
  it("a generated run id has the checked form, and `..` never does", () => {
    expect(isGeneratedRunId(newRunId(new Date("2026-12-06T17:00:00Z")))).toBe(true);
    expect(isGeneratedRunId(`${newRunId(new Date())}-kernel-26-p3`)).toBe(true);
    for (const bad of ["..", ".", "../state", "a/b", "", "20261206-170000-ab12/..", "20261206-170000-ab12-.."])
      expect(isGeneratedRunId(bad)).toBe(false);
  });

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

  it("a run.json as a run writes it passes unchanged (its fingerprint stays as written)", () => {
    const m = { ...fixture(), runId: "20261206-170000-ab12" };
    expect(checkRunManifest(m, "run.json", { resume: true })).toBe(m);
    expect(checkRunManifest(fixture(), "run.json")).toEqual(fixture()); // reports take any safe id (fixtures' "repeats")
  });
});

describe("path components", () => {
  it.each([
    ["..", "__"],
    [".", "_"],
    ["", "_"],
    ["../x", "___x"],
    [".hidden", "_hidden"],
    ["20261206-170000-ab12", "20261206-170000-ab12"],
    ["a.b", "a.b"],
  ])("%j → %j", (s, want) => {
    expect(safeComponent(s)).toBe(want);
  });
  it("a state file of run `..` stays inside the state dir", () => {
    expect(globalStatePath("/var/lib/twinbench/state", "..", "..")).toBe("/var/lib/twinbench/state/__-__.json");
  });
});

describe("clean", () => {
  it.each([[""], ["  "]])(
    "refuses an empty --run %j before it lists anything (it would read as every run)",
    async (id) => {
      let listed = false;
      const engine = {
        listLabelled: async () => {
          listed = true;
          return { containers: [], networks: [], volumes: [] };
        },
      } as unknown as Engine;
      await expect(cleanResources(engine, { runId: id })).rejects.toMatchObject({ code: "CLEAN_EMPTY_ID" });
      expect(listed).toBe(false);
    },
  );
});

describe("mkdirDurable", () => {
  it("makes every missing folder one by one and says which was the first", async () => {
    expect(await mkdirDurable(join(dir, "a", "b", "c"))).toBe(join(dir, "a"));
    expect(await mkdirDurable(join(dir, "a", "b", "c"))).toBeUndefined();
  });
});
