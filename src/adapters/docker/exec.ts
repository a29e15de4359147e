/** Commands in running containers on a Docker engine (dockerode): the exec part of the engine port (core/model/engine/exec.ts). */
import type Docker from "dockerode";
import { PassThrough } from "node:stream";
import { TwinbenchError } from "../../core/base/errors.ts";
import { withDeadline } from "../../core/base/deadline.ts";
import type { ExecOptions, ExecPort, ExecResult } from "../../core/model/engine/exec.ts";
import { outputCutShort } from "./engine-errors.ts";

/** The deadline of an exec (its SQL probes, copies and tools are short; a stopped container never answers). */
export const EXEC_DEADLINE_MS = 300_000;

/** The most of each exec stream (stdout, stderr) kept in memory; the rest is counted and dropped. */
export const MAX_EXEC_OUTPUT_BYTES = 16 * 2 ** 20;

/**
 * A bounded sink for a stream: keeps the first `max` bytes, counts the rest. The output of a program that prints
 * without end never grows past `max` here.
 */
export class BoundedOutput {
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  dropped = 0;
  constructor(private readonly max = MAX_EXEC_OUTPUT_BYTES) {}
  push(d: Buffer): void {
    const room = this.max - this.kept;
    if (room <= 0) {
      this.dropped += d.length;
      return;
    }
    const part = d.length <= room ? d : d.subarray(0, room);
    this.chunks.push(part);
    this.kept += part.length;
    this.dropped += d.length - part.length;
  }
  text(): string {
    return Buffer.concat(this.chunks).toString("utf8");
  }
}

export class DockerExec implements ExecPort {
  constructor(private readonly docker: Docker) {}

  async run(containerId: string, argv: string[], opts?: ExecOptions): Promise<ExecResult> {
    const ms = opts?.timeoutMs ?? EXEC_DEADLINE_MS;
    // The program only in the message: its arguments may hold a secret.
    return withDeadline(
      this.runNow(containerId, argv, opts),
      ms,
      () =>
        new TwinbenchError(`exec of ${argv[0]} in container ${containerId} did not finish within ${ms / 1000} s`, {
          code: "DEADLINE_EXCEEDED",
          hint: "the container or the engine stopped answering; see the container's log",
        }),
    );
  }

  private async runNow(containerId: string, argv: string[], opts?: ExecOptions): Promise<ExecResult> {
    const ex = await this.docker.getContainer(containerId).exec({
      Cmd: argv,
      AttachStdout: true,
      AttachStderr: true,
      User: opts?.user,
      Env: opts?.env ? Object.entries(opts.env).map(([k, v]) => `${k}=${v}`) : undefined,
    });
    const stream = await ex.start({ hijack: true, stdin: false });
    const out = new PassThrough();
    const err = new PassThrough();
    const so = new BoundedOutput();
    const se = new BoundedOutput();
    out.on("data", (d: Buffer) => so.push(d));
    err.on("data", (d: Buffer) => se.push(d));
    this.docker.modem.demuxStream(stream, out, err);
    await new Promise<void>((resolve, reject) => {
      stream.on("end", () => resolve());
      stream.on("close", () => resolve());
      // The program only: its arguments may hold a password.
      stream.on("error", (e: Error) => reject(outputCutShort(`exec of ${argv[0]} in container ${containerId}`, e)));
    });
    const info = await ex.inspect();
    // Output past the bound is dropped: the caller gets a failure, never a silently shortened answer.
    if (so.dropped > 0 || se.dropped > 0)
      throw new TwinbenchError(
        `exec of ${argv[0]} in container ${containerId} printed more than ${MAX_EXEC_OUTPUT_BYTES / 2 ** 20} MiB (${so.dropped + se.dropped} bytes dropped)`,
        { code: "ENGINE_STREAM", hint: "this is a twinbench bug: an exec's output is expected to be small" },
      );
    return { exitCode: info.ExitCode ?? -1, stdout: so.text(), stderr: se.text() };
  }
}
