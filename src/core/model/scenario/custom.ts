/**
 * A user's own sysbench Lua script in a scenario. A test entry may be a mapping instead of a name:
 *
 *   tests:
 *     - oltp_read_only
 *     - { script: join-update.lua, writes: true }          # a file next to the scenario
 *     - { script: mixes/, main: run.lua, writes: false }   # a folder: its main script and helpers
 *
 * Validation lifts such entries out of the list before the schema sees it: the list keeps the test's name (given,
 * or the file's name) and `workload.scripts` maps that name to the script's path, relative to the scenario's folder.
 * The resolved scenario (run.json) holds that form, which validates again as it is. Pure: the files themselves are
 * read by adapters/custom-scripts.ts, copied into the load sidecar through the engine's API.
 */
import { createHash } from "node:crypto";
import { posix } from "node:path";
import { z } from "zod";
import { show } from "./suggest.ts";
import type { Problems } from "./validate-problems.ts";

/** Where the load sidecar holds the custom scripts: one folder per test, beside the stock scripts. */
export const SIDECAR_CUSTOM_ROOT = "/usr/share/sysbench/twinbench";

/** Bounds on what a custom script folder may hold (every input bounded). */
export const CUSTOM_LIMITS = { files: 64, bytes: 4 * 2 ** 20, pathChars: 512 } as const;

const TEST_ID = /^[a-z0-9][a-z0-9_-]{0,30}$/;
const relPath = z.string().min(1).max(CUSTOM_LIMITS.pathChars);

/** A custom script as `workload.scripts` holds it. */
export const CustomScriptSchema = z.strictObject({
  /** The script file, or a folder holding `main` and its helpers, relative to the scenario's folder. */
  path: relPath,
  /** Whether the script changes the data (fresh: per-test restores the snapshot before it). */
  writes: z.boolean(),
  /** A folder's main script (default main.lua). */
  main: relPath.optional(),
  /** "tpcc": after each cell, the TPC-C consistency conditions 1–4 on its server (a failure fails the cell), and
   *  new-orders per minute from the districts' order counters (core/model/tpcc.ts). */
  checks: z.literal("tpcc").optional(),
});
export type CustomScript = z.infer<typeof CustomScriptSchema>;

/** A custom test as `workload.tests` may list it. */
export const CustomTestSchema = z.strictObject({
  script: relPath,
  writes: z.boolean({ error: "expected writes: true or false (does the script change the data?)" }),
  name: z
    .string()
    .regex(TEST_ID, { message: "expected an id of lowercase letters, digits, - or _ (max 31)" })
    .optional(),
  main: relPath.optional(),
  checks: z
    .literal("tpcc", { error: "expected checks: tpcc (the TPC-C-like consistency checks) or no checks" })
    .optional(),
});

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/** The test name a script path gives: its file (or folder) name without .lua, in the id alphabet. */
export function defaultTestName(path: string): string {
  const base = posix.basename(path.replace(/\/+$/, "")).replace(/\.lua$/i, "");
  const name = base
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, "_")
    .replace(/^[^a-z0-9]+/, "")
    .slice(0, 31);
  return name || "custom";
}

/**
 * Why a script path cannot be used, or undefined: it must be relative and stay inside the scenario's folder
 * (no `..` out of it). The adapter checks the same of the real path, symbolic links resolved.
 */
export function scriptPathProblem(path: string): string | undefined {
  if (path.includes("\0")) return `${show(path)} holds a NUL character`;
  if (path.includes("\\")) return `${show(path)}: write the path with / (it is relative to the scenario's folder)`;
  if (posix.isAbsolute(path)) return `${show(path)} is absolute: give a path relative to the scenario's folder`;
  const n = posix.normalize(path);
  if (n === ".." || n.startsWith("../"))
    return `${show(path)} leaves the scenario's folder: the script must be in that folder or below it`;
  return undefined;
}

