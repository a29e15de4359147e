/**
 * The fit stage, first of a run: the servers' memory (buffer pools, overheads, tmpfs data dirs, the load) and
 * cpusets against the engine host's facts (src/core/plan/fit.ts). A scenario that does not fit is refused here,
 * before the results folder, an image, a network, a volume or a container exists. An engine that gives no facts
 * skips the check with a warning: the engine's ping, right after, says what is wrong with it.
 */
import { assertFits, fitScenario, resolvePools } from "../../core/plan/fit.ts";
import type { RunContext } from "./context.ts";

export async function checkFit(ctx: RunContext): Promise<void> {
  const facts = await ctx.engine.facts().catch((e: unknown) => {
    // Not fatal here: the run's ping reports an engine that does not answer; the check needs its facts.
    ctx.warn(`memory check skipped: the engine gave no facts (${e instanceof Error ? e.message : String(e)})`);
    return undefined;
  });
  if (!facts) return;
  const { pools, warnings } = resolvePools(ctx.scenario, ctx.opts.neutralCnf);
  for (const w of warnings) ctx.warn(w);
  assertFits(fitScenario(ctx.scenario, pools, { id: facts.id, memoryBytes: facts.memoryBytes, cpus: facts.cpus }));
}
