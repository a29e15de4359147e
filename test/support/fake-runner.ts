/**
 * The one fake host runner of the unit tests: it answers each command from a table keyed by "cmd arg arg…" (a hit
 * exits 0 with empty output unless the entry says otherwise) and records every command it was asked to run. What a
 * command outside the table gets is the test's to say; by default it exits 127, as a missing tool does.
 */
import type { Runner, RunResult } from "../../src/adapters/host/runner.ts";

/** The answer to a command outside the table. */
export type Otherwise = (cmd: string, args: string[]) => RunResult;

/** Exit 127 naming the command: not in the table, as a missing tool. */
export const notInTable: Otherwise = (cmd) => ({ stdout: "", stderr: `${cmd}: not in fake table`, exitCode: 127 });

export function fakeRunner(
  table: Record<string, Partial<RunResult>>,
  otherwise: Otherwise = notInTable,
): Runner & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    async run(cmd, args) {
      const key = [cmd, ...args].join(" ");
      calls.push(key);
      const r = table[key];
      return r ? { stdout: "", stderr: "", exitCode: 0, ...r } : otherwise(cmd, args);
    },
  };
}
