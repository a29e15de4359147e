/** The run engine's public types: what a run needs (RunDeps), what it is asked (RunOptions), what it returns. */
import type { Cell, DesignForecast } from "../../core/model/results.ts";
import type { EventSink } from "../../core/model/events.ts";
import type { Scenario } from "../../core/model/scenario/schema.ts";
import type { LoadedScript } from "../../core/model/scenario/custom.ts";
import type { Engine } from "../../core/model/engine/engine.ts";
import type { StorageProvider } from "../../adapters/storage/types.ts";
import type { Probe } from "../../adapters/mysql/probe.ts";
import type { Scheduler } from "./scheduler.ts";
import type { CpuSample } from "../../core/measure/interference.ts";
import type { HardwareCounters, TaskCounters } from "../../core/measure/taskcounters.ts";
import type { CalibrationStore } from "../../adapters/calibration-store.ts";
import type { HistoryEntry } from "../../core/stats/history.ts";
import type { SpeedProbe } from "../../adapters/host/cpu-speed.ts";

export const TWINBENCH_VERSION = "0.1.0";

/** A pinned image as the run engine uses it: lock name, tag, id, family and versions. */
export interface ImageInfo {
  name: string;
  tag: string;
  id: string;
  family: "mariadb" | "mysql" | "sysbench";
  version: string;
  packageVersion?: string;
  cacheHit?: boolean;
}

/** The adapters {@link runScenario} runs on: engine, storage, images, report writer (see createRunDeps). */
export interface RunDeps {
  engine: Engine;
  storage: StorageProvider;
  /** Build or find a pinned image (cache hit when present). */
  ensureImage(
    name: string,
    onProgress: (step: string, line?: string) => void,
    signal?: AbortSignal,
  ): Promise<ImageInfo>;
  /** Write report.md/html/json, comparison.csv and costs.csv for a results folder. */
  writeReports?(dir: string): Promise<unknown>;
  /** SQL probes (default: mysql2). */
  probe?: Probe;
  now?: () => Date;
  /** A monotonic clock in ms for budgets, deadlines and timings (default performance.now; tests step it). */
  monotonicMs?: () => number;
  /**
   * Reads the machine's CPU accounting with the given containers' counters, for each cell's interference figures
   * (local engine only). Absent: cells carry no interference (src/adapters/host/cpu-accounting.ts `sampleCpu`).
   */
  cpuSampler?: (containerIds: readonly string[]) => CpuSample;
  /**
   * Starts watching the speed of the given CPUs (local engine only): each measured cell then carries its server's
   * CPU speed, and a pair whose two cells ran at different speeds is disturbed (src/core/measure/speed.ts). Absent:
   * no speed figures (src/adapters/host/cpu-speed.ts `startSpeedProbe`).
   */
  speedProbe?: (cpus: readonly number[]) => SpeedProbe;
  /**
   * Reads one container's context switches and storage bytes (local engine only) at the CPU sampler's moments: the cell's
   * cost per query in switches and bytes (/proc of its threads and processes: src/adapters/host/task-counters.ts `readTaskCounters`). Absent: no such
   * figures.
   */
  taskSampler?: (containerId: string) => TaskCounters | null;
  /** Whether the host counts hardware events (local engine only; src/adapters/host/task-counters.ts). */
  hardwareCounters?: () => Promise<HardwareCounters>;
  /**
   * The host's calibration (local engine only): an adaptive run forecasts from it, and every run folds its pairs
   * into it at the end. Absent: no forecast before the run, nothing folded.
   */
  calibrations?: CalibrationStore;
  /** The host's run history (local engine only): every finished run appends its cells. Absent: nothing kept. */
  history?: { append: (entry: HistoryEntry) => Promise<string>; read?: () => Promise<HistoryEntry[]> };
  /** How often a single-host run pings its engine (default 5 s; three misses in a row: the host is lost). */
  watchEveryMs?: number;
  /** After the host is lost, how long the run has to unwind before it ends with HOST_LOST (default 30 s). */
  lostGraceMs?: number;
}

/** What to run and how: the scenario, its neutral config text, the results folder, cancellation, events. */
export interface RunOptions {
  scenario: Scenario;
  /** The caller already watches the engine (a multi-host run's per-host guard): no second watch here. */
  engineWatched?: boolean;
  scenarioFile?: string;
  /** The scenario's custom scripts as read (default: read from beside scenarioFile when the scenario has any). */
  scripts?: LoadedScript[];
  overrides?: string[];
  /** `run --design`: the design's forecast, kept in run.json beside what happened. */
  design?: DesignForecast;
  /** Neutral config text (config.base). */
  neutralCnf: string;
  outDir: string;
  /** Run id for a new run (default: derived from the time). */
  runId?: string;
  resume?: boolean;
  /** Run only the planned cells this accepts (sharding, host-vs-host: `c => c.host === id`). */
  cellFilter?: (c: Cell) => boolean;
  /** Which cell runs next (default: the plan's order, each cell once: StaticScheduler). */
  scheduler?: (todo: Cell[]) => Scheduler;
  /** Start servers, capture variables and the must-match table, then tear down (config diff). */
  identityOnly?: boolean;
  failFast?: boolean;
  /** How many times a failed measured cell is retried (after a restart when its server died). Default 1; 0: never. */
  retries?: number;
  strict?: boolean;
  wipeDevices?: boolean;
  readyTimeoutMs?: number;
  sessionId?: string;
  signal?: AbortSignal;
  /** A second signal that means "skip the current cell" (TUI `s`). Re-armed by the caller via `control`. */
  control?: RunControl;
  onEvent?: EventSink;
  /** Fold this run's pooled residuals into the host's calibration (default true; calibrate's own runs: false). */
  updateCalibration?: boolean;
  /** Container id of twinbench itself when it runs inside a container (compose). */
  selfContainerId?: string;
  /**
   * Called once the results folder's lock is taken, with what gives it back. A caller that stops waiting for the
   * run (its host lost, the grace over) gives the lock back itself: the process ends before the run's own teardown.
   */
  onFolderLocked?: (release: () => Promise<void>) => void;
}

/** Lets a front end skip the current cell. */
export class RunControl {
  private current: AbortController | undefined;
  arm(): AbortSignal {
    this.current = new AbortController();
    return this.current.signal;
  }
  skipCurrent(): void {
    this.current?.abort();
  }
}

export type RunStatus = "ok" | "partial" | "failed" | "cancelled";

/** How a run ended: status, the CLI's exit code for it, the results folder, cell counts. */
export interface RunSummary {
  status: RunStatus;
  exitCode: 0 | 1 | 2 | 130;
  dir: string;
  runId: string;
  cellsOk: number;
  cellsFailed: number;
}

export function exitCodeOf(status: RunStatus): RunSummary["exitCode"] {
  return status === "ok" ? 0 : status === "cancelled" ? 130 : 1;
}
