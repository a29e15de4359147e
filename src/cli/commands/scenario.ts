/**
 * `twinbench validate FILE…`, `twinbench import-cmd 'sysbench …'` and `twinbench plan FILE`. None of them starts
 * anything. The image lock, the config renderer and the host's CPU count come through the context (defaults: the
 * repository's images/lock.yaml, src/core/config/render.ts, os.availableParallelism()).
 */
import { availableParallelism } from "node:os";
import type { Command } from "commander";
import { InputError, isTwinbenchError } from "../../core/base/errors.ts";
import { adaptiveRepeats, parseDuration, parsePercent, type Scenario } from "../../core/model/scenario/schema.ts";
import { designForBudget } from "../../core/plan/design/design.ts";
import { designLines } from "../../core/report/design.ts";
import { type Design } from "../../core/plan/design/types.ts";
import type { Calibration } from "../../core/plan/calibration/schema.ts";
import { predictPrecision } from "../../core/plan/precision.ts";
import { hostCalibration } from "../../adapters/calibration-store.ts";
import type { Engine } from "../../core/model/engine/engine.ts";
import type { TranslationEntry } from "../../core/model/results.ts";
import { importCmd } from "../../core/model/scenario/import-cmd.ts";
import { planRun } from "../../core/plan/plan.ts";
import { formatSeconds } from "../../core/base/units.ts";
import { type SetupCosts } from "../../core/model/setup-costs.ts";
import type { ImagePin } from "../../core/report/plan.ts";
import { lockImageNames, planFit, planLines } from "../../app/views.ts";
import { assertFits, type FitReport, type HostResources } from "../../core/plan/fit.ts";
import { hostResources } from "../../adapters/host/resources.ts";
import { loadScenarioFile, writeScenarioFile } from "../../adapters/scenario-file.ts";
import { adaptiveOverrides } from "./run-options.ts";
import { planScriptCheck } from "../../app/scripts.ts";

export interface ScenarioCommandsContext {
  out: (line: string) => void;
  err?: (line: string) => void;
  /** Image names in the lock (default: keys of images/lock.yaml). */
  loadLockImages?: () => Promise<string[]>;
  /** Lock entries for `plan` (default: from images/lock.yaml). */
  loadPins?: () => Promise<ImagePin[]>;
  /** Which mirror image builds use, as one line (default: from images/lock.yaml and the host's apt sources). */
  loadMirrors?: () => Promise<string>;
  /** The config renderer's translation report per server id (default: src/core/config/render.ts). */
  renderTranslations?: (scenario: Scenario) => Promise<Record<string, TranslationEntry[]>>;
  /** Measured set-up costs from earlier runs, if any. */
  setupCosts?: () => Promise<Partial<SetupCosts>>;
  hostCpus?: () => number;
  /** The local engine, for the host's calibration (`plan` with a precision target). */
  engine?: () => Engine;
  /** The engine host's memory and cores for `plan`'s fit check (default: the engine's facts, src/adapters/host/resources.ts). */
  hostResources?: () => Promise<{ host: HostResources; note?: string }>;
  /** This host's calibration (default: from the engine's facts and the calibration store). */
  loadCalibration?: () => Promise<{ key: string; calibration: Calibration | null }>;
}

/** The host's calibration for `plan`: a damaged file is an error; no engine to ask is a warning (none assumed). */
async function planCalibration(
  ctx: ScenarioCommandsContext,
  warn: (l: string) => void,
): Promise<{ key?: string; calibration: Calibration | null }> {
  const load = ctx.loadCalibration ?? (ctx.engine ? () => hostCalibration(ctx.engine!()) : undefined);
  if (!load) return { calibration: null };
  try {
    return await load();
  } catch (e) {
    if (isTwinbenchError(e) && e.code === "CALIBRATION_FILE_CORRUPT") throw e;
    warn(
      `warning: no host facts for the calibration (${(e as Error).message}): the prediction assumes the notes' figures`,
    );
    return { calibration: null };
  }
}

const collect = (v: string, prev: string[]) => [...prev, v];

