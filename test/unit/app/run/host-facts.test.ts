/** The host-facts stage on the fake engine: a labelled probe container's output merged into run.json's host. */
import { describe, expect, it } from "vitest";
import { probeHost } from "../../../../src/app/run/host-facts.ts";
import type { ImageInfo } from "../../../../src/app/run/types.ts";
import type { HostFacts } from "../../../../src/core/model/results.ts";
import { memorySession, stageContext } from "../../../support/run-context.ts";

const loadImage = { tag: "twinbench/sysbench-1.0:x" } as ImageInfo;
const base: HostFacts = { id: "local", kernel: "6.18", cpus: 2, dockerVersion: "20.10", storageDriver: "overlay2" };
const PROBE = "kernel=6.1.0\nnproc=2\ncpu=Test CPU\nvolfs=ext4\n";

/** A context whose engine answers the probe container with `output` (or fails), recording what it ran. */
function probed(output: string | Error, deps = {}, signal?: AbortSignal) {
  const sc = stageContext({ deps, opts: { signal } });
  sc.engine.answerRun = () => {
    if (output instanceof Error) throw output;
    return { exitCode: 0, output, timedOut: false, cancelled: false };
  };
  return { ...sc, runs: sc.engine.runs };
}

describe("probeHost", () => {
  it("merges the probe's facts into the host, from a labelled container without a network", async () => {
    const { ctx, runs, engine, warnings } = probed(PROBE);
    ctx.runId = "r1";
    const { session, state } = memorySession({ hosts: [base] });
    await probeHost(ctx, session, loadImage);
    expect(state.manifest.hosts).toEqual([{ ...base, nproc: 2, cpuModel: "Test CPU", volumeFs: "ext4" }]);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({
      image: "twinbench/sysbench-1.0:x",
      network: { kind: "none" },
      labels: { "twinbench.run": "r1", "twinbench.role": "probe" },
    });
    expect(engine.volumeNames.size).toBe(0);
    expect(state.saves).toBe(1);
    expect(warnings()).toEqual([]);
  });

  it.each([
    ["a host probed already (multi-host)", [{ ...base, nproc: 8 }]],
    ["no host", []],
  ])("%s: no probe container", async (_, hosts) => {
    const { ctx, runs } = probed(PROBE);
    const { session, state } = memorySession({ hosts });
    await probeHost(ctx, session, loadImage);
    expect(runs).toEqual([]);
    expect(state.manifest.hosts).toEqual(hosts);
  });

  it("a failed probe keeps the engine's facts, with a warning", async () => {
    const { ctx, warnings } = probed(new Error("image missing"));
    const { session, state } = memorySession({ hosts: [base] });
    await probeHost(ctx, session, loadImage);
    expect(state.manifest.hosts).toEqual([base]);
    expect(warnings()).toEqual([
      "host facts: the probe container failed (image missing); run.json has engine info only",
    ]);
  });

  it("a cancelled run's failed probe is the cancel, not a warning", async () => {
    const ac = new AbortController();
    const { ctx, warnings } = probed(new Error("killed"), {}, ac.signal);
    ac.abort();
    await expect(probeHost(ctx, memorySession({ hosts: [base] }).session, loadImage)).rejects.toThrow("killed");
    expect(warnings()).toEqual([]);
  });

  it.each([
    ["counted", async () => ({ text: "Hardware counters per query: yes." }), "Hardware counters per query: yes."],
    [
      "a check that failed",
      async () => {
        throw new Error("perf missing");
      },
      "Hardware counters per query: not checked (the check failed: perf missing).",
    ],
  ])("hardware counters: %s is said as such", async (_, hardwareCounters, text) => {
    const { ctx } = probed(PROBE, { hardwareCounters });
    const { session, state } = memorySession({ hosts: [{ ...base }] });
    await probeHost(ctx, session, loadImage);
    expect(state.manifest.hosts[0]!.hardwareCounters).toBe(text);
  });
});
