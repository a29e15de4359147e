/**
 * What a Docker engine's failures mean: docker-modem's HTTP statuses (not found, not runnable), the connection
 * itself gone, a broken output stream; and the typed errors twinbench raises for them.
 */
import { TwinbenchError } from "../../core/base/errors.ts";

export function statusCode(e: unknown): number | undefined {
  return typeof e === "object" && e !== null && "statusCode" in e
    ? (e as { statusCode: number }).statusCode
    : undefined;
}

/** True for docker-modem's "no such container/volume/network" answer (HTTP 404). */
export function isNotFound(e: unknown): boolean {
  return statusCode(e) === 404;
}

/**
 * The engine refused to start a container's command (HTTP 400 on start: its executable is not in the image or
 * cannot be run), as opposed to an engine that failed.
 */
export function isCommandNotRunnable(e: unknown): boolean {
  return statusCode(e) === 400;
}

/** Ignore "not found" (404) and "already in that state" (304/409 where harmless): disposal must be idempotent. */
export async function tolerate(p: Promise<unknown>, codes: number[] = [404, 304], harmless?: RegExp): Promise<void> {
  try {
    await p;
  } catch (e) {
    if (codes.includes(statusCode(e) ?? -1)) return;
    // The engine answers 500 for some no-op state changes (unpause of a running container): match its words.
    if (harmless && harmless.test((e as Error).message)) return;
    throw e;
  }
}

export function engineError(what: string, e: unknown, hint?: string): TwinbenchError {
  const msg = e instanceof Error ? e.message : String(e);
  return new TwinbenchError(`${what}: ${msg}`, {
    code: "ENGINE",
    hint: hint ?? "check that the Docker engine answers (`twinbench doctor`)",
    cause: e,
  });
}

/** An error on a container's output stream: what was read so far may be only part of the output. */
export function outputCutShort(what: string, e: Error): TwinbenchError {
  return new TwinbenchError(`the output stream of ${what} failed, so its output may be cut short: ${e.message}`, {
    code: "ENGINE_STREAM",
    hint: "check that the Docker engine answers (`twinbench doctor`), then run again (or `--resume`)",
    cause: e,
  });
}

/**
 * The engine stopped answering (dockerd stopped or restarted, the socket gone, the connection cut): errors from the
 * connection itself, which carry no HTTP status.
 */
export function isEngineConnectionError(e: unknown): boolean {
  const x = e as NodeJS.ErrnoException & { statusCode?: number };
  if (!x || typeof x !== "object" || x.statusCode !== undefined) return false;
  return (
    ["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "EHOSTUNREACH"].includes(x.code ?? "") ||
    (x.code === "ENOENT" && x.syscall === "connect")
  );
}
