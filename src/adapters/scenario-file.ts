/**
 * Scenario files on disk: read the YAML (syntax errors with line and column), apply `--set` overrides, validate.
 * An invalid scenario throws InputError (code SCENARIO_INVALID) whose `problems` hold every error line; nothing
 * else is touched, so an invalid scenario creates nothing.
 */
import { readFile, access, readdir } from "node:fs/promises";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { parseDocument } from "yaml";
import { InputError } from "../core/base/errors.ts";
import { loadLock } from "./images/files.ts";
import { resolveShippedPath } from "./package-files.ts";
import type { Scenario } from "../core/model/scenario/schema.ts";
import { applyOverrides, overrideFor, type Override } from "../core/model/scenario/overrides.ts";
import { validateScenario } from "../core/model/scenario/validate.ts";
import { writeFileAtomic } from "./durable-file.ts";
import { loadCustomScripts } from "./custom-scripts.ts";

/** Options of {@link loadScenarioFile}: `--set` overrides and what validation checks against. */
export interface LoadScenarioOptions {
  /** `--set PATH=VALUE` arguments, applied in order before validation. */
  sets?: string[];
  /** The image names `servers[].image` may use (the keys of images/lock.yaml). */
  lockImages: string[];
  /** This host's CPU count, to check cpusets against. */
  hostCpus?: number;
}

/** A validated scenario with what was applied to get it. */
export interface LoadedScenario {
  scenario: Scenario;
  warnings: string[];
  /** The document as the file holds it (before overrides). */
  raw: unknown;
  /** The --set arguments applied (for run.json). */
  overrides: string[];
}

/** How many alias expansions a scenario may make: scenarios use a few anchors, never thousands. */
export const MAX_ALIAS_COUNT = 100;

/** Parse YAML text; syntax errors become `FILE: line L, column C: message` lines. */
export function parseScenarioYaml(text: string, file: string): { raw: unknown } | { errors: string[] } {
  const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  if (doc.errors.length) {
    return {
      errors: doc.errors.map((e) => {
        const pos = e.linePos?.[0];
        const msg = e.message.split("\n")[0].replace(/ at line \d+, column \d+:?$/, "");
        return pos ? `${file}: line ${pos.line}, column ${pos.col}: ${msg}` : `${file}: ${msg}`;
      }),
    };
  }
  let raw: unknown;
  try {
    raw = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (e) {
    // The yaml library refuses a document whose aliases expand past the limit (an "alias bomb"); that is bad input.
    if (!(e instanceof ReferenceError)) throw e;
    return { errors: [`${file}: ${e.message} (more than ${MAX_ALIAS_COUNT} alias expansions)`] };
  }
  if (raw === null || raw === undefined) return { errors: [`${file}: the file is empty`] };
  return { raw };
}

/** Text → validated scenario (the pure part of loadScenarioFile, for tests and for `--set` on a resumed run). */
export function loadScenarioText(text: string, file: string, opts: LoadScenarioOptions): LoadedScenario {
  const parsed = parseScenarioYaml(text, file);
  if ("errors" in parsed) throw invalid(file, parsed.errors, "fix the YAML syntax at the line and column shown");
  const sets = opts.sets ?? [];
  const o = applyOverrides(parsed.raw, sets);
  if (o.errors.length)
    throw invalid(
      file,
      o.errors,
      "write --set PATH=VALUE, PATH a dot path into the scenario (e.g. workload.threads=[1,4])",
    );
  const r = validateScenario(o.raw, file, { lockImages: opts.lockImages, hostCpus: opts.hostCpus });
  if ("errors" in r)
    throw invalid(
      file,
      r.errors.map((line) => blame(line, file, o.applied)),
      "fix each line above; `twinbench validate FILE` checks again",
    );
  return { scenario: r.scenario, warnings: r.warnings, raw: parsed.raw, overrides: sets };
}

/**
 * Read, override and validate a scenario file. A relative path missing in the working directory is looked up in
 * the package (its scenarios/ ship with it). Throws InputError SCENARIO_NOT_FOUND or SCENARIO_INVALID, whose
 * `problems` are `file: dot.path: message` lines.
 */
export async function loadScenarioFile(file: string, opts: LoadScenarioOptions): Promise<LoadedScenario> {
  let text: string;
  try {
    text = await readFile(resolveShippedPath(file), "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new InputError(`cannot read the scenario file ${file}: ${code ?? (e as Error).message}`, {
      code: "SCENARIO_NOT_FOUND",
      hint: "give the path of a scenario YAML file, e.g. scenarios/quick.yaml",
      cause: e,
    });
  }
  const loaded = loadScenarioText(text, file, opts);
  // The scenario's own Lua scripts: there, inside its folder and within bounds (read again when a run starts).
  await loadCustomScripts(loaded.scenario, file, loaded.raw);
  return loaded;
}

