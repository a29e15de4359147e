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
});
