/**
 * The run engine's default adapters, for library users and the CLI alike: the local Docker engine (or one given),
 * tmpfs/volume/bind/RAID storage, the pinned images (built when missing) and the report writer. The CLI, the TUI
 * and the bench all build their `RunDeps` here.
 */
import { historyForReports } from "./history.ts";
import { appendHistory } from "../adapters/history-store.ts";
import type { RunDeps, ImageInfo } from "./run.ts";
import { DockerEngine } from "../adapters/docker/engine.ts";
import type { Engine } from "../core/model/engine/engine.ts";
import { loadLock, ensureImage } from "../adapters/images/index.ts";
import { lockEntry } from "../core/images/lock.ts";
import { createStorageProvider } from "../adapters/storage/index.ts";
import { createRunner } from "../adapters/host/runner.ts";
import { writeReports } from "../adapters/report-files.ts";
import { sampleCpu } from "../adapters/host/cpu-accounting.ts";
import { startSpeedProbe } from "../adapters/host/cpu-speed.ts";
import { detectHardwareCounters, readTaskCounters } from "../adapters/host/task-counters.ts";
import { localCalibrationStore } from "../adapters/calibration-store.ts";
import type { ModeChoice } from "../core/images/context.ts";

/** Options of {@link createRunDeps}. */
export interface CreateRunDepsOptions {
  /** The Docker engine to run on (default: the local one; DOCKER_HOST is respected). */
  engine?: Engine;
  /** How missing images are built: `auto` (default), `debian` or `official`. */
  imageMode?: ModeChoice;
  /** An images/lock.yaml other than the package's own. */
  lockFile?: string;
}

/**
 * The adapters {@link runScenario} needs, wired to real Docker: pass the result as its first argument.
 *
 * @example
 * ```ts
 * const deps = await createRunDeps();
 * const summary = await runScenario(deps, { scenario, neutralCnf, outDir: "results/x" });
 * ```
 * @throws TwinbenchError `LOCK_NOT_FOUND` or `LOCK_INVALID` when the image lock cannot be read.
 */
export async function createRunDeps(opts: CreateRunDepsOptions = {}): Promise<RunDeps> {
  const engine = opts.engine ?? new DockerEngine("local");
  const lock = await loadLock(opts.lockFile);
  const mode = opts.imageMode ?? "auto";
  return {
    engine,
    storage: createStorageProvider({ engine, runner: createRunner() }),
    async ensureImage(name, onProgress, signal): Promise<ImageInfo> {
      const entry = lockEntry(lock, name);
      const r = await ensureImage(engine.images, name, {
        lock,
        mode,
        signal,
        onProgress: (ev) => onProgress(ev.step, ev.line),
      });
      const pkg = r.labels["twinbench.package-version"] ?? entry.packages[entry.package];
      return {
        name,
        tag: r.tag,
        id: r.id,
        family: entry.family,
        version: entry.version,
        packageVersion: pkg,
        cacheHit: r.cacheHit,
      };
    },
    writeReports: async (dir) => writeReports(dir, { history: (await historyForReports()).entries }),
    cpuSampler: sampleCpu,
    speedProbe: startSpeedProbe,
    taskSampler: readTaskCounters,
    hardwareCounters: () => detectHardwareCounters(createRunner()),
    calibrations: localCalibrationStore(engine),
    history: {
      append: (entry) => appendHistory(entry),
      read: async () => (await historyForReports()).entries ?? [],
    },
  };
}
