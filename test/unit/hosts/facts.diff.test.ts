/** The host-facts diff, its rows and the sharding rule (src/core/hosts/facts.ts). */
import { describe, expect, it } from "vitest";
import { factsA } from "../../support/host-facts.ts";
import {
  hostFactDiff,
  hostFactRows,
  mergeProbe,
  parseProbeOutput,
  probeCommand,
  shardMismatches,
} from "../../../src/core/hosts/facts.ts";
import type { HostFacts } from "../../../src/core/model/results.ts";

describe("host facts", () => {
  it("parses the probe", () => {
    const out =
      "kernel=6.1.0-18-amd64\narch=x86_64\nnproc=8\ncpu=AMD  EPYC 7763 64-Core Processor\nvolfs=xfs\nvolopts=rw,noatime,attr2\n";
    expect(parseProbeOutput(out)).toEqual({
      kernel: "6.1.0-18-amd64",
      architecture: "x86_64",
      nproc: 8,
      cpuModel: "AMD EPYC 7763 64-Core Processor",
      volumeFs: "xfs",
      volumeMountOptions: "rw,noatime,attr2",
    });
    expect(parseProbeOutput("garbage\nnproc=x\n")).toEqual({});
    expect(probeCommand()[0]).toBe("sh");
  });
  it("merges the probe into engine info", () => {
    const m = mergeProbe(
      { id: "a", kernel: "6.1", cpus: 8 },
      { cpuModel: "EPYC", nproc: 4, volumeFs: "xfs" },
      "tcp://a:2375",
    );
    expect(m).toEqual({
      id: "a",
      kernel: "6.1",
      cpus: 8,
      cpuModel: "EPYC",
      nproc: 4,
      volumeFs: "xfs",
      engine: "tcp://a:2375",
    });
  });

  const b: HostFacts = {
    ...factsA,
    id: "b",
    kernel: "6.1.0-21-amd64",
    memoryBytes: 32 * 2 ** 30 - 50 * 2 ** 20,
    volumeMountOptions: "rw,noatime",
    engine: "tcp://b:2375",
  };
  it("side by side, marking what differs (the engine URL is not a fact of the machine)", () => {
    const rows = hostFactRows([factsA, b]);
    expect(rows.find((r) => r.field === "kernel")).toEqual({
      field: "kernel",
      values: { a: "6.1.0-18-amd64", b: "6.1.0-21-amd64" },
      equal: false,
    });
    expect(hostFactDiff([factsA, b]).map((r) => r.field)).toEqual(["kernel", "memory", "volume mount options"]);
  });
  it("sharding needs alike hosts; memory within 2% counts as alike", () => {
    expect(
      shardMismatches([factsA, { ...factsA, id: "b", engine: "x", memoryBytes: factsA.memoryBytes! * 0.99 }]),
    ).toEqual([]);
    expect(shardMismatches([factsA, b])).toEqual([
      "kernel: a=6.1.0-18-amd64, b=6.1.0-21-amd64",
      "volume mount options: a=rw,relatime, b=rw,noatime",
    ]);
    expect(shardMismatches([factsA, { ...factsA, id: "b", memoryBytes: 16 * 2 ** 30, cpuModel: undefined }])).toEqual([
      "cpu model: a=AMD EPYC 7763, b=(unknown)",
      "memory: a=32 GiB, b=16 GiB",
    ]);
  });
});
