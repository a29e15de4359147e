/**
 * What happens before `runScenario`, shared by the CLI's `run` and the TUI session: resolve the scenario (a file
 * with `--set` overrides, or the manifest of a run to resume), make sure an engine answers, wire the adapters,
 * sweep what dead runs left behind, and read the neutral config.
 */
import type { Scenario } from "../core/model/scenario/schema.ts";
import { InputError } from "../core/base/errors.ts";
import { MIN_UNITS_FOR_PRECISION_STOP } from "../core/stats/estimate.ts";
import { parseDuration, parsePercent } from "../core/model/scenario/schema.ts";
import type { Calibration } from "../core/plan/calibration/schema.ts";
import { designForBudget, designForecast } from "../core/plan/design/design.ts";
import { designLines } from "../core/report/design.ts";
import type { DesignForecast } from "../core/model/results.ts";
import { hostsOverride } from "../core/hosts/url.ts";
import type { ModeChoice } from "../core/images/context.ts";
import type { Engine } from "../core/model/engine/engine.ts";
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
  /** `--design`: the design's forecast, for run.json. */
  design?: DesignForecast;
}

/** A scenario file with its overrides, or (`resume`) the scenario, file and overrides an earlier run recorded. */
export async function resolveRunInput(o: { file: string; sets: string[]; resume?: string }): Promise<RunInput> {
  if (o.resume) {
    const manifest = await readRunManifest(o.resume);
    return {
      scenario: manifest.scenario,
      scenarioFile: manifest.scenarioFile,
      overrides: manifest.overrides,
      warnings: [],
    };
  }
  const loaded = await loadScenario(o.file, o.sets);
  return { scenario: loaded.scenario, scenarioFile: o.file, overrides: o.sets, warnings: loaded.warnings };
}

/** What `run` asks for: a scenario file with overrides (or a run to resume), hosts and the adaptive flags. */
export interface RunRequest {
  file: string;
  sets: string[];
  resume?: string;
  /** `--host ID=URL` flags: they replace the scenario's hosts (not on resume). */
  hosts?: string[];
  /** `--precision P`, `--budget D` (not on resume). */
  precision?: string;
  budget?: string;
  /**
   * `--design` (with --budget): apply the budget-first design (src/core/plan/design/) to the run's settings. The
   * host's calibration comes from `calibration`; the design's lines go to `log`.
   */
  design?: { calibration: () => Promise<Calibration | null>; log: (line: string) => void };
}

/**
 * The scenario a run will use: the file with its overrides, hosts and the adaptive flags as `--set` overrides (so
 * the scenario's validation names a bad value), or the recorded scenario of a run to resume. `adaptive` holds the
 * adaptive flags' overrides (they go into run.json with the others).
 */
export async function resolveRunRequest(o: RunRequest): Promise<RunInput & { adaptive: string[] }> {
  if (o.resume && (o.precision !== undefined || o.budget !== undefined || o.design))
    throw new InputError(
      "--resume takes the original run's settings: --precision, --budget and --design do not go with it",
      { code: "RESUME_OPTIONS", hint: `resume with \`twinbench run --resume ${o.resume}\` alone` },
    );
  if (o.resume) return { ...(await resolveRunInput({ file: o.file, sets: o.sets, resume: o.resume })), adaptive: [] };
  const sets = [...hostsOverride(o.hosts ?? []), ...o.sets];
  if (o.design) return designedRunInput(o, sets, o.design);
  const input = await resolveRunInput({ file: o.file, sets });
  // The flags' overrides depend on the validated repeats (a fixed count, or min/max kept): validated again with them.
  const adaptive = adaptiveOverrides(input.scenario.workload.repeats, o);
  return adaptive.length
    ? { ...(await resolveRunInput({ file: o.file, sets: [...sets, ...adaptive] })), adaptive }
    : { ...input, adaptive };
}

/**
 * `run --budget D --design`: the scenario with its hosts and overrides, designed for the budget (cell length,
 * warm-up, rounds, instances, test order; adaptive with --precision on one host), the design's settings as `--set`
 * overrides after the user's (they go into run.json as `adaptive`).
 */
async function designedRunInput(
  o: RunRequest,
  sets: string[],
  design: NonNullable<RunRequest["design"]>,
): Promise<RunInput & { adaptive: string[] }> {
  const budgetSeconds = o.budget === undefined ? undefined : parseDuration(o.budget);
  if (budgetSeconds === undefined || !(budgetSeconds > 0))
    throw new InputError(
      `--design needs --budget with a duration${o.budget === undefined ? "" : `, got ${JSON.stringify(o.budget)}`}`,
      { code: "DESIGN_OPTIONS", hint: "e.g. twinbench run FILE --budget 8h --design" },
    );
  const input = await resolveRunInput({ file: o.file, sets });
  const precisionPct = o.precision === undefined ? undefined : parsePercent(o.precision);
  if (o.precision !== undefined && precisionPct === undefined)
    throw new InputError(`--precision ${o.precision}: expected a percentage like "5%"`, {
      code: "DESIGN_OPTIONS",
      hint: "e.g. --precision 5%",
    });
  const d = designForBudget({
    scenario: input.scenario,
    budgetSeconds,
    calibration: await design.calibration(),
    precisionPct,
  });
  for (const l of designLines(d)) design.log(l);
  return {
    ...(await resolveRunInput({ file: o.file, sets: [...sets, ...d.overrides] })),
    adaptive: d.overrides,
    design: designForecast(d, new Date().toISOString()),
  };
}

/**
 * `--precision P` and `--budget D` as `--set` overrides, so the scenario's own validation checks them and names the
 * field: with --precision, a fixed `workload.repeats: R` becomes `{ min: max(4, R), max: 40, precision: P }` (4: the
 * fewest units a precision stop needs, estimateRun's first stage); a
 * repeats object keeps its min and max and takes P. A plain `--set workload.repeats=4` stays a fixed count.
 */
export function adaptiveOverrides(
  repeats: number | { min: number; max: number; precision: string | number },
  o: { precision?: string; budget?: string },
): string[] {
  const sets: string[] = [];
  if (o.precision !== undefined) {
    const [min, max] =
      typeof repeats === "number" ? [Math.max(MIN_UNITS_FOR_PRECISION_STOP, repeats), 40] : [repeats.min, repeats.max];
    sets.push(`workload.repeats={min: ${min}, max: ${max}, precision: ${JSON.stringify(o.precision)}}`);
  }
  if (o.budget !== undefined) sets.push(`workload.budget=${JSON.stringify(o.budget)}`);
  return sets;
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
export async function prepareLab(
  scenario: Scenario,
  o: { log: (line: string) => void; engine?: Engine; imageMode?: ModeChoice; checkHost?: boolean },
): Promise<PreparedLab> {
  if (o.checkHost ?? true) await ensureHost({ out: o.log, fix: true });
  const deps = await createRunDeps({ engine: o.engine, imageMode: o.imageMode ?? scenario.imageMode });
  const swept = await cleanResources(deps.engine, {
    orphansOnly: true,
    storage: deps.storage,
    affinity: deps.engine.location().local || undefined,
  });
  const notices: string[] = [];
  const n = swept.containers.length + swept.networks.length + swept.volumes.length;
  if (n > 0) notices.push(`removed ${n} resources left by earlier runs whose process is gone`);
  for (const s of swept.storage.filter((l) => !/skip|alive|running/i.test(l))) notices.push(`storage: ${s}`);
  for (const s of swept.affinity.filter((l) => !/skipped/.test(l))) notices.push(`CPU lists: ${s}`);
  return { deps, neutralCnf: await readNeutralConfig(scenario), notices };
}
