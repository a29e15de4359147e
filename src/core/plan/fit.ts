/**
 * Does a scenario fit its host? (pure) Memory for every server of `servers` (a `compare: { base }` ladder starts
 * them all, and idle servers are paused, not stopped, so all of them hold their memory at once) and the load
 * sidecar, against the host's memory; the cpusets against the host's cores, and where servers share CPUs.
 * The host's memory and cores come in as facts (the engine's `info`: MemTotal, NCPU); `plan` prints the result and
 * `run` refuses, before anything is created, a scenario that does not fit ({@link assertFits}).
 *
 * Per server it counts, as configured (the pool is allocated as it fills, so this is what a server can reach):
 *   innodb_buffer_pool_size (the resolved config: base file → profile → config.set → servers[].config.set)
 *   + a per-server overhead (mysqld outside the pool, connection threads, the holder container)
 *   + the tmpfs size when its data dir is tmpfs (tmpfs pages are RAM; a volume, bind or RAID 0 data dir is disk)
 * capped by resources.server.memory when set (the container cannot hold more; validate warns when it is too small).
 * Once: the load sidecar (resources.load.memory, else an estimate from the thread count). The host keeps a reserve
 * for the kernel, dockerd and twinbench itself. Memory that other processes use is not subtracted: the check is
 * of the layout, the same on every run on the same host.
 */
import { InputError } from "../base/errors.ts";
import { formatBytes } from "../base/units.ts";
import { cpusetCores } from "../measure/cellstate.ts";
import { parseSize, type Scenario } from "../model/scenario/schema.ts";
import { textTable } from "../base/text-table.ts";
import { resolveNeutralOption } from "../config/render.ts";

const MiB = 2 ** 20;
const GiB = 2 ** 30;

/** The figures the memory check uses beyond the configured ones (estimates, named so the plan can print them). */
export interface FitCosts {
  /**
   * Per server, outside the buffer pool: mysqld's own structures, log buffer, dictionary, the holder container
   * (measured on this project's VM, quick.yaml with a 512 MiB pool: MySQL 9.7 at 684 MiB and MariaDB 11.8 at 141 MiB of
   * container memory, tmpfs pages included; the holders under 1 MiB).
   */
  serverOverheadBytes: number;
  /** Per server and connection of the highest thread count: thread stack and network buffers. */
  perConnectionBytes: number;
  /** The load sidecar without resources.load.memory: sysbench itself ... */
  loadBaseBytes: number;
  /** ... plus this per thread of the highest thread count (a Lua state each). */
  loadPerThreadBytes: number;
  /** Kept back for the kernel, dockerd and twinbench: the larger of this ... */
  hostReserveBytes: number;
  /** ... and this share of the host's memory. */
  hostReserveShare: number;
}

export const DEFAULT_FIT_COSTS: Readonly<FitCosts> = {
  serverOverheadBytes: 256 * MiB,
  perConnectionBytes: 1 * MiB,
  loadBaseBytes: 64 * MiB,
  loadPerThreadBytes: 2 * MiB,
  hostReserveBytes: 1 * GiB,
  hostReserveShare: 0.1,
};

/**
 * Headroom of a server's derived memory limit above what the fit counts for it (pool + overhead + tmpfs): mysqld's
 * allocations beyond the estimate (sort and join buffers, the dictionary cache) get room before the kernel's OOM
 * killer ends the server.
 */
export const SERVER_LIMIT_HEADROOM_BYTES = 512 * MiB;

/**
 * The memory limit (docker --memory, no swap) of a server container when resources.server.memory is not set: its
 * buffer pool, the per-server overhead and connections, its tmpfs data dir (tmpfs pages count against the
 * container) and {@link SERVER_LIMIT_HEADROOM_BYTES}. A server can then never take the host's memory from the others.
 */
export function derivedServerLimitBytes(
  o: { poolBytes: number; tmpfsBytes: number; maxThreads: number },
  costs: Partial<FitCosts> = {},
): number {
  const c: FitCosts = { ...DEFAULT_FIT_COSTS, ...costs };
  return (
    o.poolBytes +
    o.tmpfsBytes +
    c.serverOverheadBytes +
    o.maxThreads * c.perConnectionBytes +
    SERVER_LIMIT_HEADROOM_BYTES
  );
}

/** The engine host's resources, as its facts give them (undefined: unknown, not checked). */
export interface HostResources {
  id?: string;
  memoryBytes?: number;
  cpus?: number;
}

/** One server's resolved buffer pool (bytes), and where the value came from. */
export interface ServerPool {
  bytes: number;
  /** `lab/my.cnf:23`, `config.set`, `servers.a.config.set`, or `server default`. */
  source: string;
}

/** The server default when no layer sets innodb_buffer_pool_size (MariaDB and MySQL: 128 MiB). */
export const DEFAULT_POOL_BYTES = 128 * MiB;