/** The design `plan --budget` prints: the budget, and --precision (else the scenario's own target, if adaptive). */
function planDesign(
  s: Scenario,
  o: { budget?: string; precision?: string },
  calibration: Calibration | null,
  setupCosts?: Partial<SetupCosts>,
): Design {
  const budgetSeconds = parseDuration(o.budget ?? "");
  if (budgetSeconds === undefined || !(budgetSeconds > 0))
    throw new InputError(`--budget ${o.budget}: expected a duration like "8h" or "30m"`, {
      code: "DESIGN_OPTIONS",
      hint: "e.g. --budget 8h",
    });
  const target = o.precision ?? adaptiveRepeats(s.workload)?.precision;
  return designForBudget({
    scenario: s,
    budgetSeconds,
    calibration,
    setupCosts,
    precisionPct: target === undefined ? undefined : parsePercent(target),
  });
}

export function registerScenarioCommands(program: Command, ctx: ScenarioCommandsContext): void {
  const err = ctx.err ?? ctx.out;
  const lockImages = ctx.loadLockImages ?? lockImageNames;
  const hostCpus = ctx.hostCpus ?? availableParallelism;
  const host = ctx.hostResources ?? (() => hostResources(ctx.engine?.()));

  program
    .command("validate")
    .description("check scenario files; exit 0, or 2 with every problem (starts nothing)")
    .argument("<files...>", "scenario files")
    .option("--set <path=value>", "override a scenario value (repeatable), VALUE parsed as YAML", collect, [])
    .action(async (files: string[], o: { set: string[] }) => {
      const images = await lockImages();
      const problems: string[] = [];
      let bad = 0;
      for (const file of files) {
        try {
          const r = await loadScenarioFile(file, { sets: o.set, lockImages: images, hostCpus: hostCpus() });
          const plan = planRun(r.scenario);
          ctx.out(`${file}: ok (${plan.cells.length} cells, about ${formatSeconds(plan.estimate.totalSeconds)})`);
          for (const w of r.warnings) err(`warning: ${w}`);
        } catch (e) {
          if (!(e instanceof InputError)) throw e;
          bad++;
          problems.push(...(e.problems.length ? e.problems : [`${file}: ${e.message}`]));
        }
      }
      if (bad)
        throw new InputError(`${bad} of ${files.length} scenario file${files.length === 1 ? " is" : "s are"} invalid`, {
          code: "SCENARIO_INVALID",
          problems,
          hint: "fix each line above; each names the file, the dot path and the offending value",
        });
    });

  program
    .command("import-cmd")
    .description("turn a sysbench command line (0.4/0.5 or 1.0) into a scenario file")
    .argument("<cmdline...>", "the sysbench command line, quoted as one argument")
    .option("-o, --out <file>", "write the scenario here instead of printing it")
    .option("--name <name>", "scenario name", "imported")
    .option("--force", "overwrite --out if it exists")
    .action(async (words: string[], o: { out?: string; name: string; force?: boolean }) => {
      const r = importCmd(words.join(" "), { name: o.name });
      for (const w of r.warnings) err(`warning: ${w}`);
      if (o.out) {
        await writeScenarioFile(o.out, r.yaml, { force: o.force });
        ctx.out(`wrote ${o.out}`);
      } else for (const l of r.yaml.replace(/\n$/, "").split("\n")) ctx.out(l);
    });

  program
    .command("plan")
    .description(
      "print a scenario's cells, estimate, sysbench argv, image pins, storage, config translation, and its memory and CPU fit on the engine host; exit 2 when it does not fit (starts nothing)",
    )
    .argument("<file>", "scenario file")
    .option("--set <path=value>", "override a scenario value (repeatable), VALUE parsed as YAML", collect, [])
    .option("--json", "print the resolved scenario and plan as JSON")
    .option("--max-cells <n>", "list at most N cells (with --details)", (v) => {
      const n = Number(v);
      if (!/^\d+$/.test(v.trim()) || !Number.isSafeInteger(n) || n < 1)
        throw new InputError(`--max-cells ${JSON.stringify(v)}: expected a whole number of 1 or more`, {
          code: "CLI_OPTION_INVALID",
          hint: "e.g. --max-cells 20",
        });
      return n;
    })
    .option("--details", "also each test's script, the sysbench argv, the config translation and every cell")
    .option(
      "--precision <pct>",
      'adaptive repeats until each interval is within ± this (e.g. "3%"): sets workload.repeats to { min, max, precision }',
    )
    .option("--budget <duration>", 'wall-time budget of an adaptive run (e.g. "30m"): sets workload.budget')
    .action((file: string, o: PlanOptions) => planCommand(file, o, { ctx, err, lockImages, hostCpus, host }));
}

