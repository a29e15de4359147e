/**
 * Signal handling for every command that runs work: SIGINT and SIGTERM go through one CancelGate (src/app/clean.ts),
 * so the first Ctrl-C (or a SIGTERM) cancels gracefully and a second Ctrl-C forces. `run`, `run` over hosts,
 * `calibrate` and `config diff` all trap signals through {@link trapSignals}; none registers handlers of its own.
 */
import { CancelGate } from "./clean.ts";

/** Where the signals come from: the process, or a fake in tests. */
export interface SignalSource {
  on(signal: "SIGINT" | "SIGTERM", listener: () => void): unknown;
  off(signal: "SIGINT" | "SIGTERM", listener: () => void): unknown;
}

/** A trap on SIGINT and SIGTERM. `interrupt()` is what a screen's own Ctrl-C calls; `dispose()` removes the handlers (idempotent). */
export interface SignalTrap {
  readonly signal: AbortSignal;
  interrupt(): void;
  dispose(): void;
}

/**
 * Trap SIGINT and SIGTERM: the first interrupt (or a SIGTERM) aborts `signal` and calls `graceful`; a second
 * interrupt calls `force` (without one, a second interrupt does nothing more: the graceful cancel is under way).
 */
export function trapSignals(
  o: { graceful?: () => void; force?: () => void } = {},
  source: SignalSource = process,
): SignalTrap {
  const ac = new AbortController();
  const gate = new CancelGate({
    graceful: () => {
      ac.abort();
      o.graceful?.();
    },
    force: () => o.force?.(),
  });
  const onSigint = () => gate.interrupt();
  const onSigterm = () => gate.terminate();
  source.on("SIGINT", onSigint);
  source.on("SIGTERM", onSigterm);
  let disposed = false;
  const dispose = () => {
    if (disposed) return;
    disposed = true;
    source.off("SIGINT", onSigint);
    source.off("SIGTERM", onSigterm);
  };
  return { signal: ac.signal, interrupt: onSigint, dispose };
}
