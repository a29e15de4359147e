/**
 * Teardown, always: each server's last log, its storage facts refreshed, everything on the stack disposed in
 * reverse order, the final manifest, and the report files.
 */
import type { RunContext } from "./context.ts";
import type { ResultsSession } from "./session.ts";
import type { Servers } from "./servers.ts";
import type { RunStatus } from "./types.ts";

export async function teardown(
  ctx: RunContext,
  session: ResultsSession,
  servers: Servers,
  status: RunStatus,
): Promise<void> {
  ctx.phase("teardown");
  for (const s of servers.all()) {
    if (!s.containerId) continue;
    try {
      await s.unpause();
      await session.writeRaw(`${s.id}.error.log`, await s.logs(5000));
    } catch (e) {
      // The log is lost, not the run: said in run.json (actions) and as a warning; the teardown below still runs.
      const why = `could not keep the error log of server ${s.id}: ${(e as Error).message}`;
      ctx.warn(`teardown: ${why}`);
      session.action("log-not-kept", s.id, why);
    }
  }
  for (const s of servers.all()) {
    const m = session.manifest.servers.find((x) => x.id === s.id);
    if (!m || !s.storage) continue;
    try {
      m.storage = await s.storage.refreshFacts();
    } catch (e) {
      // A failed re-measure is not "unchanged": the start facts stay as the start, the "after" is the failure.
      const why = `could not re-measure the storage of server ${s.id} after the run: ${(e as Error).message}`;
      ctx.warn(`teardown: ${why}`);
      session.action("storage-facts-failed", s.id, why);
      if (m.storage) {
        const { freeBytesAfter: _stale, ...start } = m.storage;
        m.storage = { ...start, afterError: (e as Error).message };
      }
    }
  }
  const failures = await ctx.time("teardown", () => ctx.stack.dispose());
  for (const f of failures) ctx.warn(`teardown: ${f}`);
  const { manifest } = session;
  ctx.timings.wall = (ctx.clock() - ctx.wallStart) / 1000;
  manifest.timings = ctx.timings;
  manifest.status = status;
  manifest.endedAt = ctx.at();
  await session.save();
  if (ctx.deps.writeReports)
    await ctx.deps.writeReports(session.dir).catch((e: unknown) => ctx.warn(`reports: ${(e as Error).message}`));
}
