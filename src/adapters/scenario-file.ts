/**
 * Scenario files on disk: read the YAML (syntax errors with line and column), apply `--set` overrides, validate.
 * An invalid scenario throws InputError (code SCENARIO_INVALID) whose `problems` hold every error line; nothing
 * else is touched, so an invalid scenario creates nothing.
 */
import { readFile, rename, writeFile, access, readdir } from "node:fs/promises";
import { dirname, basename, join } from "node:path";
import { parseDocument } from "yaml";
import { InputError } from "../core/errors.ts";
import type { Scenario } from "../core/scenario/schema.ts";
import { applyOverrides, overrideFor, type Override } from "../core/scenario/overrides.ts";
import { validateScenario } from "../core/scenario/validate.ts";

export interface LoadScenarioOptions {
  /** `--set PATH=VALUE` arguments, applied in order before validation. */
  sets?: string[];
  lockImages: string[];
  hostCpus?: number;
}

export interface LoadedScenario {
  scenario: Scenario;
  warnings: string[];
  /** The document as the file holds it (before overrides). */
  raw: unknown;
  /** The --set arguments applied (for run.json). */
  overrides: string[];
}

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
  const raw: unknown = doc.toJS();
  if (raw === null || raw === undefined) return { errors: [`${file}: the file is empty`] };
  return { raw };
}

/** Text → validated scenario (the pure part of loadScenarioFile, for tests and for `--set` on a resumed run). */
export function loadScenarioText(text: string, file: string, opts: LoadScenarioOptions): LoadedScenario {
  const parsed = parseScenarioYaml(text, file);
  if ("errors" in parsed) throw invalid(file, parsed.errors, "fix the YAML syntax at the line and column shown");
  const sets = opts.sets ?? [];
  const o = applyOverrides(parsed.raw, sets);
  if (o.errors.length) throw invalid(file, o.errors, "write --set PATH=VALUE, PATH a dot path into the scenario (e.g. workload.threads=[1,4])");
  const r = validateScenario(o.raw, file, { lockImages: opts.lockImages, hostCpus: opts.hostCpus });
  if ("errors" in r) throw invalid(file, r.errors.map((line) => blame(line, file, o.applied)), "fix each line above; `twinbench validate FILE` checks again");
  return { scenario: r.scenario, warnings: r.warnings, raw: parsed.raw, overrides: sets };
}

export async function loadScenarioFile(file: string, opts: LoadScenarioOptions): Promise<LoadedScenario> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new InputError(`cannot read the scenario file ${file}: ${code ?? (e as Error).message}`, {
      code: "SCENARIO_NOT_FOUND",
      hint: "give the path of a scenario YAML file, e.g. scenarios/quick.yaml",
      cause: e,
    });
  }
  return loadScenarioText(text, file, opts);
}

/** Write a scenario file atomically (temp file, then rename); refuses to overwrite unless `force`. */
export async function writeScenarioFile(file: string, text: string, opts: { force?: boolean } = {}): Promise<void> {
  if (!opts.force) {
    const exists = await access(file).then(
      () => true,
      () => false,
    );
    if (exists) throw new InputError(`${file} exists`, { code: "FILE_EXISTS", hint: "choose another -o FILE, or pass --force to overwrite it" });
  }
  const tmp = join(dirname(file), `.${basename(file)}.${process.pid}.tmp`);
  await writeFile(tmp, text, "utf8");
  await rename(tmp, file);
}

function invalid(file: string, problems: string[], hint: string): InputError {
  return new InputError(`${file} is not a valid scenario (${problems.length} problem${problems.length === 1 ? "" : "s"})`, {
    code: "SCENARIO_INVALID",
    problems,
    hint,
  });
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

/** The neutral lab config a scenario's `config.base` names (relative to the working directory). */
export async function readNeutralCnf(scenario: Pick<Scenario, "config">): Promise<string> {
  const path = scenario.config.base;
  try {
    return await readFile(path, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
    throw new InputError(`config.base ${path} does not exist`, { code: "CONFIG_BASE_MISSING", hint: "run from the repository root, or give config.base as a path that exists" });
  }
}

/** The scenario files (*.yaml, *.yml) in `dir`, sorted by name; none when the folder does not exist. */
export async function listScenarioFiles(dir: string): Promise<string[]> {
  const names = await readdir(dir).catch((e: NodeJS.ErrnoException) => {
    if (e.code === "ENOENT") return [] as string[]; // no scenarios folder: an empty list, the screen says so
    throw e;
  });
  return names.filter((n) => /\.ya?ml$/.test(n)).sort().map((n) => join(dir, n));
}
