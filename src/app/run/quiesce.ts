/**
 * workload.quiesce: before a write-test cell (and after prepare), wait until InnoDB's purge history length and
 * dirty pages have settled (src/core/measure/levers.ts `quiesced`), one look a second, at most QUIESCE_TIMEOUT_S.
 */
import { quiesced, type BacklogSample } from "../../core/measure/levers.ts";
import type { LabServer } from "../lab-server.ts";
import type { RunContext } from "./context.ts";
import type { ResultsSession } from "./session.ts";

/** The longest wait for quiescence before a cell runs anyway (the wait is then recorded as not settled). */
export const QUIESCE_TIMEOUT_S = 60;

/** Wait for quiescence on `server` (awake); returns the seconds waited. Records an action naming what it saw. */
export async function quiesce(
  ctx: RunContext,
  session: ResultsSession,
  server: LabServer,
  before: string,
): Promise<number> {
  const read = ctx.probe.readInnodbBacklog;
  if (!read) {
    ctx.warn(
      `workload.quiesce: the SQL probe cannot read InnoDB's backlog; ${server.id} ${before} runs without waiting`,
    );
    return 0;
  }
  const t0 = ctx.clock();
  const samples: BacklogSample[] = [];
  for (;;) {
    ctx.throwIfAborted();
    samples.push(await read(server.rootEndpoint()));
    const seconds = (ctx.clock() - t0) / 1000;
    const settled = quiesced(samples);
    if (settled || seconds >= QUIESCE_TIMEOUT_S) {
      const last = samples[samples.length - 1]!;
      const seen = `history length ${last.historyLength ?? "unknown"}, dirty pages ${last.dirtyPages}`;
      session.action(
        "quiesce",
        server.id,
        `${settled ? "settled" : `not settled after ${QUIESCE_TIMEOUT_S} s`} ${before} after ${seconds.toFixed(1)} s: ${seen}`,
      );
      if (!settled) ctx.warn(`${server.id}: InnoDB did not settle within ${QUIESCE_TIMEOUT_S} s ${before} (${seen})`);
      return Number(seconds.toFixed(2));
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
}
