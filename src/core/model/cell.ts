/**
 * What a measured cell carries beside its sysbench figures: the servers' status readings, the backlog, the pool's
 * warmth, CPU, the bottleneck, per-query costs and the trimmed rates. Types only; measure/ computes them.
 */
/** One reading of a server's status: numeric SHOW GLOBAL STATUS values, the history length, data and pool size. */
export interface ServerStatus {
  /** SHOW GLOBAL STATUS, numeric values only, by variable name as the server spells it. */
  values: Record<string, number>;
  /** information_schema.INNODB_METRICS `trx_rseg_history_len`; null when the server refused it. */
  historyLength: number | null;
  /** Data and index bytes of the benchmark schema (information_schema.TABLES); null when unknown. */
  dataBytes?: number | null;
  /** @@innodb_buffer_pool_size; null when unknown. */
  poolBytes?: number | null;
}

/** InnoDB's background backlog at the start of a cell, from the server's own status; null where it has no figure. */
export interface CellBacklog {
  historyLength: number | null;
  dirtyPages: number | null;
  pendingReads: number | null;
  pendingWrites: number | null;
  pendingFsyncs: number | null;
}

/** Buffer-pool reads from disk during the cell, and whether the data fits in the pool (the condition for "cold"). */
export interface WarmState {
  /** Innodb_buffer_pool_reads delta: logical reads the pool could not satisfy. */
  diskReads: number | null;
  /** Innodb_buffer_pool_read_requests delta: logical reads. */
  readRequests: number | null;
  /** Data and indexes of the benchmark schema fit in the buffer pool; null when either size is unknown. */
  fits: boolean | null;
  /** The data fits and the cell still read more than COLD_POOL_READS pages from disk. */
  cold: boolean;
}

/** CPU of the cell's two containers over sysbench's run (cgroup counters), and their cpusets' sizes. */
export interface CellCpu {
  /** The window the counters cover, seconds. */
  wallS: number;
  /** Average CPU use over the window, in cores (1.0 = one full core). */
  serverCores: number;
  loadCores: number;
  /** Cores in each container's cpuset (the host's CPU count when it has none). */
  serverCpusetCores: number;
  loadCpusetCores: number;
}

export type BottleneckKind = "server" | "load" | "neither";

/** Which side limited the cell, and the marks that make its figure suspect (ignored errors, reconnects). */
export interface Bottleneck {
  kind: BottleneckKind;
  /** CPU use as % of the cpuset's cores. */
  serverUtilPct: number;
  loadUtilPct: number;
  /** "ignored errors 2.10/s", "reconnects 0.50/s": empty when sysbench reported none. */
  marks: string[];
}

/** A cell's cost per query: InnoDB's work from status deltas, and CPU time from the cgroups. Null where unknown. */
export interface PerQuery {
  /** The queries the figures are divided by (sysbench's `queries:` total). */
  queries: number;
  rowsRead: number | null;
  pagesRead: number | null;
  pagesWritten: number | null;
  /** Redo log bytes written (Innodb_os_log_written, or the LSN's advance where the server has no such counter). */
  logBytes: number | null;
  fsyncs: number | null;
  /** The status counters behind rowsRead and logBytes (they differ between servers: PER_QUERY_COUNTERS). */
  counters: { rowsRead: string | null; logBytes: string | null };
  /** CPU time per query, µs: the server's container and the load (sysbench) container. */
  serverCpuUs: number | null;
  clientCpuUs: number | null;
  /** Context switches per query, voluntary and involuntary, of the server's and the load container's threads. */
  serverCsVoluntary?: number | null;
  serverCsInvoluntary?: number | null;
  clientCsVoluntary?: number | null;
  clientCsInvoluntary?: number | null;
  /** Bytes the server container's processes read from and wrote to storage per query (/proc/<pid>/io). */
  readBytes?: number | null;
  writeBytes?: number | null;
  /** Why a figure is null when it is not for want of a reading, e.g. readBytes: "no block device (tmpfs)". */
  absent?: Partial<Record<"readBytes" | "writeBytes", string>>;
}

/** The cell's context switches and storage bytes over sysbench's run (src/core/measure/taskcounters.ts deltas). */
export interface CellTasks {
  server: { voluntary: number; involuntary: number } | null;
  load: { voluntary: number; involuntary: number } | null;
  /** The server container's storage bytes (/proc/<pid>/io); null when unread. */
  serverIo: { read: number; write: number } | null;
  /** The server's data dir is on a block device (not tmpfs); false: bytes per query are "no block device". */
  blockDevice: boolean;
  /** The storage kind, for the words of an absent figure. */
  storageKind?: string;
}

/** What a measured cell records about its state (all optional: an engine without the readings gives none). */
export interface CellState {
  backlog?: CellBacklog;
  warm?: WarmState;
  cpu?: CellCpu;
  bottleneck?: Bottleneck;
  perQuery?: PerQuery;
  /** Why a reading failed (the server's status, the CPU counters): not absent, failed. */
  errors?: string[];
}

/** The state fields of a record, as the report reads them. */
export interface StateRecord {
  key: string;
  server: string;
  test: string;
  threads: number;
  repeat: number;
  status: string;
  state?: CellState;
  /** The cell's q/s as the report uses it (the steady window's when trimmed), for the CPU sense check. */
  metrics?: { qps?: number | null } | null;
  trimmed?: { qps: number };
}

/** A cell's rates without its first `seconds` (workload.trim): the mean of the per-second report after them. */
export interface TrimmedRates {
  /** Seconds left out at the start. */
  seconds: number;
  /** Per-second samples the figures come from. */
  samples: number;
  qps: number;
  tps: number;
}
