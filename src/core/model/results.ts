/**
 * Shapes of the results folder (`results/<run-id>/`): `run.json` (RunManifest) and `cells.jsonl` (CellRecord per
 * line). Pure types only; the store that writes them is src/adapters/results.
 */
import type { ErrorCode } from "../base/errors.ts";
import type { SysbenchResult } from "./sysbench/result.ts";
import type { TrimmedRates } from "./cell.ts";
import type { CellState } from "./cell.ts";
import type { Scenario, Storage, Transport } from "./scenario/schema.ts";

/** One planned unit of work: server × test × threads × repeat. */
export interface Cell {
  /** Position in the run order, 0-based. */
  index: number;
  /** Stable key, e.g. "mariadb/oltp_read_only/4/1". */
  key: string;
  server: string;
  /** The test name as the scenario wrote it (may be a legacy name such as "oltp_simple"). */
  test: string;
  /** The sysbench 1.0.20 script that runs it (e.g. "oltp_point_select", or "select" for the shipped legacy script). */
  script: string;
  threads: number;
  /** 1-based repeat number. */
  repeat: number;
  /** Host id when the scenario has several hosts. */
  host?: string;
  /** 0-based server instance the cell runs on (workload.instances, adaptive runs): the run restarts both servers
   *  fresh from the post-prepare snapshot when the next cell's instance differs from the current one. */
  instance?: number;
}

/**
 * What else used the machine while a cell ran (local engine only): steal time, CPU pressure (PSI) and the CPU
 * time of everything outside the run's containers, from /proc/stat minus the containers' cgroup accounting.
 */
export interface Interference {
  /** Steal time as a share of one core over the cell, in percent; null when /proc/stat has no steal column. */
  stealPct: number | null;
  /** /proc/pressure/cpu "some" avg over the cell, in percent; null when the kernel has no PSI. */
  psiCpuSomePct: number | null;
  /** CPU used by everything outside the run's containers and the kernel's threads, in cores (1.0 = one full core); null when unknown. */
  outsiderCores: number | null;
  /** CPU used by the kernel's threads (I/O workers of the storage stack among them), in cores; never a disturbance.
   *  Absent in older records, where this was inside `outsiderCores`. */
  kernelCores?: number | null;
  /** The busiest kernel threads by name (at least 0.01 core), at most 3. */
  kernelThreads?: Array<{ name: string; cores: number }>;
  /** The speed of the server's CPUs over the cell, from the speed probe (src/core/measure/speed.ts); absent when
   *  it was not watched (a remote engine, a server on no cpuset, no probe). */
  cpuSpeed?: CpuSpeed;
  /** Set when this cell ran at another CPU speed than its pair's first cell: its work time over that cell's (1.3 is
   *  30% slower). Such a cell is disturbed. */
  speedMismatch?: number;
  /** True when one of the figures passed its threshold; the reasons say which. */
  disturbed: boolean;
  reasons: string[];
}

/** The speed of a server's CPUs over a cell: the probe's fixed work took `workUs` on average (lower is faster). */
export interface CpuSpeed {
  /** The work time the mean speed stands for, µs. */
  workUs: number;
  /** The fastest and slowest single timing in the window, µs. */
  fastestUs: number;
  slowestUs: number;
  /** Timings in the window, over all the CPUs. */
  samples: number;
  /** The CPUs watched (the server's cpuset). */
  cpus: number[];
}

export type CellPhase = "warmup" | "measure";
export type CellStatus = "ok" | "failed" | "skipped";

/** One finished cell as cells.jsonl stores it: ok, failed or skipped, with the parsed sysbench figures. */
export interface CellRecord {
  /** The TPC-C-like figures of a measured cell (a custom test with checks: tpcc): the transaction mix its threads
   *  printed, new-orders and transactions per minute, and the consistency conditions (pass, or those broken). */
  tpcc?: {
    mix?: Record<string, number>;
    nopm?: number | null;
    tpm?: number | null;
    conditions?: "pass" | number[];
  };
  key: string;
  server: string;
  test: string;
  threads: number;
  repeat: number;
  phase: CellPhase;
  status: CellStatus;
  error?: string;
  /** Exactly what `twinbench parse --json` gives for the raw log. */
  metrics: SysbenchResult | null;
  /** Path of the raw sysbench log, relative to the results folder. */
  raw: string;
  startedAt: string;
  endedAt: string;
  host?: string;
  /** 0-based server instance (restart) the cell ran on, when the run restarts servers (workload.instances). */
  instance?: number;
  /** 1-minute load average of the machine twinbench runs on, at the start and end of the cell (local engine only).
   *  Kept for old results folders; it is NOT a measure of interference: it counts the frozen server's tasks (state
   *  D) and reached 10.9 on a 2-core machine during a quiet run. See `interference`. */
  hostLoad?: { start: number; end: number };
  /** 1-based attempt of a measured cell in its run (a failed cell is retried, `--retries`); absent: 1. */
  attempt?: number;
  /** Outside interference measured during the cell (local engine only). */
  interference?: Interference;
  /** Why the cell has no interference figures although the machine has CPU accounting: the sampler failed
   *  (not absent: an engine without /proc gives neither field). */
  interferenceError?: string;
  /** The cell's server was ended by the kernel's OOM killer (its container's memory limit): the cell failed and
   *  was not retried. */
  serverOomKilled?: true;
  /** A failed cell's cause when twinbench knows it (e.g. SERVER_DATA_DIR_FULL: not retried), with what to do. */
  errorCode?: ErrorCode;
  hint?: string;
  /** workload.quiesce: seconds waited for InnoDB purge and dirty pages to settle before this cell. */
  quiesceSeconds?: number;
  /** workload.trim: the rates without the cell's first seconds; reports use these for q/s and t/s. */
  trimmed?: TrimmedRates;
  /** Measured cells: the backlog at the start, the warm state, the bottleneck and the cost per query
   *  (src/core/measure/cellstate.ts); absent when the engine gives no readings (a test probe, a remote engine's CPU). */
  state?: CellState;
}

