/** The kernel facts of the host probe (scheduler, queue depth, THP, cpufreq, clocksource, cmdline, mitigations). */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  activeChoice,
  hostFactDiff,
  hostFactRows,
  kernelFactDifferences,
  mergeProbe,
  mitigationsSummary,
  parseProbeOutput,
  probeCommand,
} from "../../../src/core/hosts/facts.ts";
import type { HostFacts } from "../../../src/core/model/results.ts";

const FIX = join(dirname(fileURLToPath(import.meta.url)), "../../fixtures/hosts");
const probe = (f: string) => parseProbeOutput(readFileSync(join(FIX, f), "utf8"));

describe("probe output → kernel facts", () => {
  it("reads this lab machine's probe", () => {
    const p = probe("probe-kvm-vda.txt");
    expect(p.kernelFacts).toMatchObject({
      dataDevice: "vda",
      ioScheduler: "mq-deadline",
      nrRequests: "256",
      queueDepth: "unknown",
      rotational: "yes",
      thp: "madvise",
      thpDefrag: "madvise",
      cpufreqDriver: "unknown",
      cpufreqGovernor: "unknown",
      clocksource: "kvm-clock",
    });
    expect(p.kernelFacts!.kernelCmdline).toMatch(/^mitigations=auto,no_guest_host,no_guest_guest console=ttyS0 /);
    expect(p.kernelFacts!.mitigations).toMatchObject({
      meltdown: "Mitigation: PTI",
      spec_store_bypass: "Vulnerable",
      mds: "Not affected",
    });
    expect(Object.keys(p.kernelFacts!.mitigations)).toHaveLength(19);
    expect(mitigationsSummary(p.kernelFacts!.mitigations)).toBe("3 mitigated, 2 vulnerable, 14 not affected");
  });
  it("reads a SCSI partition's disk with a clamped tag depth, and unknown where the kernel has no file", () => {
    const p = probe("probe-scsi-partition.txt");
    expect(p.kernelFacts).toMatchObject({
      dataDevice: "sda",
      ioScheduler: "anticipatory",
      queueDepth: "4",
      nrRequests: "128",
      thp: "unknown",
      cpufreqGovernor: "performance",
      clocksource: "tsc",
    });
    expect(mitigationsSummary(p.kernelFacts!.mitigations)).toBe("unknown");
  });
  it("a volume on an anonymous device (overlay, tmpfs) has no block device", () => {
    const p = parseProbeOutput("volfs=tmpfs\ndevnum=0:52\nthp=[always] madvise never\nprobe=done\n");
    expect(p.kernelFacts).toMatchObject({
      dataDevice: "none (tmpfs file system, device 0:52)",
      ioScheduler: "unknown",
      thp: "always",
    });
  });
  it("a probe that did not finish records no kernel facts (not 'unknown' everywhere)", () => {
    expect(parseProbeOutput("kernel=6.1\nnproc=2\n").kernelFacts).toBeUndefined();
  });
  it("activeChoice", () => {
    expect(activeChoice("none [mq-deadline] kyber bfq")).toBe("mq-deadline");
    expect(activeChoice("performance\n")).toBe("performance");
  });
  it("the probe script reads the vulnerabilities, the mount's device and ends with probe=done", () => {
    const script = probeCommand()[2]!;
    expect(script).toContain("/sys/devices/system/cpu/vulnerabilities/*");
    expect(script).toContain("/proc/self/mountinfo");
    expect(script).toMatch(/echo "probe=done"$/);
  });
});

describe("kernel facts in the host-facts table and the diff", () => {
  const a: HostFacts = mergeProbe({ id: "a", kernel: "6.18.44" }, probe("probe-kvm-vda.txt"));
  const b: HostFacts = mergeProbe({ id: "b", kernel: "2.6.11-rc1" }, probe("probe-scsi-partition.txt"));
  it("rows for every kernel fact and one per vulnerability; the differing ones marked", () => {
    const rows = hostFactRows([a, b]);
    const io = rows.find((r) => r.field === "io scheduler")!;
    expect(io).toEqual({ field: "io scheduler", values: { a: "mq-deadline", b: "anticipatory" }, equal: false });
    expect(rows.find((r) => r.field === "queue depth")!.values).toEqual({ a: "unknown", b: "4" });
    expect(rows.find((r) => r.field === "mitigation: meltdown")!.values).toEqual({
      a: "Mitigation: PTI",
      b: "unknown",
    });
    expect(hostFactDiff([a, b]).map((r) => r.field)).toEqual(
      expect.arrayContaining([
        "kernel",
        "io scheduler",
        "transparent huge pages",
        "cpufreq governor",
        "clocksource",
        "kernel command line",
      ]),
    );
  });
  it("runs without kernel facts keep the old table", () => {
    const rows = hostFactRows([
      { id: "a", kernel: "6.1" },
      { id: "b", kernel: "6.1" },
    ]);
    expect(rows.some((r) => r.field === "io scheduler" || r.field.startsWith("mitigation"))).toBe(false);
  });
  it("compare's facts diff: the kernel facts that differ, nothing against an unprobed run", () => {
    const d = kernelFactDifferences(a, b);
    expect(d).toContainEqual({ field: "io scheduler", base: "mq-deadline", new: "anticipatory" });
    expect(d).toContainEqual({ field: "queue depth", base: "unknown", new: "4" });
    expect(kernelFactDifferences(a, { id: "old", kernel: "6.1" })).toEqual([]);
    expect(kernelFactDifferences(a, a)).toEqual([]);
  });
});
