/** The terms the scenario checks share: a field's dot path, and the Problems sink each check reports to. */
import { describe, expect, it } from "vitest";
import { dot, type Path, type Problems } from "../../../../src/core/model/scenario/validate-problems.ts";
import { checkServers } from "../../../../src/core/model/scenario/validate-servers.ts";
import { TEST_CONTEXT, scenario } from "../../../support/scenario.ts";

describe("dot", () => {
  it.each([
    [["workload", "tests", 0], "workload.tests.0"],
    [["servers", 1, "config", "set"], "servers.1.config.set"],
    [[], ""],
  ] as Array<[Path, string]>)("%j → %s", (p, want) => expect(dot(p)).toBe(want));
});

describe("Problems", () => {
  it("a check reports each problem with its path, errors and warnings apart", () => {
    const seen: string[] = [];
    const problems: Problems = {
      err: (p, m) => seen.push(`error ${dot(p)}: ${m}`),
      warn: (p, m) => seen.push(`warning ${dot(p)}: ${m}`),
    };
    const s = scenario([], { check: "schema" });
    s.servers[1]!.id = "a";
    s.servers[0]!.config = { set: { innodb_io_capacity: 4000 } } as never;
    checkServers(s, TEST_CONTEXT, problems);
    expect(seen).toEqual([
      'error servers.1.id: duplicate server id "a" (already used by servers.0)',
      expect.stringMatching(
        /^warning servers\.0\.config\.set: deliberate asymmetry: innodb_io_capacity set for a only/,
      ),
    ]);
  });
});
