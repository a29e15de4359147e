/**
 * `twinbench doctor [--fix] [--json]`, and `ensureHost`, which `run` calls first so that a fresh machine gets its
 * engine without a separate step.
 */
import type { Command } from "commander";
import { TwinbenchError, type ExitCode } from "../../core/errors.ts";
import { compareVersions, formatCheckLines, MIN_API_VERSION, summarize, type CheckLine } from "../../core/doctor.ts";
import { defaultDoctorDeps, fixHost, runDoctor, type DoctorDeps } from "../../adapters/host/doctor.ts";

export interface DoctorCliContext {
  out: (line: string) => void;
  /** Set to 1 when a check fails (main.ts turns it into the exit code). */
  exitCode?: ExitCode;
}

export function registerDoctorCommand(program: Command, ctx: DoctorCliContext, deps?: Partial<DoctorDeps>): void {
  program
    .command("doctor")
    .description("check the host (engine, API, storage driver, cgroups, disk, tools); --fix installs and starts what is missing")
    .option("--fix", "on Debian/Ubuntu as root: apt-get install what is missing and start dockerd when no engine answers")
    .option("--json", "print the checks as JSON")
    .action(async (o: { fix?: boolean; json?: boolean }) => {
      const code = await doctorCommand(ctx, { fix: Boolean(o.fix), json: Boolean(o.json) }, deps);
      if (code !== 0) ctx.exitCode = code;
    });
}

/** Print the checks; 1 when any check fails. --fix errors (cannot fix, apt failed, engine timeout) are thrown. */
export async function doctorCommand(ctx: DoctorCliContext, o: { fix: boolean; json: boolean }, overrides: Partial<DoctorDeps> = {}): Promise<ExitCode> {
  const log = o.json ? () => {} : ctx.out;
  const deps = defaultDoctorDeps({ log, ...overrides });
  let checks: CheckLine[];
  let done: string[] | undefined;
  if (o.fix) {
    const r = await fixHost(deps);
    checks = r.after.checks;
    done = r.done;
    if (!o.json && r.done.length === 0) ctx.out("fix: nothing to do");
  } else {
    checks = (await runDoctor(deps)).checks;
  }
  const s = summarize(checks);
  if (o.json) {
    ctx.out(JSON.stringify({ checks, summary: s, ...(done ? { fixed: done } : {}) }, null, 2));
  } else {
    ctx.out(formatCheckLines(checks));
    ctx.out(`${s.ok} ok, ${s.warn} warn, ${s.fail} fail`);
    if (s.fail > 0 && !o.fix) ctx.out("hint: `twinbench doctor --fix` (as root, on Debian/Ubuntu) installs and starts what is missing");
  }
  return s.fail > 0 ? 1 : 0;
}

/**
 * Called by `run` before anything else. When an engine answers (API ≥ 1.41), returns at once. When none answers,
 * prints a notice and runs `doctor --fix` (fix: true), or fails with what to do instead.
 */
export async function ensureHost(opts: { out: (line: string) => void; fix: boolean }, overrides: Partial<DoctorDeps> = {}): Promise<void> {
  const deps = defaultDoctorDeps({ log: opts.out, ...overrides });
  const engine = await deps.engine.probe();
  if (engine.answers) {
    if (compareVersions(engine.apiVersion, MIN_API_VERSION) < 0) {
      throw new TwinbenchError(`the Docker engine on ${engine.endpoint} speaks API ${engine.apiVersion}, older than ${MIN_API_VERSION}`, {
        code: "ENGINE_API_TOO_OLD",
        hint: "upgrade to Docker 20.10 or newer; twinbench never reconfigures a running engine",
      });
    }
    return;
  }
  if (!opts.fix) {
    throw new TwinbenchError(`no Docker engine answers on ${engine.endpoint}: ${engine.error}`, {
      code: "ENGINE_UNREACHABLE",
      hint: "run `twinbench doctor --fix` (as root on Debian/Ubuntu) or start the engine / set DOCKER_HOST",
    });
  }
  opts.out(`no Docker engine answers on ${engine.endpoint}; running doctor --fix ...`);
  const r = await fixHost(deps);
  const failed = r.after.checks.filter((c) => c.status === "fail");
  if (failed.some((c) => c.id === "engine" || c.id === "api-version")) {
    throw new TwinbenchError("doctor --fix finished but the engine still does not answer", {
      code: "ENGINE_UNREACHABLE",
      hint: "run `twinbench doctor` to see which check fails",
      details: failed.map((c) => `${c.title}: ${c.detail}`),
    });
  }
  opts.out(`doctor --fix: ${r.done.length > 0 ? r.done.join("; ") : "nothing to do"}`);
}
