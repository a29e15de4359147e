/**
 * The host-facts stage: what a kernel comparison turns on (block device scheduler and queue depth, THP, cpufreq,
 * clocksource, mitigations, kernel command line), read by a short-lived labelled probe container on the run's
 * engine. A multi-host run has probed already; a failed probe leaves engine info only, with a warning.
 */
import { LABEL } from "../../core/base/labels.ts";
import { hasProbe } from "../../core/hosts/facts.ts";
import { probeHostFacts } from "../../adapters/docker/host-probe.ts";
import type { RunContext } from "./context.ts";
import type { ResultsSession } from "./session.ts";
import type { ImageInfo } from "./types.ts";

export async function probeHost(ctx: RunContext, session: ResultsSession, loadImage: ImageInfo): Promise<void> {
  const base = session.manifest.hosts[0];
  if (!base) return;
  // The hardware counters are the local machine's: a remote engine's host is not checked (its report says unknown).
  if (ctx.deps.hardwareCounters && ctx.engine.location().local && base.hardwareCounters === undefined) {
    base.hardwareCounters = await ctx.deps.hardwareCounters().then(
      (h) => h.text,
      // A check that failed is said as such, not as "no PMU".
      (e: unknown) =>
        `Hardware counters per query: not checked (the check failed: ${e instanceof Error ? e.message : String(e)}).`,
    );
  }
  if (hasProbe(base)) return void (await session.save());
  session.manifest.hosts = [
    await probeHostFacts(ctx.engine, base, {
      image: loadImage.tag,
      runId: ctx.runId,
      labels: ctx.labels({ [LABEL.role]: "probe" }),
      signal: ctx.signal,
      onWarning: (m) => ctx.warn(m),
    }).catch((e: unknown) => {
      if (ctx.signal.aborted) throw e;
      // Not fatal: the facts are context for the report, not the measurement. The warning says what is missing.
      ctx.warn(
        `host facts: the probe container failed (${e instanceof Error ? e.message : String(e)}); run.json has engine info only`,
      );
      return base;
    }),
  ];
  await session.save();
}
