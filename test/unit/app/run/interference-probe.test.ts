/** A cell's CPU sampler: the window is sysbench's own lines, a failure is said on the cell, absence is not one. */
import { describe, expect, it } from "vitest";
import { interferenceProbe } from "../../../../src/app/run/interference-probe.ts";
import type { CpuSample } from "../../../../src/core/measure/interference.ts";
import { stageContext } from "../../../support/run-context.ts";

const PROC_STAT = (busy: number) =>
  `cpu  ${busy} 0 0 ${10000 - busy} 0 0 0 0 0 0\ncpu0 ${busy} 0 0 ${5000 - busy} 0 0 0 0 0 0\n`;

/** Samples one second apart: the server burns 0.9 core, the sidecar 0.2. */
function sampler() {
  let n = 0;
  return (ids: readonly string[]): CpuSample => {
    const t = n++;
    return {
      atMs: 1000 * t,
      procStat: PROC_STAT(100 * t),
      psiCpu: null,
      containersNs: Object.fromEntries(ids.map((id) => [id, (id === "srv" ? 0.9e9 : 0.2e9) * t])),
      selfUs: 0,
    };
  };
}

describe("interferenceProbe", () => {
  it("no sampler: no probe", () => {
    const { ctx } = stageContext();
    expect(interferenceProbe(ctx, () => ["srv"], "srv")).toBeUndefined();
  });

  it("the window runs from sysbench's first line to its last per-second line", () => {
    const { ctx } = stageContext({ deps: { cpuSampler: sampler() } });
    const p = interferenceProbe(ctx, () => ["srv"], "srv")!;
    p.created("side");
    p.line(null); // the first line opens the window
    p.line(1);
    p.line(2);
    expect(p.cpu()).toEqual({ wallS: 2, serverCores: 0.9, loadCores: 0.2 });
    expect(p.error()).toBeUndefined();
  });

  it("a sampler that fails for another reason than absence says so on the cell", () => {
    const fail = () => {
      throw Object.assign(new Error("permission denied"), { code: "EACCES" });
    };
    const { ctx } = stageContext({ deps: { cpuSampler: fail } });
    const p = interferenceProbe(ctx, () => ["srv"], "srv")!;
    p.created("side");
    p.line(null);
    expect(p.error()).toBe("CPU sampler failed: permission denied");
    expect(p.result()).toBeUndefined();
  });

  it("no /proc (absence): no figures and no failure", () => {
    const absent = () => {
      throw Object.assign(new Error("no such file"), { code: "ENOENT" });
    };
    const { ctx } = stageContext({ deps: { cpuSampler: absent } });
    const p = interferenceProbe(ctx, () => ["srv"], "srv")!;
    p.created("side");
    p.line(null);
    p.line(1);
    expect(p.error()).toBeUndefined();
    expect(p.cpu()).toBeUndefined();
  });

  it("with the speed probe running: the server's CPU speed over the same window, from its cpuset's samples only", () => {
    const { ctx } = stageContext({ deps: { cpuSampler: sampler() } });
    // CPU 1 (the server's) at 100 µs inside the window (0-2000 ms) and 300 µs outside it; CPU 0 is not the server's.
    const samples = [0, 500, 1000, 1500, 2000, 2500, 3000].flatMap((atMs) => [
      { atMs, cpu: 1, workUs: atMs <= 2000 ? 100 : 300 },
      { atMs, cpu: 0, workUs: 50 },
    ]);
    ctx.speed = {
      cpus: [0, 1],
      samples: (from, to) => samples.filter((s) => s.atMs >= from && s.atMs <= to),
      error: () => undefined,
      ready: async () => {},
      stop: async () => {},
    };
    const p = interferenceProbe(ctx, () => ["srv"], "srv", 0, "1")!;
    p.created("side");
    p.line(null);
    p.line(1);
    p.line(2);
    expect(p.result()?.cpuSpeed).toEqual({ workUs: 100, fastestUs: 100, slowestUs: 100, samples: 5, cpus: [1] });
    // Unwatched: no speed on the cell.
    const { ctx: plain } = stageContext({ deps: { cpuSampler: sampler() } });
    const q = interferenceProbe(plain, () => ["srv"], "srv", 0, "1")!;
    q.created("side");
    q.line(null);
    q.line(1);
    expect(q.result()?.cpuSpeed).toBeUndefined();
  });
});
