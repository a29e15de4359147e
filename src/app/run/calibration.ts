/**
 * Run stage after the cells: a run on the local engine folds its pooled residual variance (log pair ratios within
 * cells) into the host's calibration, when the host has one (df-weighted, `updates` counted). A failure here is a
 * warning: the run's results do not depend on it.
 */
import { pooledResiduals, updateCalibration } from "../../core/calibration.ts";
import { pickServers } from "../../core/report/ratio.ts";
import { hostCalibration, writeCalibration } from "../../adapters/calibration-store.ts";
import type { RunContext } from "./context.ts";
import type { ResultsSession } from "./session.ts";

/** Update the host's calibration from this run's pairs; warns instead of failing. */
export async function updateHostCalibration(ctx: RunContext, session: ResultsSession): Promise<void> {
  if (ctx.opts.updateCalibration === false || ctx.opts.identityOnly || ctx.engine.hostId !== "local") return;
  try {
    const pair = pickServers(session.manifest);
    if (!pair) return; // no pair of servers: nothing to learn about pairs
    const residuals = pooledResiduals(await session.store.readCells(), pair[0], pair[1]);
    if (!residuals) return; // fewer than 2 pairs in every cell: no residual df
    const { calibration: cal } = await hostCalibration(ctx.engine);
    if (!cal) return; // never calibrated: a run does not make a calibration by itself (twinbench calibrate does)
    await writeCalibration(updateCalibration(cal, residuals, ctx.at()));
  } catch (e) {
    ctx.warn(`could not update the host's calibration: ${(e as Error).message}`);
  }
}
