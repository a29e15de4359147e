/** What differs between two runs: the experiment (refused unless forced), the host and server facts, the variables. */
import { describe, expect, it } from "vitest";
import type { RunManifest } from "../../../src/core/model/results.ts";
import {
  deepDiff,
  factDifferences,
  runDifferences,
  scenarioIdentity,
  variableDifferences,
} from "../../../src/core/stats/run-differences.ts";
import { load } from "../../support/results-fixture.ts";

const a = load("compare-a").manifest;
const b = load("compare-b").manifest;
const SERVERS = ["mariadb", "mysql"];

describe("deepDiff", () => {
  it.each([
    [{ a: 1 }, { a: 1 }, []],
    [{ a: [1, 2] }, { a: [1, 3] }, ["a: [1,2] vs [1,3]"]],
    [{ a: { b: "x" } }, { a: {} }, ['a.b: "x" vs (unset)']],
  ])("%j vs %j", (x, y, expected) => expect(deepDiff(x, y)).toEqual(expected));
});

describe("scenarioIdentity", () => {
  it("leaves out the name, images, hosts and the re-run policy: those do not change the experiment", () => {
    const s2 = structuredClone(a.scenario);
    s2.name = "another name";
    s2.servers[0]!.image = "mariadb-10.11";
    (s2.workload as Record<string, unknown>).rerunDisturbed = true;
    expect(deepDiff(scenarioIdentity(a.scenario), scenarioIdentity(s2))).toEqual([]);
    s2.order = s2.order === "grouped" ? "interleaved" : "grouped";
    expect(deepDiff(scenarioIdentity(a.scenario), scenarioIdentity(s2))).toHaveLength(1);
  });
});

describe("runDifferences", () => {
  it("the recorded pair differs in nothing that is refused", () => {
    expect(runDifferences(a, b, SERVERS)).toEqual([]);
  });
  it("names the scenario, the pins and the rendered config that differ", () => {
    const b2 = structuredClone(b);
    b2.scenario.workload.threads = [1, 8];
    b2.servers[0]!.resources.cpuset = "0-1";
    b2.servers[1]!.cnf += "innodb_doublewrite=OFF\n";
    expect(runDifferences(a, b2, SERVERS)).toEqual([
      "scenario.workload.threads: [1,4] vs [1,8]",
      'pins mariadb.cpuset: "1" vs "0-1"',
      "config mysql: the rendered my.cnf differs",
    ]);
    expect(runDifferences(a, b2, ["mariadb"])).not.toContain("config mysql: the rendered my.cnf differs");
  });
});

describe("factDifferences", () => {
  it("one host a side is matched whatever its id; each differing fact is listed", () => {
    expect(factDifferences(a, b, SERVERS)).toEqual([
      { scope: "host local", field: "kernel", base: "6.1.0-18-amd64", new: "6.12.0-1-amd64" },
      { scope: "host local", field: "cgroup version", base: "1", new: "2" },
    ]);
    const b2 = structuredClone(b) as RunManifest;
    b2.hosts[0]!.id = "other";
    expect(factDifferences(a, b2, SERVERS)[0]).toMatchObject({ scope: "host local/other", field: "kernel" });
  });
  it("server facts: version, image id, storage", () => {
    const b2 = structuredClone(b);
    b2.servers[0]!.imageId = "sha256:cccc";
    b2.servers[0]!.version = "11.8.9-MariaDB";
    const diffs = factDifferences(a, b2, ["mariadb"]).filter((d) => d.scope === "server mariadb");
    expect(diffs.map((d) => d.field)).toEqual(expect.arrayContaining(["version", "image id"]));
    expect(diffs.find((d) => d.field === "image id")).toEqual({
      scope: "server mariadb",
      field: "image id",
      base: "sha256:aaaa",
      new: "sha256:cccc",
    });
  });
});

describe("variableDifferences", () => {
  it("the effective variables that differ, per server, sorted by name", () => {
    expect(variableDifferences(a, b, SERVERS)).toEqual([
      { scope: "server mariadb", field: "innodb_io_capacity", base: "2000", new: "4000" },
    ]);
    expect(variableDifferences(a, b, ["mysql"])).toEqual([]);
  });
});
