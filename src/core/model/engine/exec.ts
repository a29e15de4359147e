/** The exec part of the engine port: a command run inside a running container. Types only. */

export interface ExecResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export interface ExecPort {
  /** Run `argv` (no shell) in the running container `containerId`, as `user` when given; wait for it to end. */
  run(containerId: string, argv: string[], opts?: { user?: string }): Promise<ExecResult>;
}
