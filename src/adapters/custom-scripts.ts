/**
 * A scenario's own Lua scripts on disk (core/model/scenario/custom.ts): found next to the scenario file, checked to
 * stay inside its folder (symbolic links resolved), bounded, read and hashed. The run copies them into the load
 * sidecar through the engine's API, so a remote engine needs no shared folder.
 */
import { readFile, readdir, realpath, stat } from "node:fs/promises";
import { dirname, join, relative, resolve, sep } from "node:path";
import { InputError } from "../core/base/errors.ts";
import {
  CUSTOM_LIMITS,
  isScriptFile,
  mainFile,
  scriptHash,
  type CustomFile,
  type LoadedScript,
} from "../core/model/scenario/custom.ts";
import type { Scenario } from "../core/model/scenario/schema.ts";
import { resolveShippedPath } from "./package-files.ts";

/** The dot path a custom script's problems are reported at: its test entry, or its workload.scripts entry. */
function fieldOf(raw: unknown, scenario: Scenario, test: string): string {
  const i = scenario.workload.tests.indexOf(test);
  const w = (raw as { workload?: { tests?: unknown[]; scripts?: Record<string, unknown> } } | null)?.workload;
  const entry = i >= 0 ? w?.tests?.[i] : undefined;
  if (entry !== null && typeof entry === "object") return `workload.tests.${i}.script`;
  return `workload.scripts.${test}.path`;
}

const errno = (e: unknown) => (e as NodeJS.ErrnoException).code ?? (e as Error).message;

/** Every regular file under `dir` (relative paths with /), bounded in count and bytes. */
async function walk(dir: string, root: string, out: string[], problems: string[]): Promise<void> {
  for (const d of await readdir(dir, { withFileTypes: true })) {
    const full = join(dir, d.name);
    if (d.isDirectory()) await walk(full, root, out, problems);
    else if (d.isFile() || d.isSymbolicLink()) out.push(relative(root, full).split(sep).join("/"));
    if (out.length > CUSTOM_LIMITS.files) {
      problems.push(`${relative(root, dir) || "the folder"} holds more than ${CUSTOM_LIMITS.files} files`);
      return;
    }
  }
}

/** Whether `p` (a real path) is `base` or inside it. */
const inside = (p: string, base: string) => p === base || p.startsWith(base.endsWith(sep) ? base : base + sep);

/** One custom script read, or the problems that stop it. */
async function readScript(
  base: string,
  test: string,
  s: NonNullable<Scenario["workload"]["scripts"]>[string],
): Promise<LoadedScript | string[]> {
  const full = resolve(base, s.path);
  let real: string;
  try {
    real = await realpath(full);
  } catch (e) {
    return [`${s.path} cannot be read (${errno(e)}): give a path relative to the scenario's folder (${base})`];
  }
  if (!inside(real, base))
    return [`${s.path} leads out of the scenario's folder (to ${real}): the script must be inside ${base}`];
  const st = await stat(real);
  const rels: string[] = [];
  const problems: string[] = [];
  if (isScriptFile(s.path)) {
    if (!st.isFile()) return [`${s.path} is not a file`];
    rels.push(mainFile(s));
  } else {
    if (!st.isDirectory()) return [`${s.path} is not a folder (a script file's name ends in .lua)`];
    await walk(real, real, rels, problems);
    if (!rels.includes(mainFile(s))) problems.push(`${s.path} has no main script ${mainFile(s)} (give main: FILE.lua)`);
  }
  if (problems.length) return problems;
  const root = isScriptFile(s.path) ? dirname(real) : real;
  const files: CustomFile[] = [];
  let bytes = 0;
  for (const rel of rels.sort()) {
    const path = resolve(root, rel);
    const r = await realpath(path);
    if (!inside(r, base)) return [`${rel} in ${s.path} leads out of the scenario's folder (to ${r})`];
    const content = await readFile(r, "utf8");
    bytes += Buffer.byteLength(content);
    if (bytes > CUSTOM_LIMITS.bytes) return [`${s.path} holds more than ${CUSTOM_LIMITS.bytes / 2 ** 20} MiB`];
    files.push({ rel, content });
  }
  return { test, path: s.path, writes: s.writes, main: mainFile(s), files, sha256: scriptHash(files) };
}

/**
 * The scenario's custom scripts, read from beside `scenarioFile` (a shipped scenario's from the package). Throws
 * InputError SCENARIO_INVALID with one `file: dot.path: problem` line per script that is missing, leaves the
 * scenario's folder, or exceeds the bounds. `raw` (the document) tells which field to name.
 */
export async function loadCustomScripts(
  scenario: Scenario,
  scenarioFile: string,
  raw?: unknown,
): Promise<LoadedScript[]> {
  const scripts = Object.entries(scenario.workload.scripts ?? {}).filter(([t]) => scenario.workload.tests.includes(t));
  if (!scripts.length) return [];
  const base = await realpath(dirname(resolve(resolveShippedPath(scenarioFile))));
  const out: LoadedScript[] = [];
  const lines: string[] = [];
  for (const [test, s] of scripts) {
    const r = await readScript(base, test, s);
    if (Array.isArray(r)) for (const p of r) lines.push(`${scenarioFile}: ${fieldOf(raw, scenario, test)}: ${p}`);
    else out.push(r);
  }
  if (lines.length)
    throw new InputError(`${scenarioFile} names custom scripts that cannot be used (${lines.length})`, {
      code: "SCENARIO_INVALID",
      problems: lines,
      hint: "put each script (or its folder) next to the scenario file, and give its path relative to that folder",
    });
  return out;
}
