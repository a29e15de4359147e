/** `plan` warns before a run when the layout is likely load-bound (src/core/plan/loadbound.ts), on fixtures. */
import { describe, expect, it } from "vitest";
import { loadBoundWarnings } from "../../../src/core/plan/loadbound.ts";
import { containerCores } from "../../../src/core/measure/cellstate.ts";
import { describePlan } from "../../../src/core/report/plan.ts";
import { planRun } from "../../../src/core/plan/plan.ts";
import { scenario } from "../../support/scenario.ts";

const layout = (server: string | undefined, load: string | undefined, threads: number[]) =>
  ({
    resources: {
      server: server === undefined ? {} : { cpuset: server },
      load: load === undefined ? {} : { cpuset: load },
    },
    workload: { threads },
  }) as Parameters<typeof loadBoundWarnings>[0];

describe("load-bound layouts", () => {
  it.each([
    ["quick.yaml's 1 server core and 1 load core", "1", "0", [1, 4], []],
    [
      "2 server cores, 1 load core, 4 threads",
      "0-1",
      "2",
      [1, 4],
      [
        /^likely load-bound: the load cpuset 2 has 1 core for up to 4 sysbench threads, against 2 server cores; .*give the load at least 2 cores$/,
      ],
    ],
    ["2 server cores, 1 load core, 1 thread: one thread cannot saturate anything", "0-1", "2", [1], []],
    [
      "4 server cores, 2 load cores, 8 threads",
      "0-3",
      "4-5",
      [8],
      [
        /^likely load-bound: the load cpuset 4-5 has 2 cores for up to 8 sysbench threads, against 4 server cores; .*at least 4 cores$/,
      ],
    ],
    ["shared cores", "0-1", "1", [1], [/^the server and load cpusets share CPU 1: /]],
    ["no load cpuset: nothing known", "1", undefined, [64], []],
    ["no server cpuset: nothing known", undefined, "0", [64], []],
  ] as const)("%s", (_, server, load, threads, want) => {
    const got = loadBoundWarnings(layout(server, load, [...threads]));
    expect(got).toHaveLength(want.length);
    want.forEach((re, i) => expect(got[i]).toMatch(re));
  });

  it.each([
    [
      "a quota below the load cpuset",
      "1",
      "0",
      0.25,
      [4],
      [
        /^likely load-bound: the load's CPU quota \(resources\.load\.cpus\) gives it 0\.25 cores for up to 4 sysbench threads, against 1 server core; /,
      ],
    ],
    [
      "a quota without a load cpuset",
      "1",
      undefined,
      0.5,
      [1],
      [/^likely load-bound: the load's CPU quota .* gives it 0\.5 cores for up to 1 sysbench threads/],
    ],
    ["a quota above the cpuset changes nothing", "1", "0", 4, [1, 4], []],
  ] as const)("%s", (_, server, load, cpus, threads, want) => {
    const l = layout(server, load, [...threads]);
    const got = loadBoundWarnings({ ...l, resources: { ...l.resources, load: { ...l.resources.load, cpus } } });
    expect(got).toHaveLength(want.length);
    want.forEach((re, i) => expect(got[i]).toMatch(re));
  });

  it("a container's cores: its cpuset's (the host's without one), capped by its quota", () => {
    expect(containerCores("0-1,3", undefined, 8)).toBe(3);
    expect(containerCores(undefined, undefined, 8)).toBe(8);
    expect(containerCores("0", 0.25, 8)).toBe(0.25);
    expect(containerCores(undefined, 1.5, 2)).toBe(1.5);
    expect(containerCores("0", 4, 8)).toBe(1);
  });

  it("plan prints the warning under the resources", () => {
    const s = scenario(
      {
        name: "starved",
        storage: { kind: "tmpfs", size: "1g" },
        resources: { server: { cpuset: "0-1" }, load: { cpuset: "0" } },
        workload: { tests: ["oltp_point_select"], threads: [1, 4], duration: "2s", repeats: 2 },
      },
      { check: "schema" },
    );
    const lines = describePlan(planRun(s), s);
    const at = lines.findIndex((l) => l.startsWith("Resources:"));
    expect(lines[at + 1]).toMatch(
      /^  warning: likely load-bound: the load cpuset 0 has 1 core for up to 4 sysbench threads/,
    );
    expect(lines[at + 2]).toMatch(/^  warning: the server and load cpusets share CPU 0/);
  });
});
