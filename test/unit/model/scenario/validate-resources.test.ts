/** The resource checks: max_connections against the threads, cpusets on this host, storage against the memory limit. */
import { describe, expect, it } from "vitest";
import {
  VALIDATION_FILE as F,
  validationErrors,
  validationWarnings,
  type ScenarioDoc,
} from "../../../support/scenario.ts";

describe("validate-resources: errors, one case per rule", () => {
  const cases: Array<[string, (d: ScenarioDoc) => void, string]> = [
    [
      "threads above max_connections",
      (d) => {
        d.workload.threads = [1, 128];
        d.config = { set: { max_connections: 100 } };
      },
      `${F}: config.set.max_connections: 100 is lower than the 138 connections this scenario needs (workload.threads up to 128, plus 10 for twinbench's own)`,
    ],
    [
      "per-server max_connections",
      (d) => (d.servers[0].config = { set: { max_connections: "12" } }),
      `${F}: servers.0.config.set.max_connections: 12 is lower than the 14 connections this scenario needs (workload.threads up to 4, plus 10 for twinbench's own)`,
    ],
    [
      "cpuset not on this host",
      (d) => (d.resources.server.cpuset = "1-3"),
      `${F}: resources.server.cpuset: CPUs 2, 3 do not exist on this host (it has CPUs 0-1), got "1-3"`,
    ],
    [
      "reversed cpuset range",
      (d) => (d.resources.load.cpuset = "1-0"),
      `${F}: resources.load.cpuset: reversed range in cpuset "1-0"`,
    ],
    [
      "tmpfs larger than the memory limit",
      (d) => (d.storage.size = "8g"),
      `${F}: storage.size: tmpfs size "8g" is larger than the server memory limit resources.server.memory "4g"; tmpfs pages count against the server container's memory`,
    ],
    [
      "raid0 without members",
      (d) => (d.storage = { kind: "raid0" }),
      `${F}: storage: raid0 needs its members: devices (2 or more /dev/... paths) or loop: { members: N, size: SIZE }`,
    ],
    [
      "raid0 with both",
      (d) => (d.storage = { kind: "raid0", devices: ["/dev/sdb", "/dev/sdc"], loop: { members: 2, size: "1g" } }),
      `${F}: storage: raid0 takes devices or loop, not both`,
    ],
  ];
  it.each(cases)("%s", (_name, mut, expected) => {
    expect(validationErrors(mut)).toContain(expected);
  });
});

describe("validate-resources: warnings", () => {
  const cases: Array<[string, (d: ScenarioDoc) => void, string]> = [
    [
      "overlapping cpusets",
      (d) => (d.resources.load.cpuset = "0-1"),
      `${F}: resources: server cpuset "1" and load cpuset "0-1" overlap on CPU 1; sysbench competes with the server there`,
    ],
    [
      "tmpfs plus buffer pool above the memory limit",
      (d) => (d.storage.size = "3.5g"),
      `${F}: storage.size: tmpfs size "3.5g" plus innodb_buffer_pool_size "1024M" exceeds resources.server.memory "4g"; the server can be OOM-killed as the data dir fills`,
    ],
  ];
  it.each(cases)("%s", (_name, mut, expected) => {
    expect(validationWarnings(mut)).toContain(expected);
  });
});