/** The fate of one neutral option for one server (kept, renamed, translated, dropped) and why. */
export interface TranslationEntry {
  option: string;
  /** What happened to the neutral option for this server. */
  fate: "keep" | "rename" | "translate" | "drop" | "add";
  /** Rendered `name=value` lines (empty when dropped). */
  rendered: string[];
  reason: string;
  /** The neutral value (null for a bare flag). */
  value?: string | null;
  /** Where the neutral option came from: "lab/my.cnf:12", "profile durable", "config.set", "servers.<id>.config.set". */
  source?: string;
}

/** One row of the must-match table: a setting, each server's value, equal or not, and whether asked for. */
export interface MustMatchRow {
  variable: string;
  values: Record<string, string | null>;
  equal: boolean;
  /** True when the difference was asked for (a per-server config.set). */
  deliberate: boolean;
  note?: string;
}

export interface StorageFacts {
  kind: Storage["kind"];
  fsType?: string;
  mountOptions?: string;
  raidLevel?: string;
  members?: Array<{ device: string; sizeBytes?: number; backingFile?: string }>;
  chunk?: string;
  loopBacked?: boolean;
  freeBytesBefore?: number;
  freeBytesAfter?: number;
  /** The re-measure after the run failed (why): there are no "after" facts, the others are the start's. */
  afterError?: string;
  sizeBytes?: number;
  details?: Record<string, string>;
}

/** One server as run.json records it: image, versions, rendered config, variables, storage, connection. */
export interface ServerManifest {
  id: string;
  image: string;
  imageId?: string;
  imageTag?: string;
  packageVersion?: string;
  family: "mariadb" | "mysql";
  version?: string;
  versionComment?: string;
  cnf: string;
  translation: TranslationEntry[];
  asymmetries: string[];
  effectiveVariables?: Record<string, string>;
  storage?: StorageFacts;
  resources: { cpuset?: string; memoryBytes?: number };
  connection?: { sslCipher: string | null; authPlugin: string | null; transport: Transport };
  host?: string;
}

export interface HostFacts {
  id: string;
  kernel?: string;
  os?: string;
  cpuModel?: string;
  cpus?: number;
  memoryBytes?: number;
  dockerVersion?: string;
  apiVersion?: string;
  storageDriver?: string;
  cgroupVersion?: string;
  /** Multi-host runs (src/core/hosts): the engine URL without secrets, and what a probe container saw. */
  engine?: string;
  /** CPUs a container sees (`nproc` in the probe). */
  nproc?: number;
  /** File system and mount options under the engine's volumes (the probe's /proc/mounts). */
  volumeFs?: string;
  volumeMountOptions?: string;
  architecture?: string;
  /**
   * What a kernel comparison turns on (the probe; "unknown" where the host does not say): the block device under
   * the engine's volumes (where `storage: volume` puts the data dir) with its scheduler, nr_requests, queue depth
   * and rotational flag; transparent huge pages; CPU frequency driver and governor; clocksource; kernel command
   * line; and /sys/devices/system/cpu/vulnerabilities (name → state).
   */
  dataDevice?: string;
  ioScheduler?: string;
  nrRequests?: string;
  queueDepth?: string;
  rotational?: string;
  thp?: string;
  thpDefrag?: string;
  cpufreqDriver?: string;
  cpufreqGovernor?: string;
  clocksource?: string;
  kernelCmdline?: string;
  mitigations?: Record<string, string>;
  /** Whether the engine's machine counts hardware events per query, in words (local engine: src/core/measure/taskcounters.ts). */
  hardwareCounters?: string;
}

/** An adaptive run's settings (workload.repeats as an object, workload.instances, the budget). */
export interface AdaptiveSettings {
  min: number;
  max: number;
  /** The target half-width in percent. */
  precisionPct: number;
  /** Server instances in the first `min` rounds. */
  instances: number;
  /** A new instance starts every this many rounds. */
  roundsPerInstance: number;
  budgetSeconds?: number;
}

