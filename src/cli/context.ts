/**
 * What every command gets: output functions, lazily created adapters, and a place to leave the exit code.
 */
import { readFile } from "node:fs/promises";
import { DockerEngine } from "../adapters/docker/engine.ts";
import type { Engine } from "../core/model/engine/engine.ts";

export interface CliContext {
  out: (line: string) => void;
  err: (line: string) => void;
  readFile: (p: string) => Promise<string>;
  /** The local engine (DOCKER_HOST respected by dockerode). */
  engine: () => Engine;
  /** Commands that finish with a non-zero code without throwing set this (e.g. a partial run). */
  exitCode: 0 | 1 | 2 | 130;
  isTTY: boolean;
}

export function cliContext(): CliContext {
  let engine: Engine | undefined;
  return {
    out: (l) => process.stdout.write(l + "\n"),
    err: (l) => process.stderr.write(l + "\n"),
    readFile: (p) => readFile(p, "utf8"),
    engine: () => (engine ??= new DockerEngine("local")),
    exitCode: 0,
    isTTY: Boolean(process.stdout.isTTY),
  };
}
