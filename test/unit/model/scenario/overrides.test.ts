import { describe, expect, it } from "vitest";
import { applyOverrides, overrideFor, parseSet } from "../../../../src/core/model/scenario/overrides.ts";

describe("--set overrides", () => {
  const doc = () => ({ workload: { threads: [1, 2, 4], duration: "10s" }, config: { set: {} } });
  const cases: Array<[string, string[], unknown]> = [
    ["a scalar", ["workload.duration=5s"], { workload: { threads: [1, 2, 4], duration: "5s" }, config: { set: {} } }],
    [
      "a YAML list",
      ["workload.threads=[1,4]"],
      { workload: { threads: [1, 4], duration: "10s" }, config: { set: {} } },
    ],
    [
      "into a map",
      ["config.set.innodb_io_capacity=2000"],
      { workload: { threads: [1, 2, 4], duration: "10s" }, config: { set: { innodb_io_capacity: 2000 } } },
    ],
    ["by index", ["workload.threads.1=8"], { workload: { threads: [1, 8, 4], duration: "10s" }, config: { set: {} } }],
    [
      "creating maps",
      ["storage.kind=volume"],
      { workload: { threads: [1, 2, 4], duration: "10s" }, config: { set: {} }, storage: { kind: "volume" } },
    ],
    [
      "null removes",
      ["workload.duration=null", "workload.events=100"],
      { workload: { threads: [1, 2, 4], events: 100 }, config: { set: {} } },
    ],
    [
      "repeatable, in order",
      ["workload.duration=5s", "workload.duration=7s"],
      { workload: { threads: [1, 2, 4], duration: "7s" }, config: { set: {} } },
    ],
  ];
  it.each(cases)("%s", (_n, sets, expected) => {
    const r = applyOverrides(doc(), sets);
    expect(r.errors).toEqual([]);
    expect(r.raw).toEqual(expected);
  });

  const bad: Array<[string, string, string]> = [
    ["no =", "workload", "--set workload: expected PATH=VALUE, e.g. workload.duration=5s"],
    ["empty segment", "workload..x=1", '--set workload..x=1: expected a dot path before "=", got "workload..x"'],
    ["bad YAML", "workload.threads=[1,", "--set workload.threads=[1,: the value is not valid YAML"],
    [
      "index past the end",
      "workload.threads.7=1",
      "--set workload.threads.7=1: index 7 is past the end of workload.threads (3 items)",
    ],
    [
      "key into a list",
      "workload.threads.x=1",
      '--set workload.threads.x=1: workload.threads is a list: expected an index, got "x"',
    ],
    [
      "through a scalar",
      "workload.duration.x=1",
      '--set workload.duration.x=1: workload.duration is "10s", not a mapping or a list',
    ],
  ];
  it.each(bad)("error: %s", (_n, set, expected) => {
    const r = applyOverrides(doc(), [set]);
    expect(r.errors[0]?.startsWith(expected)).toBe(true);
  });

  it("parseSet keeps the argument", () => {
    expect(parseSet("a.b=[1, 2]")).toEqual({ set: "a.b=[1, 2]", path: ["a", "b"], value: [1, 2] });
  });
});

describe("overrideFor", () => {
  const applied = [parseSet("workload.duration=5s"), parseSet("workload=null"), parseSet("config.set.x=1")].map((o) => {
    if ("error" in o) throw new Error(o.error);
    return o;
  });
  it.each([
    ["an exact path", ["config", "set", "x"], "config.set.x=1"],
    ["a path under an override", ["config", "set", "x", "y"], "config.set.x=1"],
    ["a path above an override", ["config"], "config.set.x=1"],
    ["the last of two that match", ["workload", "duration"], "workload=null"],
    ["no override", ["storage", "kind"], undefined],
  ])("%s", (_, path, want) => {
    expect(overrideFor(path, applied)?.set).toBe(want);
  });
});
