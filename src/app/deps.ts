/**
 * The library's run wiring: the adapters a run needs (engine, storage, images, report files), with no front-end
 * context. The CLI, the TUI and the bench all build their `RunDeps` here.
 */
import type { RunDeps, ImageInfo } from "./run.ts";
import { DockerEngine, type Engine } from "../adapters/docker/engine.ts";
import { loadLock, ensureImage } from "../adapters/images/index.ts";
import { lockEntry } from "../core/images/lock.ts";
import { createStorageProvider } from "../adapters/storage/index.ts";
import { createRunner } from "../adapters/host/runner.ts";
import { writeReports } from "../adapters/report-files.ts";
import type { ModeChoice } from "../core/images/context.ts";

export interface CreateRunDepsOptions {
  /** The engine to run on (default: the local engine, DOCKER_HOST respected). */
  engine?: Engine;
  /** How images are found or built (default "auto"). */
  imageMode?: ModeChoice;
}

export async function createRunDeps(opts: CreateRunDepsOptions = {}): Promise<RunDeps> {
  const engine = opts.engine ?? new DockerEngine("local");
  const lock = await loadLock();
  const mode = opts.imageMode ?? "auto";
  return {
    engine,
    storage: createStorageProvider({ engine, runner: createRunner() }),
    async ensureImage(name, onProgress, signal): Promise<ImageInfo> {
      const entry = lockEntry(lock, name);
      const r = await ensureImage(engine.images, name, { lock, mode, signal, onProgress: (ev) => onProgress(ev.step, ev.line) });
      const pkg = r.labels["twinbench.package-version"] ?? entry.packages[entry.package];
      return { name, tag: r.tag, id: r.id, family: entry.family, version: entry.version, packageVersion: pkg, cacheHit: r.cacheHit };
    },
    writeReports: (dir) => writeReports(dir),
  };
}
