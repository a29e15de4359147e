/**
 * What happens before `runScenario`, shared by the CLI's `run` and the TUI session: resolve the scenario (a file
 * with `--set` overrides, or the manifest of a run to resume), make sure an engine answers, wire the adapters,
 * sweep what dead runs left behind, and read the neutral config.
 */
import type { Scenario } from "../core/scenario/schema.ts";
import type { ModeChoice } from "../core/images/context.ts";
import type { Engine } from "../adapters/docker/engine.ts";
import { readNeutralConfig } from "../adapters/scenario-file.ts";
import { readRunManifest } from "../adapters/report-files.ts";
import { createRunDeps } from "./deps.ts";
import { ensureHost } from "./host-check.ts";
import { cleanResources } from "./clean.ts";
import { loadScenario } from "./views.ts";
import type { RunDeps } from "./run.ts";

export interface RunInput {
  scenario: Scenario;
  scenarioFile?: string;
  overrides: string[];
  /** Warnings of the scenario file (none when resuming). */
  warnings: string[];
}

/** A scenario file with its overrides, or (`resume`) the scenario, file and overrides an earlier run recorded. */
export async function resolveRunInput(o: { file: string; sets: string[]; resume?: string }): Promise<RunInput> {
  if (o.resume) {
    const manifest = await readRunManifest(o.resume);
    return { scenario: manifest.scenario, scenarioFile: manifest.scenarioFile, overrides: manifest.overrides, warnings: [] };
  }
  const loaded = await loadScenario(o.file, o.sets);
  return { scenario: loaded.scenario, scenarioFile: o.file, overrides: o.sets, warnings: loaded.warnings };
}

export interface PreparedLab {
  deps: RunDeps;
  neutralCnf: string;
  /** What the start-up sweep removed, as notices for the user. */
  notices: string[];
}

/**
 * Engine check (and `doctor --fix` on a fresh machine, saying so through `log`), adapters, the start-up sweep of
 * resources whose run's process is gone, and the neutral config.
 */
export async function prepareLab(scenario: Scenario, o: { log: (line: string) => void; engine?: Engine; imageMode?: ModeChoice; checkHost?: boolean }): Promise<PreparedLab> {
  if (o.checkHost ?? true) await ensureHost({ out: o.log, fix: true });
  const deps = await createRunDeps({ engine: o.engine, imageMode: o.imageMode ?? scenario.imageMode });
  const swept = await cleanResources(deps.engine, { orphansOnly: true, storage: deps.storage });
  const notices: string[] = [];
  const n = swept.containers.length + swept.networks.length + swept.volumes.length;
  if (n > 0) notices.push(`removed ${n} resources left by earlier runs whose process is gone`);
  for (const s of swept.storage.filter((l) => !/skip|alive|running/i.test(l))) notices.push(`storage: ${s}`);
  return { deps, neutralCnf: await readNeutralConfig(scenario), notices };
}
