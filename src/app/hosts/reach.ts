/** Stage 1: reach every host's engine; the unreachable ones are out, and with none left the run cannot start. */
import { TwinbenchError } from "../../core/base/errors.ts";
import { DeadlineError, withDeadline } from "../../core/base/deadline.ts";
import { unreachableReason } from "../../adapters/docker/guard.ts";
import type { HostsContext } from "./context.ts";

export async function reachHosts(ctx: HostsContext): Promise<void> {
  const timeoutMs = ctx.deps.pingTimeoutMs ?? 15_000;
  await Promise.all(
    ctx.states.map(async (s) => {
      try {
        await withDeadline(s.engine.ping(), timeoutMs, () => new DeadlineError(timeoutMs));
        ctx.info(`host ${s.t.spec.id}: engine ${s.run.engine} answers`, s.t.spec.id);
      } catch (e) {
        ctx.lose(s, "unreachable", `engine ${s.run.engine} does not answer: ${unreachableReason(e)}`);
      }
    }),
  );
  const lost = ctx.states.filter((s) => !s.alive);
  if (ctx.opts.resume && lost.length > 0)
    throw new TwinbenchError(
      `cannot resume ${ctx.folder.dir}: ${lost.map((s) => `host ${s.t.spec.id} (${s.run.error})`).join("; ")}`,
      {
        code: "HOST_UNREACHABLE",
        hint: `a resume runs every host's unfinished cells on that host: start its engine, or give its new URL with --host ${lost[0]!.t.spec.id}=URL`,
      },
    );
  if (ctx.live().length === 0)
    throw new TwinbenchError(
      `no host is reachable: ${ctx.states.map((s) => `${s.t.spec.id} (${s.run.error})`).join("; ")}`,
      {
        code: "HOST_UNREACHABLE",
        hint: "check the engine URLs (docker -H URL version)",
      },
    );
  if (ctx.mode === "hosts" && ctx.scenario.compare === "hosts" && ctx.live().length < ctx.states.length)
    ctx.info(
      `continuing with ${ctx
        .live()
        .map((s) => s.t.spec.id)
        .join(", ")}: the run will end partial`,
      undefined,
      "warning",
    );
}
