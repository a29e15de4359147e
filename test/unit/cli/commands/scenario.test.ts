/**
 * `twinbench plan` with the engine host's memory and cores (the fit section, src/core/plan/fit.ts): it prints the
 * plan and its fit, and exits 2 with PLAN_MEMORY_EXCEEDED after printing when the servers do not fit. The host's
 * facts come through the context, as the engine's would.
 */
import { describe, expect, it } from "vitest";
import { main } from "../../../../src/cli/main.ts";
import type { CliContext } from "../../../../src/cli/context.ts";
import type { HostResources } from "../../../../src/core/plan/fit.ts";

const GiB = 2 ** 30;

function context(host: HostResources) {
  const out: string[] = [];
  const err: string[] = [];
  const ctx = {
    out: (l: string) => out.push(l),
    err: (l: string) => err.push(l),
    readFile: async () => "",
    engine: () => {
      throw new Error("no engine in this test");
    },
    exitCode: 0 as const,
    isTTY: false,
    hostResources: async () => ({ host }),
  };
  return { ctx: ctx as CliContext, out, err };
}

describe("twinbench plan: memory and CPU fit", () => {
  it("aa-mariadb.yaml fits a 24 GiB, 2-CPU host and says where its servers share CPUs", async () => {
    const c = context({ id: "local", memoryBytes: 24 * GiB, cpus: 2 });
    expect(await main(["plan", "scenarios/aa-mariadb.yaml"], c.ctx)).toBe(0);
    const text = c.out.join("\n");
    expect(text).toContain(
      "Memory (host local: 24.0 GiB, 21.6 GiB after a 2.4 GiB reserve for the kernel, dockerd and twinbench):",
    );
    expect(text).toMatch(/needed 5\.6 GiB of 21\.6 GiB: fits/);
    expect(text).toContain("servers a, b share CPU 1");
  }, 60_000);

  it("on a 4 GiB host: the plan is printed, then PLAN_MEMORY_EXCEEDED with exit 2; --json carries the fit too", async () => {
    const c = context({ id: "local", memoryBytes: 4 * GiB, cpus: 2 });
    expect(await main(["plan", "scenarios/aa-mariadb.yaml"], c.ctx)).toBe(2);
    expect(c.out.join("\n")).toMatch(/needed 5\.6 GiB of 3\.0 GiB: DOES NOT FIT \(2\.6 GiB short\)/);
    const e = c.err.join("\n");
    expect(e).toContain(
      "error [PLAN_MEMORY_EXCEEDED]: 2 servers and the load need 5.6 GiB of memory, but host local has 3.0 GiB",
    );
    expect(e).toContain("  a: 2.8 GiB = buffer pool 512 MiB (config.set) + overhead 258 MiB + tmpfs 2.0 GiB");
    expect(e).toMatch(/hint: fewer servers \(2 now\)/);
    const j = context({ id: "local", memoryBytes: 4 * GiB, cpus: 2 });
    expect(await main(["plan", "scenarios/aa-mariadb.yaml", "--json"], j.ctx)).toBe(2);
    const json = JSON.parse(j.out.join("\n")) as { fit: { fits: boolean; servers: Array<{ id: string }> } };
    expect(json.fit.fits).toBe(false);
    expect(json.fit.servers.map((s) => s.id)).toEqual(["a", "b"]);
    // The same file with volumes instead of tmpfs fits that host.
    const v = context({ id: "local", memoryBytes: 4 * GiB, cpus: 2 });
    expect(await main(["plan", "scenarios/aa-mariadb.yaml", "--set", "storage={kind: volume}"], v.ctx)).toBe(0);
  }, 60_000);
});
