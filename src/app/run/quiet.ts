/**
 * Waiting for a quiet machine before a disturbed pair runs again. Outside work often comes in bursts (a build, a
 * backup, a neighbour's job); a re-run started at once lands in the same burst and is disturbed again. MariaDB's
 * own test framework waits for an idle CPU before it measures; this waits the same way, only before a re-run, so
 * an undisturbed machine pays nothing.
 *
 * Quiet: two consecutive one-second windows in which neither the outsiders' CPU nor the steal reached the
 * thresholds that flag a cell (core/measure/interference.ts). The wait is bounded (workload.quietWait); when it ends
 * without quiet, the pair runs anyway, and its cells say whether they were disturbed.
 */
import { interferenceOf, type CpuSample } from "../../core/measure/interference.ts";
import type { RunContext } from "./context.ts";
import { isAbsence } from "./cell-outcome.ts";

/** Seconds of one look at the machine. */
const WINDOW_MS = 1000;
/** Consecutive quiet windows that count as quiet. */
const QUIET_WINDOWS = 2;

export interface QuietWait {
  /** Seconds waited. */
  waitedS: number;
  /** Whether the machine went quiet within the limit; null when it could not be observed (no sampler, remote engine). */
  quiet: boolean | null;
}

/**
 * Waits until the machine is quiet, at most `limitS` seconds; `labContainers` are the run's own containers, whose
 * CPU is not outside work. Returns at once with `quiet: null` when the machine cannot be observed, and when the
 * limit is 0.
 */
export async function waitForQuiet(ctx: RunContext, labContainers: () => string[], limitS: number): Promise<QuietWait> {
  const sample = ctx.deps.cpuSampler;
  if (!sample || !ctx.engine.location().local || !(limitS > 0)) return { waitedS: 0, quiet: null };
  const t0 = ctx.clock();
  const waited = () => Math.round(ctx.clock() - t0) / 1000;
  const take = (): CpuSample | undefined => {
    try {
      const s = sample(labContainers());
      return Object.values(s.containersNs).every((v) => v !== null) ? s : undefined;
    } catch (e) {
      // No /proc here (an engine in a VM of its own): the machine cannot be watched, so no wait. Anything else is
      // a fault of the sampler, and the run says so rather than waiting blind.
      if (isAbsence(e)) return undefined;
      throw e;
    }
  };
  let prev = take();
  if (!prev) return { waitedS: 0, quiet: null };
  let quietWindows = 0;
  while (ctx.clock() - t0 < limitS * 1000) {
    ctx.throwIfAborted();
    await new Promise((r) => setTimeout(r, WINDOW_MS));
    ctx.throwIfAborted();
    const next = take();
    if (!next) return { waitedS: waited(), quiet: null };
    quietWindows = interferenceOf(prev, next).disturbed ? 0 : quietWindows + 1;
    prev = next;
    if (quietWindows >= QUIET_WINDOWS) return { waitedS: waited(), quiet: true };
  }
  return { waitedS: waited(), quiet: false };
}
