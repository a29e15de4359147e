/**
 * A tiny injectable command runner around execa. Arguments are always an array (never a shell string). `run` never
 * throws for a non-zero exit: callers read `exitCode`. A command that cannot be started (missing binary) resolves
 * with exitCode 127 and the reason in `stderr`. `runChecked` throws a TwinbenchError naming the command instead.
 */
import { execa } from "execa";
import { TwinbenchError, type ErrorCode } from "../../core/base/errors.ts";

export interface RunOptions {
  /** Text written to the command's stdin. */
  input?: string;
  cwd?: string;
  env?: Record<string, string>;
  /** Kill the command after this many milliseconds (exitCode then reflects the signal, `timedOut` is true). */
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface RunResult {
  stdout: string;
  stderr: string;
  exitCode: number;
  timedOut?: boolean;
}

export interface Runner {
  run(cmd: string, args: string[], opts?: RunOptions): Promise<RunResult>;
}

export function createRunner(): Runner {
  return {
    async run(cmd, args, opts = {}) {
      const r = await execa(cmd, args, {
        reject: false,
        stripFinalNewline: true,
        ...(opts.input !== undefined ? { input: opts.input } : { stdin: "ignore" as const }),
        cwd: opts.cwd,
        env: opts.env,
        timeout: opts.timeoutMs,
        cancelSignal: opts.signal,
      });
      const stdout = typeof r.stdout === "string" ? r.stdout : "";
      let stderr = typeof r.stderr === "string" ? r.stderr : "";
      let exitCode = r.exitCode;
      if (exitCode === undefined) {
        // Not started (ENOENT/EACCES) or killed by a signal.
        if (r.code === "ENOENT") exitCode = 127;
        else if (r.code === "EACCES") exitCode = 126;
        else exitCode = r.signal ? 128 + (signalNumber(r.signal) ?? 0) : 1;
        if (!stderr) stderr = r.code === "ENOENT" ? `${cmd}: command not found` : (r.shortMessage ?? r.message ?? "");
      }
      return { stdout, stderr, exitCode, ...(r.timedOut ? { timedOut: true } : {}) };
    },
  };
}

function signalNumber(sig: string): number | undefined {
  return ({ SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 } as Record<string, number>)[sig];
}

/** Render a command for messages: `losetup --show -f /x`. */
export function formatCommand(cmd: string, args: string[]): string {
  return [cmd, ...args].map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : JSON.stringify(a))).join(" ");
}

/** Run and throw a TwinbenchError (code COMMAND_FAILED unless given) when the exit code is not 0. */
export async function runChecked(
  runner: Runner,
  cmd: string,
  args: string[],
  opts: RunOptions & { code?: ErrorCode; hint?: string } = {},
): Promise<RunResult> {
  const r = await runner.run(cmd, args, opts);
  if (r.exitCode !== 0) {
    const tail = (r.stderr || r.stdout).trim().split("\n").slice(-5);
    throw new TwinbenchError(`\`${formatCommand(cmd, args)}\` failed with exit code ${r.exitCode}`, {
      code: opts.code ?? "COMMAND_FAILED",
      hint: opts.hint,
      details: tail.filter((l) => l.length > 0),
    });
  }
  return r;
}
