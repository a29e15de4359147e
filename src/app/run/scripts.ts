/**
 * The custom scripts stage: the scenario's own Lua scripts read from beside its file before anything is created,
 * their hashes in run.json (a resume refuses changed scripts), and each loaded once by sysbench in a throw-away
 * sidecar before any server starts.
 */
import { InputError } from "../../core/base/errors.ts";
import { scriptRecord, type LoadedScript } from "../../core/model/scenario/custom.ts";
import { loadCustomScripts } from "../../adapters/custom-scripts.ts";
import { checkScriptsLoad } from "../scripts.ts";
import type { RunContext } from "./context.ts";
import type { RunManifest } from "../../core/model/results.ts";
import type { ImageInfo, RunOptions } from "./types.ts";

/** The scripts a run needs, read from beside its scenario file; none when it has no custom tests. */
export async function readRunScripts(opts: Pick<RunOptions, "scenario" | "scenarioFile">): Promise<LoadedScript[]> {
  const { scenario } = opts;
  if (!Object.keys(scenario.workload.scripts ?? {}).length) return [];
  if (!opts.scenarioFile)
    throw new InputError(`scenario ${scenario.name} has custom scripts but no scenario file to find them beside`, {
      code: "SCENARIO_INVALID",
      hint: "run the scenario from its file (or pass the scripts as read, RunOptions.scripts)",
    });
  return loadCustomScripts(scenario, opts.scenarioFile);
}

/** What run.json keeps of the scripts: path, files and hash by test. */
export function scriptRecords(scripts: readonly LoadedScript[]): Record<string, ReturnType<typeof scriptRecord>> {
  return Object.fromEntries(scripts.map((s) => [s.test, scriptRecord(s)]));
}

/** A resumed run's scripts must be the ones it started with: same hash per test. */
export function assertSameScripts(
  session: { manifest: Pick<RunManifest, "customScripts">; dir: string },
  scripts: readonly LoadedScript[],
): void {
  const before = session.manifest.customScripts ?? {};
  for (const s of scripts) {
    const was = before[s.test]?.sha256;
    if (was !== undefined && was !== s.sha256)
      throw new InputError(
        `cannot resume ${session.dir}: custom test ${s.test} (${s.path}) changed since the run began`,
        {
          code: "RESUME_MISMATCH",
          hint: `put back the script the run began with (sha256 ${was}), or start a new run`,
        },
      );
  }
}

/** Load every script in the load image (`sysbench SCRIPT help`); throws SCRIPT_LOAD_FAILED naming file and line. */
export async function checkRunScripts(ctx: RunContext, load: ImageInfo): Promise<void> {
  if (!ctx.scripts.length) return;
  await ctx.time("scripts", () =>
    checkScriptsLoad(ctx.engine, {
      image: load.tag,
      scripts: ctx.scripts,
      labels: ctx.labels({}),
      runId: ctx.runId,
      signal: ctx.signal,
    }),
  );
}