/**
 * Load a scenario file for a run: like {@link loadScenarioFile}, with the image names of the package's lock and
 * this host's CPU count filled in unless given.
 *
 * @example
 * ```ts
 * const { scenario, warnings } = await loadScenario("scenarios/quick.yaml", { sets: ["workload.duration=5s"] });
 * ```
 * @throws InputError `SCENARIO_NOT_FOUND`, `SCENARIO_INVALID` (its `problems` hold one `file: dot.path: message`
 *   line per error), `LOCK_NOT_FOUND`.
 */
export async function loadScenario(file: string, opts: Partial<LoadScenarioOptions> = {}): Promise<LoadedScenario> {
  const lockImages = opts.lockImages ?? Object.keys((await loadLock()).images);
  return loadScenarioFile(file, { ...opts, lockImages, hostCpus: opts.hostCpus ?? availableParallelism() });
}

/**
 * The text of a scenario's neutral config (`config.base`, default `lab/my.cnf`): from the working directory when
 * the path exists there, else the copy shipped in the package. Throws InputError CONFIG_BASE_MISSING.
 */
export async function readNeutralConfig(scenario: Pick<Scenario, "config">): Promise<string> {
  const path = resolveShippedPath(scenario.config.base);
  try {
    return await readFile(path, "utf8");
  } catch (e) {
    throw new InputError(
      `config.base ${scenario.config.base} cannot be read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      {
        code: "CONFIG_BASE_MISSING",
        hint: "give config.base as a path that exists (relative to the working directory), or leave it at lab/my.cnf",
        cause: e,
      },
    );
  }
}

/** Write a scenario file atomically (durable-file.ts); refuses to overwrite unless `force`. */
export async function writeScenarioFile(file: string, text: string, opts: { force?: boolean } = {}): Promise<void> {
  if (!opts.force) {
    const exists = await access(file).then(
      () => true,
      () => false, // not there (or not reachable): the write below reports a real problem with the path
    );
    if (exists)
      throw new InputError(`${file} exists`, {
        code: "FILE_EXISTS",
        hint: "choose another -o FILE, or pass --force to overwrite it",
      });
  }
  await writeFileAtomic(file, text);
}

function invalid(file: string, problems: string[], hint: string): InputError {
  return new InputError(
    `${file} is not a valid scenario (${problems.length} problem${problems.length === 1 ? "" : "s"})`,
    {
      code: "SCENARIO_INVALID",
      problems,
      hint,
    },
  );
}

/** Append "(from --set X)" to a validation line whose path an override wrote. */
function blame(line: string, file: string, applied: readonly Override[]): string {
  if (!applied.length || !line.startsWith(`${file}: `)) return line;
  const rest = line.slice(file.length + 2);
  const cut = rest.indexOf(": ");
  if (cut < 0) return line;
  const o = overrideFor(rest.slice(0, cut).split("."), applied);
  return o ? `${line} (from --set ${o.set})` : line;
}

/** The scenario files (*.yaml, *.yml) in `dir`, sorted by name; none when the folder does not exist. */
export async function listScenarioFiles(dir: string): Promise<string[]> {
  const names = await readdir(dir).catch((e: NodeJS.ErrnoException) => {
    if (e.code === "ENOENT") return [] as string[]; // no scenarios folder: an empty list, the screen says so
    throw e;
  });
  return names
    .filter((n) => /\.ya?ml$/.test(n))
    .sort()
    .map((n) => join(dir, n));
}
