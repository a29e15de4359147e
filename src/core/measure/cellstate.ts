/**
 * The state of a measured cell, pure: from the server's own status read just before
 * and just after the cell, and from the cgroup CPU counters the sidecar samples while sysbench runs.
 *
 * - backlog at the start: purge history length, dirty pages, InnoDB's pending reads/writes/fsyncs;
 * - warm state: buffer-pool reads from disk during the cell, and whether the data fits in the pool;
 * - bottleneck: the load container's and the server's CPU against their cpusets (server / load / neither), plus
 *   the marks of ignored errors and reconnects;
 * - cost per query: InnoDB's work (rows read, pages read and written, log bytes, fsyncs) and server and client CPU
 *   time, each divided by the cell's queries.
 */
import type { SysbenchResult } from "../model/sysbench/result.ts";
import type {
  Bottleneck,
  BottleneckKind,
  CellBacklog,
  CellCpu,
  CellState,
  CellTasks,
  PerQuery,
  ServerStatus,
  StateRecord,
  WarmState,
} from "../model/cell.ts";

/**
 * Where a container counts as saturated: 90% of its cpuset. A container whose threads always have work reads
 * 95-100% of its cpuset in the cgroup counter over a cell of several seconds (the counter is in ns, the window is
 * sysbench's own run); what keeps a saturated one below 100% is time its cores give to others: in quick.yaml the
 * load cpuset also holds dockerd, containerd and the shims (resources.confineDaemons), which relay a few output
 * lines a second. 90% leaves them that 10%; a container below it had idle time on its cores, so it waited for the
 * other side and was not what limited the cell.
 */
export const SATURATED_SHARE = 0.9;

/**
 * More pages than this read from disk in one cell, with the data fitting in the pool, say "cold pool". A pool
 * prewarmed after prepare (sysbench `prewarm` reads every table's primary key and its k index) reads nothing from
 * disk for these tables; the few pages it did not touch (undo, the dictionary, a page split's new neighbour) are
 * tens, not hundreds. 100 pages of 16 KiB is 1.6 MB, a few % of the smallest data set the lab runs.
 */
export const COLD_POOL_READS = 100;

const num = (v: Record<string, number>, k: string): number | null =>
  typeof v[k] === "number" && Number.isFinite(v[k]) ? v[k]! : null;

/** The backlog at the start of a cell, from the status read just before it. */
export function backlogOf(s: ServerStatus): CellBacklog {
  return {
    historyLength: s.historyLength,
    dirtyPages: num(s.values, "Innodb_buffer_pool_pages_dirty"),
    pendingReads: num(s.values, "Innodb_data_pending_reads"),
    pendingWrites: num(s.values, "Innodb_data_pending_writes"),
    pendingFsyncs: num(s.values, "Innodb_data_pending_fsyncs"),
  };
}

/** A counter's increase between two readings; null when either lacks it, or it went down (a restart in between). */
export function counterDelta(before: ServerStatus, after: ServerStatus, name: string): number | null {
  const a = num(before.values, name);
  const b = num(after.values, name);
  return a === null || b === null || b < a ? null : b - a;
}

/** The warm-state check of a cell from its status before and after. */
export function warmStateOf(before: ServerStatus, after: ServerStatus, coldReads = COLD_POOL_READS): WarmState {
  const diskReads = counterDelta(before, after, "Innodb_buffer_pool_reads");
  const readRequests = counterDelta(before, after, "Innodb_buffer_pool_read_requests");
  const fits = before.dataBytes == null || before.poolBytes == null ? null : before.dataBytes <= before.poolBytes;
  return { diskReads, readRequests, fits, cold: fits === true && diskReads !== null && diskReads > coldReads };
}

/**
 * Which status counter gives a figure, the first present in both readings winning:
 * - rows read: MySQL's Innodb_rows_read; MariaDB 11.8 has no InnoDB row counter at all (no Innodb_rows_read, no
 *   INNODB_METRICS dml_reads: seen on 11.8.9 here), so its server-level Rows_read (rows read by any storage
 *   engine, temporary tables excluded; the benchmark's tables are all InnoDB);
 * - redo bytes: Innodb_os_log_written (MySQL 9.7 and MariaDB 11.8.9 both have it), else the LSN's advance.
 */
