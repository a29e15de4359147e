/**
 * One deadline helper: settle like `p`, or reject with `onTimeout()` after `ms` (the timer never outlives it).
 * Kept over `AbortSignal.timeout`: the calls it bounds (an engine ping, a registry probe) take no signal
 * through the engine interface, so a signal would still need this race; it stays pure (core) and names its limit.
 */
export async function withDeadline<T>(p: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([p, new Promise<never>((_, rej) => (timer = setTimeout(() => rej(onTimeout()), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

/** The error withDeadline rejects with by default: it names the limit. */
export class DeadlineError extends Error {
  constructor(readonly ms: number) {
    super(`no answer within ${ms / 1000} s`);
  }
}
