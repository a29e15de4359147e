/**
 * validateScenario as a whole: the shape first, then the checks of each section (their own tests:
 * validate-zod, validate-options, validate-servers, validate-workload, validate-resources), every problem a line
 * `FILE: dot.path: problem`.
 */
import { readFileSync, readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { validateScenario } from "../../../../src/core/model/scenario/validate.ts";
import {
  TEST_CONTEXT as ctx,
  VALIDATION_FILE as F,
  validated,
  validationErrors,
  validationWarnings,
} from "../../../support/scenario.ts";

describe("validateScenario: adaptive repeats, instances, budget, margin", () => {
  it("accepts the adaptive form, a plain number still means a fixed count", () => {
    expect(
      validationWarnings((d) => {
        d.workload.repeats = { min: 4, max: 40, precision: "3%" };
        d.workload.budget = "30m";
        d.workload.instances = 2;
        d.report = { margin: "5%" };
      }),
    ).toEqual([]);
    const r = validated((d) => (d.workload.repeats = 4));
    expect("scenario" in r && r.scenario.workload.repeats).toBe(4);
  });
});

describe("validateScenario: the whole document", () => {
  it("refuses a document that is not a mapping", () => {
    expect(validateScenario([1, 2], F, ctx)).toEqual({
      errors: [`${F}: expected a mapping at the top level, got [1,2]`],
    });
  });

  it("reports the problems of every section at once, each prefixed with the file", () => {
    const errs = validationErrors((d) => {
      d.servers[1].id = "mariadb";
      d.workload.threads = [1, 4, 1];
      d.resources.load.cpuset = "1-0";
    });
    expect(errs).toEqual([
      `${F}: servers.1.id: duplicate server id "mariadb" (already used by servers.0)`,
      `${F}: workload.threads.2: duplicate thread count 1 (already workload.threads.0)`,
      `${F}: resources.load.cpuset: reversed range in cpuset "1-0"`,
    ]);
  });

  it("a clean scenario has no warnings", () => {
    expect(validationWarnings(() => {})).toEqual([]);
  });

  it("does not change the document it is given", () => {
    const doc = {
      name: "x",
      servers: [
        { id: "a", image: "mariadb-11.8" },
        { id: "b", image: "mysql-9.7" },
      ],
      workload: { tests: ["oltp_read_only"], threads: [1], duration: "10s", sysbench: { "oltp-table-size": 5 } },
    };
    const before = structuredClone(doc);
    validateScenario(doc, F, ctx);
    expect(doc).toEqual(before);
  });
});

describe("shipped scenarios", () => {
  const files = readdirSync("scenarios").filter((f) => f.endsWith(".yaml"));
  it("include the five the project ships", () => {
    expect(files).toEqual(
      expect.arrayContaining([
        "quick.yaml",
        "quick-raid0.yaml",
        "aa-mariadb.yaml",
        "seed-mariadb-vs-mysql.yaml",
        "seed-kernel-ro300.yaml",
      ]),
    );
  });
  it.each(files)("%s validates and cites its seed", (f) => {
    const text = readFileSync(`scenarios/${f}`, "utf8");
    expect(text).toMatch(/^# .*[Ss]eed/m);
    const r = validateScenario(parse(text), `scenarios/${f}`, ctx);
    if ("errors" in r) throw new Error(r.errors.join("\n"));
    expect(r.scenario.name).toBe(f.replace(/\.yaml$/, ""));
  });
});
