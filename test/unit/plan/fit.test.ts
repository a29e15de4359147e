/**
 * The memory and CPU fit of a scenario on its host (src/core/plan/fit.ts), on fixture scenarios and host facts:
 * fits, does not fit (the error's numbers, per server, and its hint), tmpfs counted and disk not, the memory limit
 * as a cap, the host reserve at its edge, every server of a ladder counted, the buffer pool from the resolved
 * config (the same value renderConfig writes), and the cpusets against the host's cores.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { Scenario } from "../../../src/core/model/scenario/schema.ts";
import {
  assertFits,
  DEFAULT_FIT_COSTS,
  fitLines,
  fitScenario,
  resolvePools,
  type FitReport,
} from "../../../src/core/plan/fit.ts";
import { renderConfig, resolveNeutralOption } from "../../../src/core/config/render.ts";
import { InputError } from "../../../src/core/base/errors.ts";
import {
  SERVERS_BY_FAMILY,
  TEST_CONTEXT,
  scenario as scenarioOf,
  type ScenarioOverrides,
} from "../../support/scenario.ts";

const MiB = 2 ** 20;
const GiB = 2 ** 30;
const LAB = readFileSync(new URL("../../../lab/my.cnf", import.meta.url), "utf8");

const scenario = (over: ScenarioOverrides = {}): Scenario =>
  scenarioOf(
    [
      {
        servers: SERVERS_BY_FAMILY,
        config: { set: { innodb_buffer_pool_size: "512M" } },
        storage: { kind: "tmpfs", size: "2g" },
        resources: { server: { cpuset: "1", memory: "4g" }, load: { cpuset: "0" } },
        workload: { tests: ["oltp_read_only"], threads: [1, 4], duration: "7s" },
      },
      over,
    ],
    // no host CPU count: the cpusets are not checked against this host
    { ctx: { lockImages: TEST_CONTEXT.lockImages } },
  );

const fit = (s: Scenario, host: { memoryBytes?: number; cpus?: number }, neutral = LAB): FitReport =>
  fitScenario(s, resolvePools(s, neutral).pools, { id: "h", ...host });
const thrown = (f: () => void): InputError => {
  try {
    f();
  } catch (e) {
    return e as InputError;
  }
  throw new Error("did not throw");
};

describe("fitScenario: memory", () => {
  it("quick.yaml's layout fits a 24 GiB host: pool + overhead + tmpfs per server, the load once", () => {
    const f = fit(scenario(), { memoryBytes: 24 * GiB, cpus: 2 });
    const overhead = DEFAULT_FIT_COSTS.serverOverheadBytes + 4 * DEFAULT_FIT_COSTS.perConnectionBytes;
    expect(
      f.servers.map((s) => [s.id, s.bufferPoolBytes, s.poolSource, s.overheadBytes, s.tmpfsBytes, s.countedBytes]),
    ).toEqual([
      ["mariadb", 512 * MiB, "config.set", overhead, 2 * GiB, 512 * MiB + overhead + 2 * GiB],
      ["mysql", 512 * MiB, "config.set", overhead, 2 * GiB, 512 * MiB + overhead + 2 * GiB],
    ]);
    expect(f.loadBytes).toBe(DEFAULT_FIT_COSTS.loadBaseBytes + 4 * DEFAULT_FIT_COSTS.loadPerThreadBytes);
    expect(f.neededBytes).toBe(2 * (512 * MiB + overhead + 2 * GiB) + f.loadBytes);
    expect(f.reserveBytes).toBe(Math.round(24 * GiB * 0.1));
    expect(f.fits).toBe(true);
    expect(() => assertFits(f)).not.toThrow();
  });

  it("does not fit: PLAN_MEMORY_EXCEEDED names needed and available, each server's parts, and what to change", () => {
    const f = fit(scenario({ storage: { kind: "tmpfs", size: "3g" } }), { memoryBytes: 8 * GiB, cpus: 2 });
    expect(f.fits).toBe(false);
    const e = thrown(() => assertFits(f));
    expect(e).toBeInstanceOf(InputError);
    expect(e.code).toBe("PLAN_MEMORY_EXCEEDED");
    expect(e.message).toBe(
      "2 servers and the load need 7.6 GiB of memory, but host h has 7.0 GiB (8.0 GiB less a 1.0 GiB reserve): 592 MiB short",
    );
    expect(e.details).toEqual([
      "mariadb: 3.8 GiB = buffer pool 512 MiB (config.set) + overhead 260 MiB + tmpfs 3.0 GiB",
      "mysql: 3.8 GiB = buffer pool 512 MiB (config.set) + overhead 260 MiB + tmpfs 3.0 GiB",
      "load: 72 MiB",
    ]);
    expect(e.hint).toBe(
      "fewer servers (2 now); or a smaller innodb_buffer_pool_size (config.set); or storage: { kind: volume } instead of tmpfs (6.0 GiB of RAM), or a smaller tmpfs size; or a smaller resources.server.memory",
    );
  });

  it("tmpfs is counted, a volume or RAID 0 data dir is not; a per-server storage counts for that server only", () => {
    const tmpfs = fit(scenario(), { memoryBytes: 24 * GiB });
    const volume = fit(scenario({ storage: { kind: "volume" } }), { memoryBytes: 24 * GiB });
    const raid = fit(scenario({ storage: { kind: "raid0", loop: { members: 2, size: "4g" } } }), {
      memoryBytes: 24 * GiB,
    });
    expect(tmpfs.neededBytes - volume.neededBytes).toBe(2 * 2 * GiB);
    expect(raid.neededBytes).toBe(volume.neededBytes);
    const mixed = fit(
      scenario({
        storage: { kind: "volume" },
        servers: [
          { id: "mariadb", image: "mariadb-11.8", storage: { kind: "tmpfs", size: "1g" } },
          { id: "mysql", image: "mysql-9.7" },
        ],
      }),
      { memoryBytes: 24 * GiB },
    );
    expect(mixed.servers.map((s) => s.tmpfsBytes)).toEqual([GiB, 0]);
  });

  it("resources.server.memory caps what a server can hold; without it the sum counts", () => {
    const capped = fit(scenario({ storage: { kind: "volume" }, resources: { server: { memory: "600m" } } }), {
      memoryBytes: 24 * GiB,
    });
    expect(capped.servers.map((s) => s.countedBytes)).toEqual([600 * MiB, 600 * MiB]);
    const free = fit(scenario({ resources: {} }), { memoryBytes: 24 * GiB });
    expect(free.servers[0]!.countedBytes).toBe(512 * MiB + 260 * MiB + 2 * GiB);
    expect(free.servers[0]!.limitBytes).toBeUndefined();
    // A load limit below the estimate is what the load can hold.
    expect(fit(scenario({ resources: { load: { memory: "32m" } } }), { memoryBytes: 24 * GiB }).loadBytes).toBe(
      32 * MiB,
    );
  });

  it("margins: the reserve is the larger of 1 GiB and 10%; needed equal to available fits, one byte more does not", () => {
    expect(fit(scenario(), { memoryBytes: 8 * GiB }).reserveBytes).toBe(GiB);
    expect(fit(scenario(), { memoryBytes: 32 * GiB }).reserveBytes).toBe(Math.round(3.2 * GiB));
    const need = fit(scenario(), { memoryBytes: 24 * GiB }).neededBytes;
    // Below 10 GiB the 1 GiB floor is the reserve: available = memory − 1 GiB.
    expect(need + GiB).toBeLessThan(10 * GiB);
    expect(fit(scenario(), { memoryBytes: need + GiB }).fits).toBe(true);
    expect(fit(scenario(), { memoryBytes: need + GiB - 1 }).fits).toBe(false);
    // Every figure comes from the costs: a larger overhead needs that much more per server.
    const s = scenario();
    const more = fitScenario(
      s,
      resolvePools(s, LAB).pools,
      { memoryBytes: 24 * GiB },
      { serverOverheadBytes: 512 * MiB },
    );
    expect(more.neededBytes - need).toBe(2 * 256 * MiB);
  });

  it("every server of `servers` counts (a compare: { base } ladder starts them all): three fit where two did and four do not", () => {
    const three = [
      { id: "a", image: "mariadb-11.8" },
      { id: "b", image: "mariadb-10.11" },
      { id: "c", image: "mysql-9.7" },
    ];
    const host = { memoryBytes: 12 * GiB };
    const f3 = fit(scenario({ servers: three }), host);
    expect(f3.servers.map((s) => s.id)).toEqual(["a", "b", "c"]);
    expect(f3.fits).toBe(true);
    const f4 = fit(scenario({ servers: [...three, { id: "d", image: "mysql-9.7" }] }), host);
    expect(f4.fits).toBe(false);
    expect(thrown(() => assertFits(f4)).message).toMatch(
      /^4 servers and the load need 11\.1 GiB of memory, but host h has 10\.8 GiB/,
    );
  });

  it("host memory unknown: not checked, nothing refused, and plan says so", () => {
    const f = fit(scenario({ storage: { kind: "tmpfs", size: "900g" }, resources: {} }), {});
    expect(f.fits).toBeUndefined();
    expect(() => assertFits(f)).not.toThrow();
    expect(fitLines(f)[0]).toBe("Memory (host h's memory unknown: not checked):");
  });
});

describe("resolvePools: the buffer pool from the resolved config", () => {
  it("base file, then config.set, then servers[].config.set; absent everywhere: the server default", () => {
    const s = scenario({
      config: {},
      servers: [
        { id: "mariadb", image: "mariadb-11.8", config: { set: { "innodb-buffer-pool-size": "2G" } } },
        { id: "mysql", image: "mysql-9.7" },
      ],
    });
    const { pools, warnings } = resolvePools(s, LAB);
    expect(pools.mariadb).toEqual({ bytes: 2 * GiB, source: "servers.mariadb.config.set" });
    expect(pools.mysql).toEqual({ bytes: 1024 * MiB, source: expect.stringMatching(/^lab\/my\.cnf:\d+$/) });
    expect(warnings).toEqual([]);
    expect(resolvePools(s, "[mysqld]\nport = 3306\n").pools.mysql).toEqual({
      bytes: 128 * MiB,
      source: "server default",
    });
    const bad = resolvePools(scenario({ config: { set: { innodb_buffer_pool_size: "lots" } } }), LAB);
    expect(bad.pools.mysql!.bytes).toBe(128 * MiB);
    expect(bad.warnings[0]).toMatch(/innodb_buffer_pool_size=lots \(config.set\) is not a size/);
  });

  it("is the value renderConfig writes into each family's cnf", () => {
    const s = scenario({
      servers: [
        { id: "mariadb", image: "mariadb-11.8", config: { set: { innodb_buffer_pool_size: "768M" } } },
        { id: "mysql", image: "mysql-9.7" },
      ],
    });
    for (const [id, family, version] of [
      ["mariadb", "mariadb", "11.8.9"],
      ["mysql", "mysql", "9.7.4"],
    ] as const) {
      const rendered = renderConfig({
        neutral: LAB,
        family,
        version,
        storageKind: "tmpfs",
        scenario: s,
        serverId: id,
      }).options.find((o) => o.name === "innodb_buffer_pool_size");
      expect(resolveNeutralOption({ neutral: LAB, scenario: s, serverId: id }, "innodb_buffer_pool_size")?.value).toBe(
        rendered?.value,
      );
    }
  });
});

describe("fitScenario: CPUs", () => {
  it("says that servers share the one server cpuset, paused or not, and where the load runs", () => {
    expect(fit(scenario(), { memoryBytes: 24 * GiB, cpus: 2 }).cpu.sharing).toEqual([
      "servers mariadb, mysql share CPU 1: one resources.server.cpuset for every server; idle servers are paused, so only the measured one runs there",
      "the load runs on CPU 0, which no server uses",
    ]);
    const overlap = fit(
      scenario({ resources: { server: { cpuset: "0-1" }, load: { cpuset: "1" }, pauseIdle: false } }),
      { cpus: 2 },
    );
    expect(overlap.cpu.sharing).toEqual([
      "servers mariadb, mysql share CPUs 0,1: one resources.server.cpuset for every server; resources.pauseIdle is false, so idle servers run beside the measured one",
      "the load shares CPU 1 with the servers: sysbench competes with the measured server there",
    ]);
    const none = fit(scenario({ resources: {}, compare: "runs", servers: [{ id: "mysql", image: "mysql-9.7" }] }), {
      cpus: 2,
    });
    expect(none.cpu.sharing).toEqual([
      "server mysql has no cpuset: it runs on all 2 CPUs",
      "the load has no cpuset: sysbench runs on all 2 CPUs, beside the servers",
    ]);
  });

  it("a cpuset beyond the host's cores is refused with PLAN_CPU_MISSING (the engine host's count, not this machine's)", () => {
    const f = fit(scenario({ resources: { server: { cpuset: "2-3" }, load: { cpuset: "0" } } }), {
      memoryBytes: 24 * GiB,
      cpus: 2,
    });
    expect(f.cpu.missing).toEqual([{ who: "server", cpus: [2, 3] }]);
    const e = thrown(() => assertFits(f));
    expect(e.code).toBe("PLAN_CPU_MISSING");
    expect(e.message).toBe("resources.server.cpuset asks for CPUs 2,3, but host h has 2 CPUs (0-1)");
    expect(fitLines(f)).toContain("  resources.server.cpuset asks for CPUs 2,3, which the host does not have");
    expect(() =>
      assertFits(fit(scenario({ resources: { server: { cpuset: "2-3" } } }), { memoryBytes: 24 * GiB })),
    ).not.toThrow();
  });
});
