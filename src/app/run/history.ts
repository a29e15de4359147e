/**
 * Run stage after the cells: the run's cells go into the host's history (RunDeps.history, local engine only), so
 * that the next report can say where a run on another day lands. A failure here is a warning: the run's results do
 * not depend on it.
 */
import { runHistoryEntry } from "../history.ts";
import { buildRunReport } from "../../core/report/model.ts";
import { replicationLines } from "../../core/report/history.ts";
import type { RunContext } from "./context.ts";
import type { ResultsSession } from "./session.ts";

/** Append the finished run's cells with an interval to the host's history; warns instead of failing. */
export async function recordRunHistory(ctx: RunContext, session: ResultsSession): Promise<void> {
  if (!ctx.deps.history || ctx.opts.identityOnly || ctx.engine.hostId !== "local") return;
  try {
    const cells = await session.store.readCells();
    const entry = runHistoryEntry(session.manifest, cells);
    if (!entry) return; // no cell with an interval: nothing a later run could be held against
    await ctx.deps.history.append(entry);
    if (!ctx.deps.history.read) return;
    const history = await ctx.deps.history.read();
    const lines = replicationLines(buildRunReport(session.manifest, cells, { history }));
    if (lines.length) ctx.emit({ type: "second-run", at: ctx.at(), lines });
  } catch (e) {
    ctx.warn(`could not add the run to the host's history: ${(e as Error).message}`);
  }
}
