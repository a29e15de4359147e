/**
 * Wiring shared by the commands that touch the lab: the run's adapters (from the library's `createRunDeps`, after
 * making sure an engine answers), scenario loading with the lock's image names and this host's CPU count.
 */
import type { RunDeps } from "../../app/run.ts";
import { createRunDeps } from "../../app/deps.ts";
import { loadScenario } from "../../adapters/scenario-file.ts";
import { parseModeChoice } from "../../adapters/images/index.ts";
import { ensureHost } from "./doctor.ts";
import type { CliContext } from "../context.ts";

export async function loadScenarioForRun(ctx: CliContext, file: string, sets: string[]) {
  return loadScenario(file, { sets });
}

/** The run engine's adapters on the CLI's engine; with `ensureHost`, `doctor --fix` runs first. */
export async function loadDeps(ctx: CliContext, o: { ensureHost?: boolean; imageMode?: string }): Promise<RunDeps> {
  if (o.ensureHost) await ensureHost({ out: ctx.err, fix: true });
  return createRunDeps({
    engine: ctx.engine(),
    imageMode: o.imageMode === undefined ? undefined : parseModeChoice(o.imageMode),
  });
}