/** `twinbench plan`'s options. */
interface PlanOptions {
  set: string[];
  json?: boolean;
  maxCells?: number;
  details?: boolean;
  precision?: string;
  budget?: string;
}

/**
 * `twinbench plan FILE`: the scenario loaded with --precision/--budget as overrides, then its plan (as JSON or as
 * lines), its design for a budget, and its fit on the engine host, which refuses a scenario that does not fit.
 */
async function planCommand(
  file: string,
  o: PlanOptions,
  deps: {
    ctx: ScenarioCommandsContext;
    err: (line: string) => void;
    lockImages: () => Promise<string[]>;
    hostCpus: () => number;
    host: Parameters<typeof planFit>[1];
  },
): Promise<void> {
  const { ctx, err, lockImages, hostCpus, host } = deps;
  const load = async (sets: string[]) =>
    loadScenarioFile(file, { sets, lockImages: await lockImages(), hostCpus: hostCpus() });
  // --precision/--budget become the same overrides as in `run` (adaptiveOverrides), so plan shows what run will do.
  const base = await load(o.set);
  // A fixed count takes no budget (it would only warn): with one, --budget is the design's alone.
  const adaptive = o.precision !== undefined || adaptiveRepeats(base.scenario.workload) !== undefined;
  const extra = adaptiveOverrides(base.scenario.workload.repeats, adaptive ? o : { precision: o.precision });
  const loaded = extra.length ? await load([...o.set, ...extra]) : base;
  // The scenario's own Lua scripts, loaded by sysbench in the load image before anything is prepared.
  const scriptNote = await planScriptCheck(ctx.engine, loaded.scenario, file);
  if (scriptNote) err(`note: ${scriptNote}`);
  const setupCosts = ctx.setupCosts ? await ctx.setupCosts() : undefined;
  const calibration =
    adaptiveRepeats(loaded.scenario.workload) || o.budget !== undefined ? await planCalibration(ctx, err) : undefined;
  // --budget: the budget-first design (src/core/plan/design/) of the scenario's matrix, beside its plan as it stands.
  const design =
    o.budget !== undefined ? planDesign(loaded.scenario, o, calibration?.calibration ?? null, setupCosts) : null;
  if (o.json) {
    const plan = planRun(loaded.scenario, { setupCosts });
    const precision =
      calibration && adaptiveRepeats(loaded.scenario.workload)
        ? predictPrecision(loaded.scenario, calibration.calibration, { setupCosts })
        : null;
    const designJson = design ? { ...design, scenario: undefined } : null;
    const fit = (await planFit(loaded.scenario, host, err)).report;
    ctx.out(
      JSON.stringify(
        {
          file,
          overrides: loaded.overrides,
          warnings: loaded.warnings,
          scenario: loaded.scenario,
          plan,
          precision,
          design: designJson,
          fit,
        },
        null,
        2,
      ),
    );
    assertFits(fit);
    return;
  }
  let fit: FitReport | undefined;
  const lines = await planLines(file, {
    loaded,
    maxCells: o.maxCells,
    details: o.details,
    setupCosts,
    warn: err,
    pins: ctx.loadPins,
    mirrors: ctx.loadMirrors,
    translations: ctx.renderTranslations,
    calibration: adaptiveRepeats(loaded.scenario.workload) ? calibration : undefined,
    host,
    onFit: (f) => (fit = f),
  });
  for (const l of lines) ctx.out(l);
  if (design) for (const l of designLines(design, { details: o.details })) ctx.out(l);
  // After the plan is printed: a scenario that does not fit this host is refused, as `run` would refuse it.
  if (fit) assertFits(fit);
}
