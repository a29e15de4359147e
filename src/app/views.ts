/**
 * The texts the front ends show without starting anything: a scenario's plan, its rendered configs, a run's
 * report, and the lists of scenario files and results folders. The CLI prints them; the TUI session pages them.
 */
import { availableParallelism } from "node:os";
import { InputError, isTwinbenchError } from "../core/base/errors.ts";
import type { Scenario } from "../core/model/scenario/schema.ts";
import type { TranslationEntry } from "../core/model/results.ts";
import { planRun } from "../core/plan/plan.ts";
import { type SetupCosts } from "../core/model/setup-costs.ts";
import { describePlan, type ImagePin } from "../core/report/plan.ts";
import { predictPrecision, precisionLines } from "../core/plan/precision.ts";
import { fitLines, fitScenario, resolvePools, type FitReport, type HostResources } from "../core/plan/fit.ts";
import type { Calibration } from "../core/plan/calibration/schema.ts";
import { renderConfig } from "../core/config/render.ts";
import { lockEntry } from "../core/images/lock.ts";
import { describeMirrors } from "../core/images/mirror.ts";
import { buildRunReport } from "../core/report/model.ts";
import { renderText } from "../core/report/text.ts";
import { formatTranslation } from "../core/config/lines.ts";
import { loadLock } from "../adapters/images/index.ts";
import { DockerEngine } from "../adapters/docker/engine.ts";
import { hostResources } from "../adapters/host/resources.ts";
import {
  loadScenario as loadScenarioWithLock,
  loadScenarioFile,
  readNeutralConfig,
  listScenarioFiles,
  type LoadedScenario,
} from "../adapters/scenario-file.ts";
import { listResultsFolders, type ResultsFolderEntry } from "../adapters/report-files.ts";
import { describeFolder, readAnyResultsFolder } from "../adapters/results-folders.ts";
import { buildSummary } from "../core/report/summary.ts";
import { renderSummaryText } from "../core/report/summary-render.ts";
import { compareHosts, renderHostsText } from "../core/report/hosts.ts";

/** Image names in images/lock.yaml. */
export async function lockImageNames(): Promise<string[]> {
  return Object.keys((await loadLock()).images);
}

/** A scenario file checked against the lock's images and this host's CPUs, with `--set` overrides applied. */
export function loadScenario(file: string, sets: string[] = []): Promise<LoadedScenario> {
  return loadScenarioWithLock(file, { sets });
}

/** The lock's entries, as `plan` lists them. */
export async function imagePins(): Promise<ImagePin[]> {
  const lock = await loadLock();
  return Object.entries(lock.images).map(([name, e]) => ({
    name,
    family: e.family,
    version: e.version,
    package: `${e.package}=${e.packages[e.package]}`,
    suites: e.suites.join(","),
  }));
}

/** Which Debian mirror image builds would use, and where it came from (the lock's override or the host's apt sources). */
export async function imageMirrors(): Promise<string> {
  return describeMirrors((await loadLock()).mirrors);
}

/** The config renderer's translation report per server id. */
export async function configTranslations(scenario: Scenario): Promise<Record<string, TranslationEntry[]>> {
  const lock = await loadLock();
  const neutral = await readNeutralConfig(scenario);
  const out: Record<string, TranslationEntry[]> = {};
  for (const s of scenario.servers) {
    const entry = lockEntry(lock, s.image);
    if (entry.family === "sysbench") continue;
    out[s.id] = renderConfig({
      neutral,
      family: entry.family,
      version: entry.version,
      storageKind: (s.storage ?? scenario.storage).kind,
      scenario,
      serverId: s.id,
    }).translation;
  }
  return out;
}

export interface PlanViewOptions {
  sets?: string[];
  maxCells?: number;
  setupCosts?: Partial<SetupCosts>;
  /** Warnings (scenario warnings, and a missing image lock or config translation, which only shorten the text). */
  warn: (line: string) => void;
  /** Overrides for the extras (tests). */
  pins?: () => Promise<ImagePin[]>;
  /** Which mirror image builds use, as one line (default: from the lock and the host's apt sources). */
  mirrors?: () => Promise<string>;
  translations?: (scenario: Scenario) => Promise<Record<string, TranslationEntry[]>>;
  /** The host's calibration for a precision target (null: none; absent: the prediction is not asked for). */
  calibration?: { key?: string; calibration: Calibration | null };
  /** The engine host's memory and cores (src/adapters/host/resources.ts): `plan` then shows the memory and CPU fit. */
  host?: () => Promise<{ host: HostResources; note?: string }>;
  /** Gets the fit, for a caller that refuses a scenario that does not fit (`plan`, after printing). */
  onFit?: (fit: FitReport) => void;
}

/** The local engine host's memory and cores (DOCKER_HOST respected), for `plan`'s fit in the TUI. */
export function engineHostResources(): Promise<{ host: HostResources; note?: string }> {
  return hostResources(new DockerEngine("local"));
}

/**
 * The memory and CPU fit of a scenario on the engine host (src/core/plan/fit.ts), with its lines for `plan`:
 * buffer pools from each server's resolved config, tmpfs sizes, the load, the host's memory and cores.
 */
export async function planFit(
  scenario: Scenario,
  host: () => Promise<{ host: HostResources; note?: string }>,
  warn: (l: string) => void,
): Promise<{ report: FitReport; lines: string[] }> {
  const { pools, warnings } = resolvePools(scenario, await readNeutralConfig(scenario));
  for (const w of warnings) warn(`warning: ${w}`);
  const h = await host();
  if (h.note) warn(`note: ${h.note}`);
  const report = fitScenario(scenario, pools, h.host);
  return { report, lines: fitLines(report) };
}