/**
 * Each server's innodb_buffer_pool_size from its resolved config (the neutral text of config.base and the
 * scenario's layers), in bytes. A value that is not a size is counted as the server default, with a warning.
 */
export function resolvePools(
  scenario: Scenario,
  neutral: string,
  neutralSource?: string,
): { pools: Record<string, ServerPool>; warnings: string[] } {
  const pools: Record<string, ServerPool> = {};
  const warnings: string[] = [];
  for (const s of scenario.servers) {
    const r = resolveNeutralOption({ neutral, scenario, serverId: s.id, neutralSource }, "innodb_buffer_pool_size");
    const bytes = r?.value == null ? undefined : parseSize(r.value);
    if (r && bytes === undefined)
      warnings.push(
        `${s.id}: innodb_buffer_pool_size=${String(r.value)} (${r.source}) is not a size the memory check reads; counted as the server default ${formatBytes(DEFAULT_POOL_BYTES)}`,
      );
    pools[s.id] =
      r && bytes !== undefined ? { bytes, source: r.source } : { bytes: DEFAULT_POOL_BYTES, source: "server default" };
  }
  return { pools, warnings };
}

export interface ServerMemory {
  id: string;
  bufferPoolBytes: number;
  poolSource: string;
  overheadBytes: number;
  /** 0 unless the data dir is tmpfs. */
  tmpfsBytes: number;
  limitBytes?: number;
  /** What is counted for this server: pool + overhead + tmpfs, capped by the limit. */
  countedBytes: number;
  /** The container's memory limit: resources.server.memory, else derived ({@link derivedServerLimitBytes}). */
  containerLimitBytes: number;
}

export interface CpuFit {
  hostCpus?: number;
  /** The CPUs of resources.server.cpuset (every server gets the same one); undefined: no cpuset (any CPU). */
  serverCpus?: number[];
  loadCpus?: number[];
  /** CPUs of a cpuset that the host does not have. */
  missing: Array<{ who: "server" | "load"; cpus: number[] }>;
  /** One sentence each: where servers (and the load) share CPUs. */
  sharing: string[];
}

export interface FitReport {
  host: HostResources;
  servers: ServerMemory[];
  loadBytes: number;
  /** Whether the load's figure is resources.load.memory (a limit) or the estimate. */
  loadLimited: boolean;
  neededBytes: number;
  reserveBytes?: number;
  /** Host memory less the reserve; undefined when the host's memory is unknown. */
  availableBytes?: number;
  /** undefined: not checked (host memory unknown). */
  fits?: boolean;
  cpu: CpuFit;
  costs: FitCosts;
}

/** "0-2,5" → [0, 1, 2, 5]; undefined for no cpuset or an unreadable one (validate refuses those). */
function cpuList(v: string | undefined): number[] | undefined {
  if (v === undefined || cpusetCores(v) === null) return undefined;
  return v.split(",").flatMap((part) => {
    const [a, b] = part.split("-").map(Number) as [number, number | undefined];
    return Array.from({ length: (b ?? a) - a + 1 }, (_, i) => a + i);
  });
}

const list = (cpus: number[]) => (cpus.length === 1 ? `CPU ${cpus[0]}` : `CPUs ${cpus.join(",")}`);

/**
 * The fit of a scenario on a host: per-server memory (every server of `servers`), the load, the host's memory less
 * its reserve, and the CPU layout. `pools` gives each server's resolved innodb_buffer_pool_size (absent: the server
 * default).
 */
