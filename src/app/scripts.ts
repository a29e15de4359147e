/**
 * A scenario's own Lua scripts in the load sidecar: read from beside the scenario file, put into each sysbench
 * container through the engine's API (no mount), and loaded once by `sysbench SCRIPT help` before anything is
 * prepared, so a Lua error is reported with its file and line while nothing exists yet. `run` and `plan` share it.
 */
import { randomBytes } from "node:crypto";
import { hostname as osHostname } from "node:os";
import { posix } from "node:path";
import { InputError } from "../core/base/errors.ts";
import { LABEL, resourceLabels, resourceName } from "../core/base/labels.ts";
import {
  describeScriptCheck,
  isScriptFile,
  luaPathFor,
  readScriptCheck,
  sidecarDir,
  sidecarFiles,
  type LoadedScript,
  type ScriptCheck,
} from "../core/model/scenario/custom.ts";
import type { Engine } from "../core/model/engine/engine.ts";
import type { ContainerFile, ContainerSpec } from "../core/model/engine/containers.ts";
import type { Scenario } from "../core/model/scenario/schema.ts";
import { imageRepo } from "../core/images/context.ts";
import { loadCustomScripts } from "../adapters/custom-scripts.ts";
import { currentImageTags } from "../adapters/images/build.ts";
import { loadLock } from "../adapters/images/files.ts";

// What the sidecar needs of custom scripts and the TPC-C-like workload, from one place.
export { notImplemented } from "../core/model/scenario/custom.ts";
export { tpccMixOf } from "../core/model/tpcc.ts";

/** The load image's name in the lock (app/run/images.ts's LOAD_IMAGE). */
const LOAD_IMAGE_NAME = "sysbench-1.0";

/** A sidecar path of a custom test's file, as the scenario names it (relative to the scenario's folder). */
export function scenarioPathOf(s: LoadedScript, sidecarPath: string): string {
  const prefix = `${sidecarDir(s.test)}/`;
  if (!sidecarPath.startsWith(prefix)) return sidecarPath;
  const rel = sidecarPath.slice(prefix.length);
  return isScriptFile(s.path) ? posix.join(posix.dirname(s.path), rel) : posix.join(s.path, rel);
}

/** What a sysbench container needs for a custom test: its files and LUA_PATH; nothing for a stock script. */
export function scriptContainerParts(
  scripts: readonly LoadedScript[],
  script: string,
): { files?: ContainerFile[]; env?: Record<string, string> } {
  const s = scripts.find((x) => script.startsWith(`${sidecarDir(x.test)}/`));
  return s ? { files: sidecarFiles(s), env: { LUA_PATH: luaPathFor(s.test) } } : {};
}

/** The failure of a script that sysbench cannot load: its test, file and line. */
export function scriptLoadError(s: LoadedScript, c: Exclude<ScriptCheck, { ok: true }>): InputError {
  return new InputError(`custom test ${s.test}: sysbench cannot load ${s.path}: ${describeScriptCheck(c)}`, {
    code: "SCRIPT_LOAD_FAILED",
    hint: c.file
      ? `fix ${c.file} at line ${c.line}; \`twinbench plan\` checks it again without preparing anything`
      : `fix ${s.path}; \`twinbench plan\` checks it again without preparing anything`,
  });
}

/**
 * Load each script once in a throw-away sysbench container (no network, the scripts put in through the API):
 * `sysbench SCRIPT help`. Throws SCRIPT_LOAD_FAILED for the first that fails; resolves when all load.
 */
export async function checkScriptsLoad(
  engine: Engine,
  o: {
    image: string;
    scripts: readonly LoadedScript[];
    labels: Record<string, string>;
    runId: string;
    signal?: AbortSignal;
  },
): Promise<void> {
  for (const s of o.scripts) {
    const path = `${sidecarDir(s.test)}/${s.main}`;
    const spec: ContainerSpec = {
      name: resourceName(o.runId, "script-check", s.test, randomBytes(3).toString("hex")),
      image: o.image,
      entrypoint: ["sysbench"],
      cmd: [path, "help"],
      labels: { ...o.labels, [LABEL.role]: "load" },
      network: { kind: "none" },
      workingDir: "/usr/share/sysbench",
      ...scriptContainerParts(o.scripts, path),
    };
    const r = await engine.containers.run(spec, { timeoutMs: 60_000, signal: o.signal });
    if (r.cancelled) return;
    const check = readScriptCheck(r.output, r.timedOut ? null : r.exitCode, (p) => scenarioPathOf(s, p));
    if (!check.ok) throw scriptLoadError(s, check);
  }
}

/** Labels for `plan`'s script check: a session and run of its own, so a sweep knows whose they are. */
export function planCheckLabels(engine: Engine): { labels: Record<string, string>; runId: string } {
  const runId = `plan-${randomBytes(4).toString("hex")}`;
  const labels = resourceLabels({
    sessionId: randomBytes(6).toString("hex"),
    runId,
    hostId: engine.hostId,
    pid: process.pid,
    hostname: osHostname(),
  });
  return { labels, runId };
}

/**
 * `plan`'s check of a scenario's custom scripts: read from beside the file, then loaded by sysbench in the load
 * image when the engine has it (nothing is built or prepared; the only container is the check's own, removed at
 * once). Resolves to a note when the check could not run; throws SCRIPT_LOAD_FAILED for a script that fails.
 */
export async function planScriptCheck(
  engineOf: (() => Engine) | undefined,
  scenario: Scenario,
  file: string,
): Promise<string | undefined> {
  const scripts = await loadCustomScripts(scenario, file);
  if (!scripts.length) return undefined;
  if (!engineOf) return "no engine: the custom scripts are loaded by sysbench when the run starts";
  let engine: Engine;
  try {
    engine = engineOf();
    await engine.ping();
  } catch (e) {
    // No engine answers: plan still prints; the run checks the scripts before it prepares anything.
    return `no engine answers (${(e as Error).message}): the custom scripts are loaded by sysbench when the run starts`;
  }
  const tags = [...(await currentImageTags(engine.images, await loadLock()))].filter((t) =>
    t.startsWith(`${imageRepo(LOAD_IMAGE_NAME)}:`),
  );
  let image: string | undefined;
  for (const t of tags) if (!image && (await engine.images.inspect(t))) image = t;
  if (!image)
    return `the load image ${LOAD_IMAGE_NAME} is not built yet: the custom scripts are loaded by sysbench when the run starts (\`twinbench images build\` first checks them here)`;
  const { labels, runId } = planCheckLabels(engine);
  await checkScriptsLoad(engine, { image, scripts, labels, runId });
  return `custom scripts: ${scripts.map((s) => `${s.test} (${s.path}, sha256 ${s.sha256.slice(0, 12)})`).join(", ")} load in sysbench`;
}
