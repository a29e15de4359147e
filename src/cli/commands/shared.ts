/**
 * Wiring shared by the commands that touch the lab: adapters for the run engine, scenario loading with the
 * lock's image names and this host's CPU count.
 */
import type { RunDeps, ImageInfo } from "../../app/run.ts";
import { loadLock, ensureImage } from "../../adapters/images/index.ts";
import { lockEntry } from "../../core/images/lock.ts";
import { loadScenario } from "../../adapters/scenario-file.ts";
import { createStorageProvider } from "../../adapters/storage/index.ts";
import { createRunner } from "../../adapters/host/runner.ts";
import { writeReports } from "../../adapters/report-files.ts";
import { ensureHost } from "./doctor.ts";
import type { CliContext } from "../context.ts";
import type { ModeChoice } from "../../core/images/context.ts";

export async function loadScenarioForRun(ctx: CliContext, file: string, sets: string[]) {
  return loadScenario(file, { sets });
}

export async function loadDeps(ctx: CliContext, o: { ensureHost?: boolean; imageMode?: string }): Promise<RunDeps> {
  if (o.ensureHost) await ensureHost({ out: ctx.err, fix: true });
  const engine = ctx.engine();
  const lock = await loadLock();
  const mode = (o.imageMode ?? "auto") as ModeChoice;
  return {
    engine,
    storage: createStorageProvider({ docker: engine.docker, runner: createRunner() }),
    async ensureImage(name, onProgress, signal): Promise<ImageInfo> {
      const entry = lockEntry(lock, name);
      const r = await ensureImage(engine.docker, name, { lock, mode, signal, onProgress: (ev) => onProgress(ev.step, ev.line) });
      const pkg = r.labels["twinbench.package-version"] ?? entry.packages[entry.package];
      return { name, tag: r.tag, id: r.id, family: entry.family, version: entry.version, packageVersion: pkg, cacheHit: r.cacheHit };
    },
    writeReports: (dir) => writeReports(dir),
  };
}
