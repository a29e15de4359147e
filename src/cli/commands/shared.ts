/**
 * Wiring shared by the commands that touch the lab: the run's adapters (from the library's `createRunDeps`, after
 * making sure an engine answers), scenario loading with the lock's image names and this host's CPU count.
 */
import { availableParallelism } from "node:os";
import type { RunDeps } from "../../app/run.ts";
import { createRunDeps } from "../../app/deps.ts";
import { loadLock, parseModeChoice } from "../../adapters/images/index.ts";
import { loadScenarioFile } from "../../adapters/scenario-file.ts";
import { ensureHost } from "./doctor.ts";
import type { CliContext } from "../context.ts";

export async function loadScenarioForRun(ctx: CliContext, file: string, sets: string[]) {
  const lock = await loadLock();
  return loadScenarioFile(file, { sets, lockImages: Object.keys(lock.images), hostCpus: availableParallelism() });
}

export async function loadDeps(ctx: CliContext, o: { ensureHost?: boolean; imageMode?: string }): Promise<RunDeps> {
  if (o.ensureHost) await ensureHost({ out: ctx.err, fix: true });
  return createRunDeps({ engine: ctx.engine(), imageMode: o.imageMode === undefined ? undefined : parseModeChoice(o.imageMode) });
}
