/**
 * `twinbench doctor [--fix] [--json]`, and `ensureHost`, which `run` calls first so that a fresh machine gets its
 * engine without a separate step.
 */
import type { Command } from "commander";
import { TwinbenchError, type ExitCode } from "../../core/base/errors.ts";
import { summarize, type CheckLine } from "../../core/hosts/doctor-checks.ts";
import { formatCheckLines } from "../../core/report/doctor.ts";
import { defaultDoctorDeps, fixHost, runDoctor, type DoctorDeps } from "../../adapters/host/doctor.ts";

export interface DoctorCliContext {
  out: (line: string) => void;
  /** Set to 1 when a check fails (main.ts turns it into the exit code). */
  exitCode?: ExitCode;
}

export function registerDoctorCommand(program: Command, ctx: DoctorCliContext, deps?: Partial<DoctorDeps>): void {
  program
    .command("doctor")
    .description(
      "check the host (engine, API, storage driver, cgroups, disk, tools); --fix installs and starts what is missing",
    )
    .option(
      "--fix",
      "on Debian/Ubuntu as root: apt-get install what is missing and start dockerd when no engine answers",
    )
    .option("--json", "print the checks as JSON")
    .option(
      "--lock <file>",
      "the image lock whose official digests are checked (default: images/lock.yaml of this checkout)",
    )
    .action(async (o: { fix?: boolean; json?: boolean; lock?: string }) => {
      const code = await doctorCommand(
        ctx,
        { fix: Boolean(o.fix), json: Boolean(o.json) },
        { ...deps, ...(o.lock ? { lockFile: o.lock } : {}) },
      );
      if (code !== 0) ctx.exitCode = code;
    });
}

/** Print the checks; 1 when any check fails. --fix errors (cannot fix, apt failed, engine timeout) are thrown. */
export async function doctorCommand(
  ctx: DoctorCliContext,
  o: { fix: boolean; json: boolean },
  overrides: Partial<DoctorDeps> = {},
): Promise<ExitCode> {
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
    if (s.fail > 0 && !o.fix)
      ctx.out("hint: `twinbench doctor --fix` (as root, on Debian/Ubuntu) installs and starts what is missing");
  }
  return s.fail > 0 ? 1 : 0;
}

export { ensureHost } from "../../app/host-check.ts";