export function fitScenario(
  scenario: Scenario,
  pools: Readonly<Record<string, ServerPool>>,
  host: HostResources,
  costs: Partial<FitCosts> = {},
): FitReport {
  const c: FitCosts = { ...DEFAULT_FIT_COSTS, ...costs };
  const maxThreads = Math.max(...scenario.workload.threads);
  const limit =
    scenario.resources.server.memory === undefined ? undefined : parseSize(scenario.resources.server.memory);
  const servers = scenario.servers.map((s): ServerMemory => {
    const storage = s.storage ?? scenario.storage;
    const pool = pools[s.id] ?? { bytes: DEFAULT_POOL_BYTES, source: "server default" };
    const overheadBytes = c.serverOverheadBytes + maxThreads * c.perConnectionBytes;
    const tmpfsBytes = storage.kind === "tmpfs" ? (parseSize(storage.size) ?? 0) : 0;
    const sum = pool.bytes + overheadBytes + tmpfsBytes;
    return {
      id: s.id,
      bufferPoolBytes: pool.bytes,
      poolSource: pool.source,
      overheadBytes,
      tmpfsBytes,
      ...(limit !== undefined ? { limitBytes: limit } : {}),
      countedBytes: limit !== undefined ? Math.min(limit, sum) : sum,
      containerLimitBytes: limit ?? derivedServerLimitBytes({ poolBytes: pool.bytes, tmpfsBytes, maxThreads }, costs),
    };
  });
  const loadLimit =
    scenario.resources.load.memory === undefined ? undefined : parseSize(scenario.resources.load.memory);
  const loadEstimate = c.loadBaseBytes + maxThreads * c.loadPerThreadBytes;
  const loadBytes = loadLimit !== undefined ? Math.min(loadLimit, loadEstimate) : loadEstimate;
  const neededBytes = servers.reduce((a, s) => a + s.countedBytes, 0) + loadBytes;
  const mem = host.memoryBytes !== undefined && host.memoryBytes > 0 ? host.memoryBytes : undefined;
  const reserveBytes =
    mem === undefined ? undefined : Math.max(c.hostReserveBytes, Math.round(mem * c.hostReserveShare));
  const availableBytes = mem === undefined ? undefined : Math.max(0, mem - reserveBytes!);
  return {
    host,
    servers,
    loadBytes,
    loadLimited: loadLimit !== undefined && loadLimit <= loadEstimate,
    neededBytes,
    ...(reserveBytes !== undefined ? { reserveBytes, availableBytes } : {}),
    ...(availableBytes !== undefined ? { fits: neededBytes <= availableBytes } : {}),
    cpu: cpuFit(scenario, host),
    costs: c,
  };
}

function cpuFit(scenario: Scenario, host: HostResources): CpuFit {
  const r = scenario.resources;
  const serverCpus = cpuList(r.server.cpuset);
  const loadCpus = cpuList(r.load.cpuset);
  const hostCpus = host.cpus !== undefined && host.cpus > 0 ? host.cpus : undefined;
  const missing: CpuFit["missing"] = [];
  if (hostCpus !== undefined) {
    for (const [who, cpus] of [
      ["server", serverCpus],
      ["load", loadCpus],
    ] as const) {
      const out = (cpus ?? []).filter((x) => x >= hostCpus);
      if (out.length) missing.push({ who, cpus: out });
    }
  }
  const ids = scenario.servers.map((s) => s.id);
  const sharing: string[] = [];
  const paused = r.pauseIdle !== false;
  const all = hostCpus !== undefined ? `all ${hostCpus} CPUs` : "every CPU";
  if (ids.length > 1) {
    const where = serverCpus ? list(serverCpus) : `${all} (no resources.server.cpuset)`;
    sharing.push(
      `servers ${ids.join(", ")} share ${where}: one resources.server.cpuset for every server; ` +
        (paused
          ? "idle servers are paused, so only the measured one runs there"
          : "resources.pauseIdle is false, so idle servers run beside the measured one"),
    );
  } else
    sharing.push(
      serverCpus ? `server ${ids[0]} runs on ${list(serverCpus)}` : `server ${ids[0]} has no cpuset: it runs on ${all}`,
    );
  if (serverCpus && loadCpus) {
    const both = serverCpus.filter((x) => loadCpus.includes(x));
    sharing.push(
      both.length
        ? `the load shares ${list(both)} with the servers: sysbench competes with the measured server there`
        : `the load runs on ${list(loadCpus)}, which no server uses`,
    );
  } else if (!loadCpus) sharing.push(`the load has no cpuset: sysbench runs on ${all}, beside the servers`);
  else sharing.push(`the servers have no cpuset: they run on ${all}, the load's ${list(loadCpus)} included`);
  if (r.load.cpus !== undefined)
    sharing.push(
      `the load's CPU quota (resources.load.cpus) is ${r.load.cpus} core${r.load.cpus === 1 ? "" : "s"}: sysbench gets at most that much CPU time`,
    );
  return {
    ...(hostCpus !== undefined ? { hostCpus } : {}),
    ...(serverCpus ? { serverCpus } : {}),
    ...(loadCpus ? { loadCpus } : {}),
    missing,
    sharing,
  };
}

