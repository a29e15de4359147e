/**
 * What the scenario asks of the servers' limits and the host: max_connections enough for the threads, cpusets that
 * exist and do not overlap, options that need a cpuset or a duration, and storage that fits the memory limit.
 */
import { parseSize, trimSeconds, type Scenario } from "./schema.ts";
import { show } from "./suggest.ts";
import {
  CONNECTION_HEADROOM,
  DEFAULT_BUFFER_POOL,
  MIN_ROW_BYTES,
  parseCpuset,
  requiredMaxConnections,
} from "./limits.ts";
import type { Path, Problems, ValidateContext } from "./validate-problems.ts";

/** max_connections (global and per server): an integer or "auto", and enough for the most threads. */
export function checkMaxConnections(s: Scenario, problems: Problems): void {
  const { err } = problems;
  const w = s.workload;
  if (w.threads.length) {
    const need = requiredMaxConnections(s);
    const check = (path: Path, v: unknown) => {
      if (v === undefined || (typeof v === "string" && v.trim().toLowerCase() === "auto")) return;
      const n = Number(v);
      if (!Number.isInteger(n)) err(path, `expected an integer or "auto", got ${show(v)}`);
      else if (n < need)
        err(
          path,
          `${n} is lower than the ${need} connections this scenario needs (workload.threads up to ${Math.max(...w.threads)}, ` +
            `plus ${CONNECTION_HEADROOM} for twinbench's own)`,
        );
    };
    check(["config", "set", "max_connections"], s.config.set.max_connections);
    s.servers.forEach((srv, i) =>
      check(["servers", i, "config", "set", "max_connections"], srv.config?.set.max_connections),
    );
  }
}

/** resources: cpusets that parse and exist on this host, and the options that depend on them. */
export function checkCpusets(s: Scenario, ctx: ValidateContext, problems: Problems): void {
  const { err, warn } = problems;
  const cpus: Partial<Record<"server" | "load", number[]>> = {};
  for (const who of ["server", "load"] as const) {
    const v = s.resources[who].cpuset;
    if (v === undefined) continue;
    const p = ["resources", who, "cpuset"];
    const list = parseCpuset(v);
    if (!list) {
      err(p, `reversed range in cpuset ${show(v)}`);
      continue;
    }
    cpus[who] = list;
    if (ctx.hostCpus !== undefined) {
      const missing = list.filter((c) => c >= ctx.hostCpus!);
      if (missing.length)
        err(
          p,
          `${missing.length > 1 ? "CPUs" : "CPU"} ${missing.join(", ")} ${missing.length > 1 ? "do" : "does"} not exist on this host (it has ${ctx.hostCpus === 1 ? "CPU 0" : `CPUs 0-${ctx.hostCpus - 1}`}), got ${show(v)}`,
        );
    }
  }
  if (trimSeconds(s.workload) > 0 && s.workload.duration === undefined)
    err(["workload", "trim"], "needs workload.duration: an events-bounded cell has no fixed length to trim");
  if (s.resources.confineDaemons && s.resources.load.cpuset === undefined)
    err(["resources", "confineDaemons"], "needs resources.load.cpuset: the daemons are moved to the load CPUs");
  if (cpus.server && cpus.load) {
    const both = cpus.server.filter((c) => cpus.load!.includes(c));
    if (both.length)
      warn(
        ["resources"],
        `server cpuset ${show(s.resources.server.cpuset)} and load cpuset ${show(s.resources.load.cpuset)} overlap on CPU ${both.join(", ")}; ` +
          `sysbench competes with the server there`,
      );
  }
}

/** storage (global, when some server uses it, and per server): raid0 members, tmpfs within the memory limit. */
export function checkStorage(s: Scenario, problems: Problems): void {
  const { err, warn } = problems;
  const memory = s.resources.server.memory === undefined ? undefined : parseSize(s.resources.server.memory);
  const storages: Array<{ path: Path; storage: Scenario["storage"]; set: Record<string, unknown> }> = [
    { path: ["storage"], storage: s.storage, set: s.config.set },
  ];
  s.servers.forEach((srv, i) => {
    if (srv.storage)
      storages.push({
        path: ["servers", i, "storage"],
        storage: srv.storage,
        set: { ...s.config.set, ...(srv.config?.set ?? {}) },
      });
  });
  // The global storage only matters when some server uses it.
  const globalUsed = s.servers.some((x) => !x.storage);
  for (const { path, storage, set } of storages) {
    if (path.length === 1 && !globalUsed) continue;
    if (storage.kind === "bind" && !storage.path.startsWith("/"))
      err([...path, "path"], `expected an absolute host path (e.g. /mnt/array), got ${show(storage.path)}`);
    if (storage.kind === "raid0" && storage.loop?.dir !== undefined && !storage.loop.dir.startsWith("/"))
      err(
        [...path, "loop", "dir"],
        `expected an absolute host path (e.g. /var/lib/twinbench/loop), got ${show(storage.loop.dir)}`,
      );
    if (storage.kind === "tmpfs") {
      const tmpfs = parseSize(storage.size)!;
      const data = s.workload.tables * s.workload.tableSize * MIN_ROW_BYTES;
      if (data > tmpfs)
        err(
          [...path, "size"],
          `tmpfs size ${show(storage.size)} cannot hold the tables: workload.tables ${s.workload.tables} × ` +
            `workload.tableSize ${s.workload.tableSize} rows take at least ${Math.ceil(data / 2 ** 20)} MiB ` +
            `(${MIN_ROW_BYTES} bytes a row), before the redo log and system tablespace`,
        );
    }
    if (storage.kind === "raid0") {
      if (!storage.devices && !storage.loop)
        err(path, `raid0 needs its members: devices (2 or more /dev/... paths) or loop: { members: N, size: SIZE }`);
      if (storage.devices && storage.loop) err(path, `raid0 takes devices or loop, not both`);
    }
    if (storage.kind === "tmpfs" && memory !== undefined) {
      const tmpfs = parseSize(storage.size)!;
      const bpRaw = set.innodb_buffer_pool_size ?? DEFAULT_BUFFER_POOL;
      const bp = typeof bpRaw === "string" || typeof bpRaw === "number" ? parseSize(bpRaw) : undefined;
      const mem = show(s.resources.server.memory);
      if (tmpfs > memory)
        err(
          [...path, "size"],
          `tmpfs size ${show(storage.size)} is larger than the server memory limit resources.server.memory ${mem}; ` +
            `tmpfs pages count against the server container's memory`,
        );
      else if (bp !== undefined && tmpfs + bp > memory)
        warn(
          [...path, "size"],
          `tmpfs size ${show(storage.size)} plus innodb_buffer_pool_size ${show(bpRaw)} exceeds resources.server.memory ${mem}; ` +
            `the server can be OOM-killed as the data dir fills`,
        );
    }
  }
}
