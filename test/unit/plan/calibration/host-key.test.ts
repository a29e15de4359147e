/** The key of a host's calibration: the facts that change its noise, as a file name. */
import { describe, expect, it } from "vitest";
import { hostKey, keyFacts } from "../../../../src/core/plan/calibration/host-key.ts";

describe("hostKey", () => {
  const facts = {
    cpuModel: "AMD EPYC 7B13",
    cpus: 2,
    kernel: "6.1.0-28-cloud-amd64",
    storageDriver: "overlay2",
    cgroupVersion: 2,
  };
  it.each([
    [
      "every fact, lower case, runs of other characters as one dash",
      facts,
      "amd-epyc-7b13_2cpu_6.1.0-28-cloud-amd64_overlay2_cgroup2",
    ],
    ["no facts: a placeholder for each", {}, "cpu-_-cpu_kernel-_driver-_cgroup-"],
    [
      "a string cgroup version",
      { ...facts, cgroupVersion: "1" },
      "amd-epyc-7b13_2cpu_6.1.0-28-cloud-amd64_overlay2_cgroup1",
    ],
    [
      "slashes and spaces never reach the file name",
      { ...facts, cpuModel: "Intel(R) Xeon(R) CPU @ 2.20GHz / x" },
      "intel-r-xeon-r-cpu-2.20ghz-x_2cpu_6.1.0-28-cloud-amd64_overlay2_cgroup2",
    ],
  ])("%s", (_, f, key) => expect(hostKey(f)).toBe(key));

  it("is at most 120 characters", () => {
    const k = hostKey({ ...facts, cpuModel: "x".repeat(300) });
    expect(k).toHaveLength(120);
    expect(k).toBe("x".repeat(120));
  });

  it("differs when any fact differs", () => {
    const keys = new Set(
      [
        facts,
        { ...facts, cpus: 4 },
        { ...facts, kernel: "6.2" },
        { ...facts, storageDriver: "vfs" },
        { ...facts, cgroupVersion: 1 },
      ].map(hostKey),
    );
    expect(keys.size).toBe(5);
  });
});

describe("keyFacts", () => {
  it("the key's facts as strings, absent ones left out", () => {
    expect(keyFacts({ cpuModel: "m", cpus: 2, kernel: "k", storageDriver: "overlay2", cgroupVersion: "2" })).toEqual({
      cpuModel: "m",
      cpus: "2",
      kernel: "k",
      storageDriver: "overlay2",
      cgroupVersion: "2",
    });
    expect(keyFacts({ cpus: 8 } as Parameters<typeof keyFacts>[0])).toEqual({ cpus: "8" });
  });
});