/** `twinbench plan FILE` as lines: cells, estimate, sysbench argv, image pins, storage, config translation. */
export async function planLines(file: string, o: PlanViewOptions & { loaded?: LoadedScenario }): Promise<string[]> {
  const r = o.loaded ?? (await loadScenario(file, o.sets ?? []));
  const plan = planRun(r.scenario, { setupCosts: o.setupCosts });
  const pins = await optional(o.pins ?? imagePins, o.warn, "image lock");
  const mirrors = await optional(o.mirrors ?? imageMirrors, o.warn, "image mirror");
  const translations = await optional(
    () => (o.translations ?? configTranslations)(r.scenario),
    o.warn,
    "config translation",
  );
  for (const w of r.warnings) o.warn(`warning: ${w}`);
  const fit = o.host ? await planFit(r.scenario, o.host, o.warn) : undefined;
  if (fit) o.onFit?.(fit.report);
  const lines = [
    ...describePlan(plan, r.scenario, { file, pins, mirrors, translations, maxCells: o.maxCells }),
    ...(fit?.lines ?? []),
  ];
  const prediction = o.calibration
    ? predictPrecision(r.scenario, o.calibration.calibration, { setupCosts: o.setupCosts })
    : null;
  return prediction ? [...lines, ...precisionLines(prediction, o.calibration!.calibration, o.calibration!.key)] : lines;
}

/** Pins and translations are extras of `plan`: if they fail, say why and show the rest. */
async function optional<T>(f: () => Promise<T>, warn: (l: string) => void, what: string): Promise<T | undefined> {
  try {
    return await f();
  } catch (e) {
    warn(`warning: no ${what}: ${isTwinbenchError(e) ? e.message : (e as Error).message}`);
    return undefined;
  }
}

/** `twinbench config render FILE [--server ID]` as lines: each server's cnf, translation report and asymmetries. */
export async function configRenderLines(file: string, o: { sets?: string[]; server?: string } = {}): Promise<string[]> {
  const { scenario } = await loadScenario(file, o.sets ?? []);
  const lock = await loadLock();
  const neutral = await readNeutralConfig(scenario);
  const servers = scenario.servers.filter((s) => !o.server || s.id === o.server);
  if (servers.length === 0)
    throw new InputError(`no server "${o.server}" in ${file}`, {
      code: "NO_SUCH_SERVER",
      hint: `servers: ${scenario.servers.map((s) => s.id).join(", ")}`,
    });
  const out: string[] = [];
  for (const s of servers) {
    const entry = lockEntry(lock, s.image);
    if (entry.family === "sysbench") continue;
    const r = renderConfig({
      neutral,
      family: entry.family,
      version: entry.version,
      storageKind: (s.storage ?? scenario.storage).kind,
      scenario,
      serverId: s.id,
    });
    out.push(
      `# ===== ${s.id} (${s.image}, ${entry.family} ${entry.version}) =====`,
      r.cnf.trimEnd(),
      "",
      `# translation report for ${s.id}:`,
    );
    out.push(...formatTranslation(r.translation), ...r.asymmetries.map((a) => `  ASYMMETRY: ${a}`), "");
  }
  return out;
}

/** A results folder's ratio table as `twinbench report DIR` prints it (warnings about the folder first). */
export async function reportText(dir: string): Promise<string> {
  const any = await readAnyResultsFolder(dir);
  const head = [...any.warnings.map((w) => `warning: ${w}`), describeFolder(any)];
  if (any.kind === "hosts") {
    const cmp = compareHosts(any.runs, { notes: any.notes });
    const perHost = any.runs
      .filter((r) => r.manifest && r.cells)
      .map((r) => `Host ${r.id} (${r.dir}):\n${renderText(buildRunReport(r.manifest!, r.cells!)).trimEnd()}`);
    return [...head, ...perHost, renderHostsText(cmp).trimEnd()].join("\n");
  }
  const { manifest, cells } = any.folder;
  // The ratio table(s), then the execution summary side by side with its derived lines.
  return [
    ...head,
    renderText(buildRunReport(manifest, cells)).trimEnd(),
    "",
    renderSummaryText(buildSummary(manifest, cells)).trimEnd(),
  ].join("\n");
}

export interface ScenarioEntry {
  file: string;
  name: string;
  description: string;
  cells: number;
  estimateSeconds: number;
  /** Set when the file does not load (it is still listed, with this message). */
  error?: string;
}

/** Every scenario file in `dir`, loaded and planned (a file that does not load is listed with its error). */
export async function listScenarios(dir: string): Promise<ScenarioEntry[]> {
  const files = await listScenarioFiles(dir);
  const lockImages = await lockImageNames().catch(() => [] as string[]); // no lock: images are reported per file
  return Promise.all(
    files.map(async (file): Promise<ScenarioEntry> => {
      try {
        const { scenario } = await loadScenarioFile(file, { lockImages, hostCpus: availableParallelism() });
        const plan = planRun(scenario);
        return {
          file,
          name: scenario.name,
          description: scenario.description ?? "",
          cells: plan.cells.length,
          estimateSeconds: plan.estimate.totalSeconds,
        };
      } catch (e) {
        return {
          file,
          name: file.replace(/^.*\//, "").replace(/\.ya?ml$/, ""),
          description: "",
          cells: 0,
          estimateSeconds: 0,
          error: (e as Error).message,
        };
      }
    }),
  );
}

export type { ResultsFolderEntry };

/** Results folders under `dir`, newest first. */
export function listResults(dir: string): Promise<ResultsFolderEntry[]> {
  return listResultsFolders(dir);
}