export const PER_QUERY_COUNTERS = {
  rowsRead: ["Innodb_rows_read", "Rows_read"],
  logBytes: ["Innodb_os_log_written", "Innodb_lsn_current"],
} as const;

/**
 * The marks of a cell whose sysbench ignored errors or reconnected: "ignored errors 2.10/s (21)", "reconnects
 * 0.50/s (3)"; empty when it did neither. Such a cell's q/s counts work that failed or waited for a connection.
 */
export function errorMarks(
  metrics:
    | Pick<SysbenchResult, "ignoredErrors" | "ignoredErrorsPerSec" | "reconnects" | "reconnectsPerSec">
    | null
    | undefined,
): string[] {
  const marks: string[] = [];
  const rate = (n: number | null | undefined, perSec: number | null | undefined) =>
    (n ?? 0) > 0 ? (perSec ?? 0) : null;
  const err = rate(metrics?.ignoredErrors, metrics?.ignoredErrorsPerSec);
  const rec = rate(metrics?.reconnects, metrics?.reconnectsPerSec);
  if (err !== null) marks.push(`ignored errors ${err.toFixed(2)}/s (${metrics!.ignoredErrors})`);
  if (rec !== null) marks.push(`reconnects ${rec.toFixed(2)}/s (${metrics!.reconnects})`);
  return marks;
}

/** Which side limited the cell from its containers' CPU, and sysbench's error and reconnect marks. */
export function bottleneckOf(
  cpu: CellCpu,
  metrics: Pick<SysbenchResult, "ignoredErrors" | "ignoredErrorsPerSec" | "reconnects" | "reconnectsPerSec"> | null,
  share = SATURATED_SHARE,
): Bottleneck {
  const serverUtil = cpu.serverCpusetCores > 0 ? cpu.serverCores / cpu.serverCpusetCores : 0;
  const loadUtil = cpu.loadCpusetCores > 0 ? cpu.loadCores / cpu.loadCpusetCores : 0;
  // The server at its ceiling is the server's limit even when the load is too: the figure is the server's capacity.
  const kind: BottleneckKind = serverUtil >= share ? "server" : loadUtil >= share ? "load" : "neither";
  const marks = errorMarks(metrics);
  const pct = (x: number) => Math.round(x * 1000) / 10;
  return { kind, serverUtilPct: pct(serverUtil), loadUtilPct: pct(loadUtil), marks };
}

/**
 * The cell's cost per query. InnoDB's work is the status deltas over sysbench's queries; CPU per query is each
 * container's average cores over sysbench's q/s (the same window's rates, so CPU per query × q/s is the cores used).
 */
export function perQueryOf(o: {
  before?: ServerStatus;
  after?: ServerStatus;
  cpu?: CellCpu;
  tasks?: CellTasks;
  metrics: Pick<SysbenchResult, "queries" | "qps"> | null;
}): PerQuery | null {
  const queries = o.metrics?.queries ?? null;
  if (queries === null || !(queries > 0)) return null;
  const per = (name: string) => {
    if (!o.before || !o.after) return null;
    const d = counterDelta(o.before, o.after, name);
    return d === null ? null : d / queries;
  };
  const pick = (names: readonly string[]) =>
    names.find((n) => o.before && o.after && num(o.before.values, n) !== null && num(o.after.values, n) !== null) ??
    null;
  const rowsName = pick(PER_QUERY_COUNTERS.rowsRead);
  const logName = pick(PER_QUERY_COUNTERS.logBytes);
  const qps = o.metrics?.qps ?? null;
  const cpuUs = (cores: number | undefined) =>
    cores === undefined || qps === null || !(qps > 0) ? null : (cores / qps) * 1e6;
  const t = o.tasks;
  const over = (x: number | undefined) => (x === undefined ? null : x / queries);
  const noDevice = t && !t.blockDevice ? `no block device (${t.storageKind ?? "the data dir is not on one"})` : null;
  return {
    queries,
    rowsRead: rowsName ? per(rowsName) : null,
    pagesRead: per("Innodb_pages_read"),
    pagesWritten: per("Innodb_pages_written"),
    logBytes: logName ? per(logName) : null,
    fsyncs: per("Innodb_data_fsyncs"),
    counters: { rowsRead: rowsName, logBytes: logName },
    serverCpuUs: cpuUs(o.cpu?.serverCores),
    clientCpuUs: cpuUs(o.cpu?.loadCores),
    ...(t
      ? {
          serverCsVoluntary: over(t.server?.voluntary),
          serverCsInvoluntary: over(t.server?.involuntary),
          clientCsVoluntary: over(t.load?.voluntary),
          clientCsInvoluntary: over(t.load?.involuntary),
          readBytes: noDevice ? null : over(t.serverIo?.read),
          writeBytes: noDevice ? null : over(t.serverIo?.write),
          ...(noDevice ? { absent: { readBytes: noDevice, writeBytes: noDevice } } : {}),
        }
      : {}),
  };
}

