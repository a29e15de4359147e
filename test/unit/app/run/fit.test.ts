/**
 * The fit stage (src/app/run/fit.ts) on the fake engine: the servers against the engine host's memory and CPUs,
 * refused before anything exists; an engine that gives no facts skips the check with a warning.
 */
import { describe, expect, it } from "vitest";
import { checkFit } from "../../../../src/app/run/fit.ts";
import { RunContext } from "../../../../src/app/run/context.ts";
import type { RunDeps } from "../../../../src/app/run/types.ts";
import type { Plan } from "../../../../src/core/plan/plan.ts";
import type { RunEvent } from "../../../../src/core/model/events.ts";
import type { HostFacts } from "../../../../src/core/model/results.ts";
import { FakeEngine } from "../../../support/fake-engine.ts";
import { scenario } from "../../../support/scenario.ts";

const GiB = 2 ** 30;

/** A run context over the fake engine, whose facts() answers `facts` (or fails with it), and the events it emits. */
function context(facts: Partial<HostFacts> | Error, over: Parameters<typeof scenario>[0] = {}) {
  const engine = new FakeEngine();
  engine.facts = async () => {
    if (facts instanceof Error) throw facts;
    return { id: "local", kernel: "6.18", cpus: 2, dockerVersion: "20.10", storageDriver: "overlay2", ...facts };
  };
  const events: RunEvent[] = [];
  const s = scenario([
    {
      config: { set: { innodb_buffer_pool_size: "1G" } },
      resources: { server: { cpuset: "1" }, load: { cpuset: "0" } },
    },
    over,
  ]);
  const ctx = new RunContext(
    { engine } as unknown as RunDeps,
    { scenario: s, neutralCnf: "", outDir: "/nonexistent", onEvent: (e) => events.push(e) },
    {} as Plan,
  );
  return { ctx, events };
}
const warnings = (events: RunEvent[]) => events.flatMap((e) => (e.type === "warning" ? [e.message] : []));

describe("checkFit", () => {
  it("passes quietly when the servers fit the host", async () => {
    const { ctx, events } = context({ memoryBytes: 64 * GiB, cpus: 2 });
    await expect(checkFit(ctx)).resolves.toBeUndefined();
    expect(warnings(events)).toEqual([]);
  });

  it("refuses servers whose memory is over the host's, naming the host", async () => {
    const { ctx } = context({ id: "small", memoryBytes: 1 * GiB, cpus: 2 });
    const e = await checkFit(ctx).catch((x: unknown) => x);
    expect(e).toMatchObject({ code: "PLAN_MEMORY_EXCEEDED" });
    expect((e as Error).message).toContain("host small");
  });

  it("refuses a cpuset naming a CPU the host does not have", async () => {
    const { ctx } = context({ memoryBytes: 64 * GiB, cpus: 1 });
    const e = await checkFit(ctx).catch((x: unknown) => x);
    expect(e).toMatchObject({ code: "PLAN_CPU_MISSING" });
    expect((e as Error).message).toContain("resources.server.cpuset asks for CPU 1, but host local has 1 CPUs (0-0)");
  });

  it("an engine that gives no facts: the check is skipped with a warning that says why", async () => {
    const { ctx, events } = context(new Error("connect ECONNREFUSED"));
    await expect(checkFit(ctx)).resolves.toBeUndefined();
    expect(warnings(events)).toEqual(["memory check skipped: the engine gave no facts (connect ECONNREFUSED)"]);
  });
});
