/**
 * Wiring shared by the commands that touch the lab: the run's adapters (from the library's `createRunDeps`, after
 * making sure an engine answers), scenario loading with the lock's image names and this host's CPU count.
 */
import { availableParallelism } from "node:os";
import type { RunDeps } from "../../app/run.ts";
import { createRunDeps } from "../../app/deps.ts";
import { loadLock } from "../../adapters/images/index.ts";
import { loadScenarioFile } from "../../adapters/scenario-file.ts";
import { InputError } from "../../core/errors.ts";
import type { ModeChoice } from "../../core/images/context.ts";
import { ensureHost } from "./doctor.ts";
import type { CliContext } from "../context.ts";

export async function loadScenarioForRun(ctx: CliContext, file: string, sets: string[]) {
  const lock = await loadLock();
  return loadScenarioFile(file, { sets, lockImages: Object.keys(lock.images), hostCpus: availableParallelism() });
}

const MODES: readonly ModeChoice[] = ["auto", "debian", "official"];

/** `--image-mode` as typed on the command line. */
export function imageModeOption(s: string | undefined): ModeChoice | undefined {
  if (s === undefined) return undefined;
  const m = MODES.find((x) => x === s);
  if (!m) throw new InputError(`--image-mode: unknown mode "${s}"`, { code: "BAD_IMAGE_MODE", hint: `use one of ${MODES.join(", ")}` });
  return m;
}

export async function loadDeps(ctx: CliContext, o: { ensureHost?: boolean; imageMode?: string }): Promise<RunDeps> {
  if (o.ensureHost) await ensureHost({ out: ctx.err, fix: true });
  return createRunDeps({ engine: ctx.engine(), imageMode: imageModeOption(o.imageMode) });
}