/**
 * A forecast of an adaptive run (src/core/plan/forecast.ts): before it starts (from the host's calibration) or after
 * a round (from the run's own pairs, with the calibration where there is one). Seconds count from the run's start.
 */
export interface Forecast {
  stage: "before" | "round";
  /** The rounds finished when it was made (0 before the run). */
  round: number;
  at: string;
  /** Whose noise figures: the host's calibration, the run's own pairs, or both pooled. */
  source: "calibration" | "run" | "calibration+run";
  pairSdPct: number;
  instanceSdPct: number;
  /**
   * How unequal the simulated cells were: the prior df of their pair sds (null: equal cells). Absent in older run.json
   * files (they all simulated with 2.2).
   */
  cellPriorDf?: number | null;
  elapsedSeconds: number;
  /** The run's whole wall time: median and 80% range (10th–90th percentile of the simulated runs). */
  totalSeconds: { median: number; low: number; high: number };
  /** Median seconds left, never more than the budget left. */
  remainingSeconds: number;
  budgetSeconds: number | null;
  /** Share of simulated runs the budget stops (0–1); `budgetStops` when that is at least half. */
  budgetShare: number;
  budgetStops: boolean;
  precisionPct: number;
  cells: number;
  /** Cells expected to reach the precision target (rounded mean over the simulated runs). */
  cellsLikely: number;
  /** Measured cells of the whole run, every server's: median. */
  measuredCells: number;
}

/** run.json's record of the forecasts a run made, beside what happened (timings.wall, adaptive). */
export interface ForecastRecord {
  /** Why there was no forecast before the run (e.g. no calibration for this host). */
  none?: string;
  /** Seconds from the run's start to its first round, image builds left out (they happen once). */
  setupSeconds?: number;
  forecasts: Forecast[];
  /** `run --budget D --design`: what the design forecast before the run, to score against what happened. */
  design?: DesignForecast;
}

/** A budget design's forecast (src/core/plan/design/), as run.json keeps it. */
export interface DesignForecast {
  at: string;
  budgetSeconds: number;
  mode: "fixed" | "adaptive";
  cellSeconds: number;
  rounds: number;
  instances: number;
  /** The plan's time of the design, and the simulated wall time with its 80% range. */
  plannedSeconds: number;
  seconds: { median: number; low: number; high: number };
  /** Simulated half-width of a cell (%): median and the 80% range over cells; null when no interval. */
  halfWidthPct: { median: number; low: number; high: number } | null;
  /** The prior df of the cells' pair sds it simulated with (null: equal cells). */
  cellPriorDf: number | null;
  /**
   * Each cell's simulated half-width (%), median and 80% range, when the design forecast cells one by one from
   * their earlier runs on this data (cellNoiseModel); absent when every cell had the one shared range above.
   */
  cells?: Array<{ cell: string; median: number; low: number; high: number }>;
}

/** run.json's record of an adaptive run: its settings, the rounds run and where each cell stopped, and why. */
export interface AdaptiveSummary extends AdaptiveSettings {
  rounds: number;
  cells: Array<{
    test: string;
    threads: number;
    n: number;
    rounds: number;
    estimate: number | null;
    low: number | null;
    high: number | null;
    halfWidthPct: number | null;
    done?: "precision" | "max" | "budget";
  }>;
}

/** run.json: the resolved scenario, the plan, host and server facts, the must-match table and the run's status. */
export interface RunManifest {
  runId: string;
  twinbenchVersion: string;
  scenarioFile?: string;
  /** The resolved scenario (after --set overrides). */
  scenario: Scenario;
  overrides: string[];
  cells: Cell[];
  estimateSeconds: number;
  hosts: HostFacts[];
  servers: ServerManifest[];
  sysbench?: { image: string; imageId?: string; version?: string; packageVersion?: string };
  mustMatch?: MustMatchRow[];
  startedAt: string;
  endedAt?: string;
  status: "running" | "ok" | "partial" | "failed" | "cancelled";
  /** What the lab did, for reproducibility: snapshot restores, restarts, pauses. */
  actions?: Array<{ at: string; server?: string; action: string; detail?: string }>;
  timings?: Record<string, number>;
  /** Sharded over hosts whose facts differ (`--force`): one line per differing fact. */
  hostsMixed?: string[];
  /** Hosts lost during a multi-host run, by id. */
  hostFailures?: Array<{ host: string; message: string }>;
  /** scenarioFingerprint of the scenario, neutral config and pins: a resume must match it (src/core/plan/fingerprint.ts). */
  fingerprint?: string;
  /** Adaptive repeats: settings, rounds and each cell's stop reason (updated after every round). */
  adaptive?: AdaptiveSummary;
  /** Adaptive repeats: the forecast before the run and after every round, to hold against timings.wall. */
  forecast?: ForecastRecord;
  /** The scenario's own Lua scripts by test: where they came from, their files and content hash. */
  customScripts?: Record<string, { path: string; main: string; files: string[]; sha256: string }>;
}
