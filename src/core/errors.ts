/**
 * Every error twinbench raises on purpose carries a stable `code`, a message that names the offending value,
 * and a `hint` that says what to do next. `UserError`s are things the user can fix (exit 1, or 2 for bad input);
 * anything else that escapes is a bug.
 */
export type ExitCode = 0 | 1 | 2 | 130;

/** The parts of a {@link TwinbenchError} besides its message. */
export interface ErrorDetails {
  code: string;
  hint?: string;
  /** Extra lines shown under the message (e.g. a server's log tail). */
  details?: string[];
  cause?: unknown;
}

/** An error twinbench raises on purpose: a stable `code`, a message naming the value, a `hint`, optional `details` lines, and the CLI's `exitCode` for it. */
export class TwinbenchError extends Error {
  readonly code: string;
  readonly hint?: string;
  readonly details: string[];
  /** Exit code the CLI uses for this error. */
  readonly exitCode: ExitCode = 1;

  constructor(message: string, opts: ErrorDetails) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = new.target.name;
    this.code = opts.code;
    this.hint = opts.hint;
    this.details = opts.details ?? [];
  }
}

/** Invalid input or usage: a scenario that fails validation, an unknown flag value. Exit code 2. */
export class InputError extends TwinbenchError {
  override readonly exitCode: ExitCode = 2;
  /** One line per problem, already prefixed with file and dot path. */
  readonly problems: string[];
  constructor(message: string, opts: ErrorDetails & { problems?: string[] }) {
    super(message, opts);
    this.problems = opts.problems ?? [];
  }
}

/** The run was cancelled by the user (Ctrl-C, q, SIGTERM). Exit code 130. */
export class CancelledError extends TwinbenchError {
  override readonly exitCode: ExitCode = 130;
  constructor(message = "cancelled by the user") {
    super(message, { code: "CANCELLED" });
  }
}

/** Whether `e` is a {@link TwinbenchError} (or a subclass). */
export function isTwinbenchError(e: unknown): e is TwinbenchError {
  return e instanceof TwinbenchError;
}

/** Format an error for a terminal: message, details, hint. */
export function formatError(e: unknown): string {
  if (e instanceof InputError) {
    const lines = [`error [${e.code}]: ${e.message}`, ...e.problems.map((p) => `  ${p}`), ...e.details.map((d) => `  ${d}`)];
    if (e.hint) lines.push(`hint: ${e.hint}`);
    return lines.join("\n");
  }
  if (e instanceof TwinbenchError) {
    const lines = [`error [${e.code}]: ${e.message}`, ...e.details.map((d) => `  ${d}`)];
    if (e.hint) lines.push(`hint: ${e.hint}`);
    return lines.join("\n");
  }
  const err = e instanceof Error ? e : new Error(String(e));
  return `internal error (a twinbench bug, please report it): ${err.stack ?? err.message}`;
}