/** A cell's state from what was read around it; fields without readings are left out. */
export function cellStateOf(o: {
  before?: ServerStatus;
  after?: ServerStatus;
  cpu?: CellCpu;
  tasks?: CellTasks;
  metrics: SysbenchResult | null;
  errors?: string[];
}): CellState {
  const out: CellState = {};
  if (o.before) out.backlog = backlogOf(o.before);
  if (o.before && o.after) out.warm = warmStateOf(o.before, o.after);
  if (o.cpu) {
    out.cpu = o.cpu;
    out.bottleneck = bottleneckOf(o.cpu, o.metrics);
  }
  const pq = perQueryOf(o);
  if (pq) out.perQuery = pq;
  if (o.errors?.length) out.errors = o.errors;
  return out;
}

/** Cores in a cpuset list ("0-2,5" → 4); null for an unreadable one. */
/**
 * The cores a container can use: its cpuset's (the host's without one), capped by its CPU quota (docker --cpus).
 * The bottleneck share and the CPU-per-query sense check are measured against it.
 */
export function containerCores(cpuset: string | undefined, cpus: number | undefined, hostCores: number): number {
  const set = (cpuset === undefined ? null : cpusetCores(cpuset)) ?? hostCores;
  return cpus === undefined ? set : Math.min(set, cpus);
}

export function cpusetCores(v: string): number | null {
  let n = 0;
  for (const part of v.split(",")) {
    const m = /^\s*(\d+)(?:-(\d+))?\s*$/.exec(part);
    if (!m) return null;
    const a = Number(m[1]);
    const b = m[2] === undefined ? a : Number(m[2]);
    if (b < a) return null;
    n += b - a + 1;
  }
  return n;
}

/** CPU per query × q/s may exceed the cpuset's cores by this share before it is flagged (counter and clock rounding). */
export const CPU_SENSE_SLACK = 0.02;

/**
 * The sense check of a cell's CPU per query: × its q/s it is the cores used, which is above 0 and at most the
 * cpuset's cores. Returns what fails ("server 1.12 cores of 1"), empty when it holds or there is nothing to check.
 */
export function cpuSenseFailures(
  r: Pick<StateRecord, "state" | "metrics" | "trimmed">,
  slack = CPU_SENSE_SLACK,
): string[] {
  const pq = r.state?.perQuery;
  const cpu = r.state?.cpu;
  const qps = r.trimmed?.qps ?? r.metrics?.qps ?? null;
  if (!pq || !cpu || qps === null || !(qps > 0)) return [];
  const out: string[] = [];
  for (const [side, us, cores] of [
    ["server", pq.serverCpuUs, cpu.serverCpusetCores],
    ["client", pq.clientCpuUs, cpu.loadCpusetCores],
  ] as const) {
    if (us === null) continue;
    const used = (us * qps) / 1e6;
    if (!(used > 0) || used > cores * (1 + slack)) out.push(`${side} ${used.toFixed(2)} cores of ${cores}`);
  }
  return out;
}

const where = (r: StateRecord) => `${r.server} ${r.test} t${r.threads} r${r.repeat}`;

/** Whether the load generator limited the cell (its CPU saturated, the server's not). */
export function isLoadBound(r: Pick<StateRecord, "state">): boolean {
  return r.state?.bottleneck?.kind === "load";
}