/**
 * Lift the mapping entries of `workload.tests` into `workload.scripts` (on a copy of the document). Problems of an
 * entry are reported at its own path (workload.tests.N.field); the entry is then dropped so the schema does not
 * report it a second time.
 */
export function liftCustomTests(raw: Record<string, unknown>, problems: Problems): Record<string, unknown> {
  const w = raw.workload;
  if (!isRecord(w) || !Array.isArray(w.tests) || !w.tests.some(isRecord)) return raw;
  const scripts: Record<string, unknown> = isRecord(w.scripts) ? { ...w.scripts } : {};
  const tests: unknown[] = [];
  // A refused entry still holds its place (as a name that resolves), so the list is not reported again as empty.
  const refused = (t: Record<string, unknown>) => {
    const name = `${defaultTestName(typeof t.script === "string" ? t.script : "custom")}`;
    if (!Object.hasOwn(scripts, name)) scripts[name] = { path: `${name}.lua`, writes: false };
    tests.push(name);
  };
  w.tests.forEach((t, i) => {
    if (!isRecord(t)) return void tests.push(t);
    const at = ["workload", "tests", i];
    const r = CustomTestSchema.safeParse(t);
    if (!r.success) {
      for (const iss of r.error.issues)
        problems.err(
          [...at, ...iss.path],
          iss.code === "unrecognized_keys"
            ? `unknown key${iss.keys.length === 1 ? "" : "s"} ${iss.keys.map((k) => show(k)).join(", ")}: a custom test takes script, writes, name, main and checks`
            : iss.path.length === 0 || iss.path[0] === "writes"
              ? iss.message
              : `${iss.message} (got ${show((t as Record<string, unknown>)[String(iss.path[0])])})`,
        );
      return refused(t);
    }
    const e = r.data;
    const bad = scriptPathProblem(e.script);
    if (bad) return void (problems.err([...at, "script"], bad), refused(t));
    if (e.main !== undefined) {
      const badMain = isScriptFile(e.script)
        ? `main names the script of a folder, and ${show(e.script)} is a file: drop main, or give the folder`
        : scriptPathProblem(e.main);
      if (badMain) return void (problems.err([...at, "main"], badMain), refused(t));
    }
    const name = e.name ?? defaultTestName(e.script);
    if (Object.hasOwn(scripts, name))
      return void problems.err([...at, "name"], `two custom tests are named ${show(name)}: give one a name of its own`);
    scripts[name] = {
      path: e.script,
      writes: e.writes,
      ...(e.main !== undefined ? { main: e.main } : {}),
      ...(e.checks !== undefined ? { checks: e.checks } : {}),
    };
    tests.push(name);
  });
  return { ...raw, workload: { ...w, tests, scripts } };
}

/** The sidecar folder of a custom test's files. */
export function sidecarDir(test: string): string {
  return `${SIDECAR_CUSTOM_ROOT}/${test}`;
}

/** A script path ending in .lua names one file; any other names a folder (its main script and helpers). */
export function isScriptFile(path: string): boolean {
  return /\.lua$/i.test(path);
}

/** The main script's path inside the test's folder: the file's own name, or a folder's `main` (default main.lua). */
export function mainFile(s: Pick<CustomScript, "path" | "main">): string {
  return isScriptFile(s.path) ? posix.basename(s.path) : posix.normalize(s.main ?? "main.lua");
}

/** The path sysbench is given for a custom test (its main script in the sidecar). */
export function sidecarScriptPath(test: string, s: Pick<CustomScript, "path" | "main">): string {
  return `${sidecarDir(test)}/${mainFile(s)}`;
}

/** One file of a custom script, relative to its folder in the sidecar. */
export interface CustomFile {
  rel: string;
  content: string;
}

/** A custom test's script as read for a run: its files and their hash (kept in run.json). */
export interface LoadedScript {
  test: string;
  /** As the scenario gives it (relative to the scenario's folder). */
  path: string;
  writes: boolean;
  /** The main script's path inside the test's sidecar folder. */
  main: string;
  files: CustomFile[];
  /** sha256 over every file's relative path and content, in path order. */
  sha256: string;
}