/** `plan`'s memory and CPU section. */
export function fitLines(f: FitReport): string[] {
  const b = (n: number) => formatBytes(n, "coarse");
  const hostName = f.host.id ? `host ${f.host.id}` : "the host";
  const out: string[] = [];
  const head =
    f.availableBytes === undefined
      ? `Memory (${hostName}'s memory unknown: not checked):`
      : `Memory (${hostName}: ${b(f.host.memoryBytes!)}, ${b(f.availableBytes)} after a ${b(f.reserveBytes!)} reserve for the kernel, dockerd and twinbench):`;
  out.push(head);
  const rows = f.servers.map((s) => [
    s.id,
    `${b(s.bufferPoolBytes)} (${s.poolSource})`,
    b(s.overheadBytes),
    s.tmpfsBytes ? b(s.tmpfsBytes) : "-",
    s.limitBytes !== undefined ? b(s.limitBytes) : "-",
    b(s.countedBytes),
  ]);
  rows.push(["load", "-", "-", "-", f.loadLimited ? b(f.loadBytes) : "-", b(f.loadBytes)]);
  out.push(
    ...textTable(rows, {
      head: [["server", "buffer pool", "overhead", "tmpfs", "limit", "counted"]],
      columns: [{}, {}, { align: "right" }, { align: "right" }, { align: "right" }, { align: "right" }],
      indent: "  ",
    }),
  );
  const verdict =
    f.fits === undefined
      ? "not checked"
      : f.fits
        ? `fits (${b(f.availableBytes! - f.neededBytes)} to spare)`
        : `DOES NOT FIT (${b(f.neededBytes - f.availableBytes!)} short)`;
  out.push(`  needed ${b(f.neededBytes)} of ${f.availableBytes === undefined ? "?" : b(f.availableBytes)}: ${verdict}`);
  out.push(
    `  (overhead: ${b(f.costs.serverOverheadBytes)} + ${b(f.costs.perConnectionBytes)} per connection of the highest thread count; other processes' memory is not subtracted)`,
  );
  const limits = f.servers.map((s) => `${s.id} ${b(s.containerLimitBytes)}`).join(", ");
  out.push(
    f.servers.every((s) => s.limitBytes !== undefined)
      ? `  server memory limits (no swap; resources.server.memory): ${limits}`
      : `  server memory limits (no swap): ${limits} = buffer pool + overhead + tmpfs + ${b(SERVER_LIMIT_HEADROOM_BYTES)} headroom (resources.server.memory sets them instead)`,
  );
  out.push(
    `CPU (${f.cpu.hostCpus === undefined ? "host cores unknown" : `${hostName}: ${f.cpu.hostCpus} CPUs, 0-${f.cpu.hostCpus - 1}`}):`,
  );
  for (const m of f.cpu.missing)
    out.push(`  resources.${m.who}.cpuset asks for ${list(m.cpus)}, which the host does not have`);
  for (const s of f.cpu.sharing) out.push(`  ${s}`);
  return out;
}

/**
 * Refuse a scenario that does not fit its host: PLAN_MEMORY_EXCEEDED (the numbers per server, needed vs available)
 * or PLAN_CPU_MISSING (a cpuset names CPUs the host lacks). Nothing when the host's figures are unknown.
 */
export function assertFits(f: FitReport): void {
  const b = (n: number) => formatBytes(n, "coarse");
  const host = f.host.id ? `host ${f.host.id}` : "the host";
  if (f.cpu.missing.length) {
    const m = f.cpu.missing[0]!;
    throw new InputError(
      `resources.${m.who}.cpuset asks for ${list(m.cpus)}, but ${host} has ${f.cpu.hostCpus} CPUs (0-${f.cpu.hostCpus! - 1})`,
      {
        code: "PLAN_CPU_MISSING",
        hint: `use CPUs 0-${f.cpu.hostCpus! - 1} in resources.${m.who}.cpuset (--set resources.${m.who}.cpuset=...)`,
      },
    );
  }
  if (f.fits !== false) return;
  const per = f.servers.map(
    (s) =>
      `${s.id}: ${b(s.countedBytes)} = buffer pool ${b(s.bufferPoolBytes)} (${s.poolSource}) + overhead ${b(s.overheadBytes)}` +
      (s.tmpfsBytes ? ` + tmpfs ${b(s.tmpfsBytes)}` : "") +
      (s.limitBytes !== undefined && s.countedBytes < s.bufferPoolBytes + s.overheadBytes + s.tmpfsBytes
        ? `, capped at resources.server.memory ${b(s.limitBytes)}`
        : ""),
  );
  const tmpfs = f.servers.filter((s) => s.tmpfsBytes > 0);
  const hints = [
    `fewer servers (${f.servers.length} now)`,
    "a smaller innodb_buffer_pool_size (config.set)",
    ...(tmpfs.length
      ? [
          `storage: { kind: volume } instead of tmpfs (${b(tmpfs.reduce((a, s) => a + s.tmpfsBytes, 0))} of RAM), or a smaller tmpfs size`,
        ]
      : []),
    ...(f.servers.some((s) => s.limitBytes === undefined) ? [] : ["a smaller resources.server.memory"]),
  ];
  throw new InputError(
    `${f.servers.length} server${f.servers.length === 1 ? "" : "s"} and the load need ${b(f.neededBytes)} of memory, but ${host} has ${b(f.availableBytes!)} ` +
      `(${b(f.host.memoryBytes!)} less a ${b(f.reserveBytes!)} reserve): ${b(f.neededBytes - f.availableBytes!)} short`,
    { code: "PLAN_MEMORY_EXCEEDED", details: [...per, `load: ${b(f.loadBytes)}`], hint: `${hints.join("; or ")}` },
  );
}
