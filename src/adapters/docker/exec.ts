/** Commands in running containers on a Docker engine (dockerode): the exec part of the engine port (core/model/engine/exec.ts). */
import type Docker from "dockerode";
import { PassThrough } from "node:stream";
import type { ExecPort, ExecResult } from "../../core/model/engine/exec.ts";
import { outputCutShort } from "./engine-errors.ts";

export class DockerExec implements ExecPort {
  constructor(private readonly docker: Docker) {}

  async run(containerId: string, argv: string[], opts?: { user?: string }): Promise<ExecResult> {
    const ex = await this.docker
      .getContainer(containerId)
      .exec({ Cmd: argv, AttachStdout: true, AttachStderr: true, User: opts?.user });
    const stream = await ex.start({ hijack: true, stdin: false });
    const out = new PassThrough();
    const err = new PassThrough();
    const so: Buffer[] = [];
    const se: Buffer[] = [];
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
    return {
      exitCode: info.ExitCode ?? -1,
      stdout: Buffer.concat(so).toString("utf8"),
      stderr: Buffer.concat(se).toString("utf8"),
    };
  }
}