/** sha256 over the files (path, NUL, content, NUL each, in path order): changes when any file changes. */
export function scriptHash(files: readonly CustomFile[]): string {
  const h = createHash("sha256");
  for (const f of [...files].sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0)))
    h.update(f.rel).update("\0").update(f.content).update("\0");
  return h.digest("hex");
}

/** What run.json records of a custom script: where it came from and its hash, not its text. */
export function scriptRecord(s: LoadedScript): { path: string; main: string; files: string[]; sha256: string } {
  return { path: s.path, main: s.main, files: s.files.map((f) => f.rel).sort(), sha256: s.sha256 };
}

/** The files of a custom test as the sidecar holds them (absolute paths). */
export function sidecarFiles(s: LoadedScript): Array<{ path: string; content: string }> {
  return s.files.map((f) => ({ path: `${sidecarDir(s.test)}/${f.rel}`, content: f.content }));
}

/** LUA_PATH for a custom test: its own folder first (its helpers), then sysbench's own paths (`;;`). */
export function luaPathFor(test: string): string {
  const d = sidecarDir(test);
  return `${d}/?.lua;${d}/?/init.lua;;`;
}

/** The custom test whose sidecar script path this is, if any. */
export function customTestOfPath(path: string): string | undefined {
  const m = new RegExp(`^${SIDECAR_CUSTOM_ROOT.replace(/\//g, "\\/")}/([a-z0-9][a-z0-9_-]{0,30})/`).exec(path);
  return m?.[1];
}

/** A custom script's check in the sidecar (`sysbench SCRIPT help`): it loaded, or where Lua stopped. */
export type ScriptCheck = { ok: true } | { ok: false; file: string | null; line: number | null; message: string };

/**
 * Read `sysbench SCRIPT help`'s output and exit code. A script without a help function or options is fine
 * ("does not implement the 'help' command"); a Lua error is `FATAL: FILE:LINE: message`, with the sidecar's path
 * turned back into the scenario's (`toScenarioPath`).
 */
export function readScriptCheck(
  output: string,
  exitCode: number | null,
  toScenarioPath: (sidecarPath: string) => string,
): ScriptCheck {
  if (exitCode === 0 || /test does not implement the 'help' command/.test(output)) {
    // A load error can still come before that line (a helper's error is raised at require time).
    if (!/^FATAL:/m.test(output)) return { ok: true };
  }
  const fatal = output.split("\n").find((l) => l.startsWith("FATAL:"));
  if (!fatal)
    return {
      ok: false,
      file: null,
      line: null,
      message: `sysbench exited ${exitCode ?? "abnormally"}: ${lastLine(output)}`,
    };
  const text = fatal.replace(/^FATAL:\s*/, "").replace(/^`\w+' function failed:\s*/, "");
  const m = /^(\/[^:\s]+\.lua):(\d+):\s*(.*)$/.exec(text);
  if (m) return { ok: false, file: toScenarioPath(m[1]!), line: Number(m[2]), message: m[3]! };
  // Module not found and the like: the FATAL line says it; the sidecar paths in it read as the scenario's.
  const message = text.replace(new RegExp(`${SIDECAR_CUSTOM_ROOT}/[^\\s':]+`, "g"), (p) => toScenarioPath(p));
  return { ok: false, file: null, line: null, message };
}

const lastLine = (s: string) =>
  s
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean)
    .pop() ?? "no output";

/** "join-update.lua:2: unexpected symbol near '='", or the message alone when Lua named no place. */
export function describeScriptCheck(c: Exclude<ScriptCheck, { ok: true }>): string {
  return c.file ? `${c.file}:${c.line}: ${c.message}` : c.message;
}

/** Whether sysbench said the script has no such command ("'x.lua' test does not implement the 'cleanup' command."). */
export function notImplemented(output: string, command: string): boolean {
  return output.includes(`does not implement the '${command}' command`) && !/^FATAL:/m.test(output);
}
