/** Each server's memory limit (stated by `plan`) follows its buffer pool, overhead and tmpfs when the scenario sets none. */
import { describe, expect, it } from "vitest";
import { derivedServerLimitBytes, fitLines, fitScenario, resolvePools } from "../../../src/core/plan/fit.ts";
import { ScenarioSchema } from "../../../src/core/model/scenario/schema.ts";

const MiB = 2 ** 20;
const GiB = 2 ** 30;

describe("server memory limits", () => {
  const scenario = (over: Record<string, unknown> = {}) =>
    ScenarioSchema.parse({
      name: "t",
      servers: [
        { id: "a", image: "mariadb-11.8" },
        { id: "b", image: "mysql-9.7", config: { set: { innodb_buffer_pool_size: "2g" } } },
      ],
      storage: { kind: "tmpfs", size: "1g" },
      workload: { tests: ["oltp_read_only"], threads: [1, 8], duration: "5s" },
      ...over,
    });
  const neutral = "[mysqld]\ninnodb_buffer_pool_size = 1024M\n";

  it("without resources.server.memory: buffer pool + overhead + connections + tmpfs + headroom, per server", () => {
    expect(derivedServerLimitBytes({ poolBytes: GiB, tmpfsBytes: GiB, maxThreads: 8 })).toBe(
      2 * GiB + 256 * MiB + 8 * MiB + 512 * MiB,
    );
    const s = scenario();
    const f = fitScenario(s, resolvePools(s, neutral).pools, { memoryBytes: 64 * GiB });
    expect(f.servers.map((x) => x.containerLimitBytes)).toEqual([2 * GiB + 776 * MiB, 3 * GiB + 776 * MiB]);
    expect(fitLines(f).join("\n")).toMatch(
      /server memory limits \(no swap\): a 2\.8 GiB, b 3\.8 GiB = buffer pool \+ overhead \+ tmpfs \+ 512 MiB headroom/,
    );
  });

  it("resources.server.memory is the limit when set, and plan says so", () => {
    const s = scenario({ resources: { server: { memory: "6g" } } });
    const f = fitScenario(s, resolvePools(s, neutral).pools, { memoryBytes: 64 * GiB });
    expect(f.servers.map((x) => x.containerLimitBytes)).toEqual([6 * GiB, 6 * GiB]);
    expect(fitLines(f).join("\n")).toContain(
      "server memory limits (no swap; resources.server.memory): a 6.0 GiB, b 6.0 GiB",
    );
  });
});
