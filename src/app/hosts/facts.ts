/**
 * Stages 3 and 5: host facts (engine info plus a probe container on each host), and for a shard the check that
 * the hosts are alike (unless --force, which the report then states).
 */
import { InputError } from "../../core/base/errors.ts";
import { LABEL, resourceLabels } from "../../core/base/labels.ts";
import type { HostFacts } from "../../core/model/results.ts";
import { shardMismatches } from "../../core/hosts/facts.ts";
import { probeHostFacts } from "../../adapters/docker/host-probe.ts";
import { msg, type HostsContext, type HostState } from "./context.ts";
import { hostRunId } from "./types.ts";
import { selfOwner } from "../../adapters/host/process-identity.ts";

export async function probeAllFacts(ctx: HostsContext, loadTag: string): Promise<void> {
  await Promise.all(
    ctx.live().map(async (s) => {
      try {
        s.facts = await probeFacts(ctx, s, loadTag);
      } catch (e) {
        ctx.lose(s, "unreachable", `reading host facts: ${msg(e)}`);
      }
    }),
  );
  ctx.throwIfAborted();
}

async function probeFacts(ctx: HostsContext, s: HostState, tag: string): Promise<HostFacts> {
  const id = s.t.spec.id;
  const runId = hostRunId(ctx.opts.runId, id);
  const labels = resourceLabels(
    { sessionId: ctx.sessionId, runId, hostId: id, ...selfOwner() },
    { [LABEL.role]: "probe" },
  );
  const base = await s.t.engine.facts();
  return probeHostFacts(
    s.t.engine,
    { ...base, id },
    {
      image: tag,
      runId,
      labels,
      engineUrl: s.run.engine,
      signal: ctx.signal,
      onWarning: (m) => ctx.info(`host ${id}: ${m}`, id, "warning"),
    },
  );
}

/** A shard needs alike hosts: the differing facts, refused unless --force. */
export function checkShardHosts(ctx: HostsContext): string[] {
  if (ctx.mode !== "shard") return [];
  const mixed = shardMismatches(ctx.live().map((s) => s.facts!));
  if (mixed.length && !ctx.opts.force)
    throw new InputError(`refusing to shard over hosts that differ: ${mixed.join("; ")}`, {
      code: "HOSTS_DIFFER",
      problems: mixed,
      hint: "shard over identical machines, use compare: hosts to measure the difference, or pass --force (the report then says the hosts were mixed)",
    });
  if (mixed.length) {
    ctx.info(`sharding over unlike hosts (--force): ${mixed.join("; ")}`, undefined, "warning");
    ctx.notes.push(`hosts were mixed (--force): ${mixed.join("; ")}`);
  }
  return mixed;
}
