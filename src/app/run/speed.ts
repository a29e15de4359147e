/**
 * Watching the speed of the servers' CPUs while the cells run (src/core/measure/speed.ts says why). The probe runs
 * on the union of the servers' cpusets, on the local engine only, and stops when the cells end, whatever ends them.
 * A run whose servers are not all pinned to a cpuset, or whose probe cannot start, runs unwatched and says so.
 */
import { parseCpuset } from "../../core/model/scenario/limits.ts";
import type { RunContext } from "./context.ts";

/** How long the probe may take to give its first samples (its threads pin themselves and warm up). */
const READY_MS = 5000;

/** The CPUs to watch: every server's cpuset, or none when a server has none (it may run on any CPU). */
export function watchedCpus(cpusets: ReadonlyArray<string | undefined>): number[] {
  const out = new Set<number>();
  for (const c of cpusets) {
    const cpus = c === undefined ? undefined : parseCpuset(c);
    if (!cpus?.length) return [];
    for (const x of cpus) out.add(x);
  }
  return [...out].sort((a, b) => a - b);
}

/** Runs `fn` with the servers' CPUs (`cpusets`, one per server) watched (ctx.speed set), and stops the probe after it. */
export async function withSpeedWatch<T>(
  ctx: RunContext,
  cpusets: ReadonlyArray<string | undefined>,
  fn: () => Promise<T>,
): Promise<T> {
  const start = ctx.deps.speedProbe;
  if (!start || !ctx.engine.location().local) return fn();
  const cpus = watchedCpus(cpusets);
  if (cpus.length === 0) {
    ctx.warn(
      "CPU speed is not watched: a server has no cpuset (resources.server.cpuset), so a pair whose two cells ran at different CPU speeds cannot be told apart",
    );
    return fn();
  }
  const probe = start(cpus);
  await probe.ready(READY_MS);
  const early = probe.error();
  if (early) ctx.warn(`CPU speed is not watched: ${early}`);
  else ctx.speed = probe;
  try {
    return await fn();
  } finally {
    ctx.speed = undefined;
    await probe.stop();
    const late = probe.error();
    if (!early && late) ctx.warn(`CPU speed stopped being watched during the run: ${late}`);
  }
}