/**
 * The report's lines about the cells' state: the backlog at the cells' start per server, cold-pool cells, load-bound
 * cells, cells marked by ignored errors or reconnects, failed readings. Empty when no record carries any state.
 */
export function cellStateNotes(used: readonly StateRecord[]): string[] {
  const ok = used.filter((r) => r.status === "ok");
  const withState = ok.filter((r) => r.state);
  if (withState.length === 0) return [];
  const notes: string[] = [];
  const servers = [...new Set(withState.map((r) => r.server))];
  const range = (xs: Array<number | null | undefined>) => {
    const v = xs.filter((x): x is number => typeof x === "number");
    return v.length
      ? Math.min(...v) === Math.max(...v)
        ? `${Math.max(...v)}`
        : `${Math.min(...v)}–${Math.max(...v)}`
      : "unknown";
  };
  for (const s of servers) {
    const b = withState.filter((r) => r.server === s && r.state!.backlog).map((r) => r.state!.backlog!);
    if (!b.length) continue;
    notes.push(
      `Backlog at the start of ${s}'s ${b.length} measured cell${b.length === 1 ? "" : "s"}: history length ${range(b.map((x) => x.historyLength))}, dirty pages ${range(b.map((x) => x.dirtyPages))}, ` +
        `pending reads/writes/fsyncs ${range(b.map((x) => x.pendingReads))}/${range(b.map((x) => x.pendingWrites))}/${range(b.map((x) => x.pendingFsyncs))}.`,
    );
  }
  const named = withState.filter((r) => r.state!.bottleneck);
  if (named.length) {
    const counts = servers.map((s) => {
      const by = (k: BottleneckKind) => named.filter((r) => r.server === s && r.state!.bottleneck!.kind === k).length;
      return `${s}: server ${by("server")}, load ${by("load")}, neither ${by("neither")}`;
    });
    notes.push(
      `Bottleneck of the measured cells (cgroup CPU against the cpuset or CPU quota, saturated at ≥ ${SATURATED_SHARE * 100}%): ${counts.join("; ")}.`,
    );
  }
  const cold = withState.filter((r) => r.state!.warm?.cold);
  if (cold.length)
    notes.push(
      `Cold pool: ${cold.length} cell${cold.length === 1 ? "" : "s"} read more than ${COLD_POOL_READS} pages from disk although the data fits in the buffer pool: ${cold.map((r) => `${where(r)} (${r.state!.warm!.diskReads} reads)`).join(", ")}.`,
    );
  const load = withState.filter(isLoadBound);
  if (load.length)
    notes.push(
      `Load-bound: ${load.length} cell${load.length === 1 ? "" : "s"} where sysbench used ≥ ${SATURATED_SHARE * 100}% of its cores (its cpuset, or its CPU quota when smaller) and the server less: ${load.map((r) => `${where(r)} (load ${r.state!.bottleneck!.loadUtilPct}%, server ${r.state!.bottleneck!.serverUtilPct}%)`).join(", ")}. A ratio cell whose repeats are mostly load-bound gets no verdict.`,
    );
  const marked = withState.filter((r) => r.state!.bottleneck?.marks.length);
  if (marked.length)
    notes.push(
      `Errors or reconnects in ${marked.length} cell${marked.length === 1 ? "" : "s"}: ${marked.map((r) => `${where(r)} (${r.state!.bottleneck!.marks.join(", ")})`).join(", ")}.`,
    );
  const senseless = withState.map((r) => ({ r, f: cpuSenseFailures(r) })).filter((x) => x.f.length);
  if (senseless.length)
    notes.push(
      `CPU per query × q/s is not within (0, the cpuset's cores] in ${senseless.length} cell${senseless.length === 1 ? "" : "s"}: ${senseless.map((x) => `${where(x.r)} (${x.f.join(", ")})`).join(", ")}. Those cells' CPU per query is suspect (a counter or window mismatch).`,
    );
  const failed = ok.filter((r) => r.state?.errors?.length);
  if (failed.length)
    notes.push(
      `State readings failed in ${failed.length} cell${failed.length === 1 ? "" : "s"}: ${failed.map((r) => `${where(r)} (${r.state!.errors!.join("; ")})`).join(", ")}.`,
    );
  return notes;
}
