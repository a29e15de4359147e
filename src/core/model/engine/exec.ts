/** The exec part of the engine port: a command run inside a running container. Types only. */

export interface ExecResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export interface ExecOptions {
  user?: string;
  env?: Record<string, string>;
  timeoutMs?: number;
}

export interface ExecPort {
  /**
   * Run `argv` (no shell) in the running container `containerId`, as `user` when given; wait for it to end, at most
   * `timeoutMs` (a default deadline otherwise). `env` is added to the process's environment: secrets go there,
   * never in `argv`.
   */
  run(containerId: string, argv: string[], opts?: ExecOptions): Promise<ExecResult>;
}
