/**
 * Before a run touches the lab: make sure an engine answers, installing and starting one (`doctor --fix`) on a
 * fresh machine, so that `run` needs no separate step. Shared by the CLI and the TUI session.
 */
import { TwinbenchError } from "../core/base/errors.ts";
import { MIN_API_VERSION } from "../core/hosts/doctor.ts";
import { compareVersions } from "../core/config/version.ts";
import { defaultDoctorDeps, fixHost, type DoctorDeps } from "../adapters/host/doctor.ts";

/**
 * Called by `run` before anything else. When an engine answers (API ≥ 1.41), returns at once. When none answers,
 * prints a notice and runs `doctor --fix` (fix: true), or fails with what to do instead.
 */
export async function ensureHost(
  opts: { out: (line: string) => void; fix: boolean },
  overrides: Partial<DoctorDeps> = {},
): Promise<void> {
  const deps = defaultDoctorDeps({ log: opts.out, ...overrides });
  const engine = await deps.engine.probe();
  if (engine.answers) {
    if (compareVersions(engine.apiVersion, MIN_API_VERSION) < 0) {
      throw new TwinbenchError(
        `the Docker engine on ${engine.endpoint} speaks API ${engine.apiVersion}, older than ${MIN_API_VERSION}`,
        {
          code: "ENGINE_API_TOO_OLD",
          hint: "upgrade to Docker 20.10 or newer; twinbench never reconfigures a running engine",
        },
      );
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
