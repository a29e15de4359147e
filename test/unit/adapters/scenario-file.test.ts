import { readFileSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  loadScenarioFile,
  loadScenarioText,
  parseScenarioYaml,
  writeScenarioFile,
} from "../../../src/adapters/scenario-file.ts";
import { InputError } from "../../../src/core/base/errors.ts";

const lockImages = ["mariadb-11.8", "mariadb-10.11", "mysql-9.7", "sysbench-1.0"];
const opts = { lockImages, hostCpus: 2 };

function problemsOf(f: () => unknown): string[] {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(InputError);
    expect((e as InputError).code).toBe("SCENARIO_INVALID");
    return (e as InputError).problems;
  }
  throw new Error("expected an InputError");
}

describe("YAML syntax errors give line and column", () => {
  const cases: Array<[string, string, string]> = [
    [
      "bad indentation",
      "name: x\nservers:\n  - id: a\n   image: b\n",
      "f.yaml: line 4, column 1: Sequence item without - indicator",
    ],
    ["duplicate key", "name: x\nname: y\n", "f.yaml: line 2, column 1: Map keys must be unique"],
  ];
  it.each(cases)("%s", (_n, text, expected) => {
    const r = parseScenarioYaml(text, "f.yaml");
    expect("errors" in r && r.errors).toContain(expected);
  });
  it("an empty file", () => {
    expect(parseScenarioYaml("", "f.yaml")).toEqual({ errors: ["f.yaml: the file is empty"] });
  });
});

describe("loadScenarioText / loadScenarioFile", () => {
  const quick = readFileSync("scenarios/quick.yaml", "utf8");

  it("applies --set before validation and records it", () => {
    const r = loadScenarioText(quick, "scenarios/quick.yaml", {
      ...opts,
      sets: ["workload.duration=5s", "workload.threads=[1,4]", "config.set.innodb_io_capacity=2000"],
    });
    expect(r.scenario.workload.duration).toBe("5s");
    expect(r.scenario.workload.threads).toEqual([1, 4]);
    expect(r.scenario.config.set.innodb_io_capacity).toBe(2000);
    expect(r.overrides).toEqual([
      "workload.duration=5s",
      "workload.threads=[1,4]",
      "config.set.innodb_io_capacity=2000",
    ]);
    expect((r.raw as { workload: { duration: string } }).workload.duration).toBe("7s");
  });

  it("validation errors name the --set that caused them", () => {
    expect(
      problemsOf(() => loadScenarioText(quick, "scenarios/quick.yaml", { ...opts, sets: ["workload.threads=[1,x]"] })),
    ).toEqual([
      'scenarios/quick.yaml: workload.threads.1: expected an integer from 1 to 4096, got "x" (from --set workload.threads=[1,x])',
    ]);
  });

  it("--set errors are problems too", () => {
    expect(problemsOf(() => loadScenarioText(quick, "q.yaml", { ...opts, sets: ["nope"] }))).toEqual([
      "--set nope: expected PATH=VALUE, e.g. workload.duration=5s",
    ]);
  });

  it("the seed scenario with a quick override (5 s cells, threads 1 and 4)", () => {
    const text = readFileSync("scenarios/seed-mariadb-vs-mysql.yaml", "utf8");
    const r = loadScenarioText(text, "s.yaml", { ...opts, sets: ["workload.duration=5s", "workload.threads=[1,4]"] });
    expect(r.scenario.workload.tests).toHaveLength(8);
    expect(r.scenario.workload.threads).toEqual([1, 4]);
  });

  it("a missing file is an InputError", async () => {
    await expect(loadScenarioFile("/nonexistent/x.yaml", opts)).rejects.toMatchObject({ code: "SCENARIO_NOT_FOUND" });
  });

  it("writes atomically and refuses to overwrite", async () => {
    const dir = await mkdtemp(join(tmpdir(), "tb-scn-"));
    try {
      const f = join(dir, "a.yaml");
      await writeScenarioFile(f, "name: a\n");
      expect(await readFile(f, "utf8")).toBe("name: a\n");
      await expect(writeScenarioFile(f, "name: b\n")).rejects.toMatchObject({ code: "FILE_EXISTS" });
      await writeScenarioFile(f, "name: b\n", { force: true });
      expect(await readFile(f, "utf8")).toBe("name: b\n");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
