/**
 * Run stages around the cells that use the host's calibration (RunDeps.calibrations, local engine only):
 *   - before: read it, and announce the forecast it gives an adaptive run (or say there is none: the run then
 *     forecasts from its own pairs after the first round; it never calibrates first);
 *   - after: fold the run's own pairs into it at both levels (pair and instance, df-weighted) with its measured
 *     costs, or make the host's first calibration from them, so the next run forecasts well.
 * A failure here is a warning: the run's results do not depend on it.
 */
import { calibrationFromRun, typicalNoise, updateCalibration } from "../../core/plan/calibration/update.ts";
import { disturbedPairs, runCellSpread, runNoise } from "../../core/plan/calibration/pairs.ts";
import { costShapeOf } from "../../core/plan/calibration/costs.ts";
import { keyFacts } from "../../core/plan/calibration/host-key.ts";
import { type Calibration } from "../../core/plan/calibration/schema.ts";
import { pickServers } from "../../core/stats/ratio.ts";
import { forecastBefore, NO_CALIBRATION } from "../../core/plan/forecast.ts";
import { grossCellSeconds, observedCosts } from "../../core/plan/run-costs.ts";
import { adaptiveRepeats, parseDuration } from "../../core/model/scenario/schema.ts";
import type { RunContext } from "./context.ts";
import type { ResultsSession } from "./session.ts";

const usable = (ctx: RunContext) => ctx.deps.calibrations !== undefined && ctx.engine.hostId === "local";

/** The host's calibration (null when there is none or it cannot be read: then a warning says why). */
export async function readHostCalibration(ctx: RunContext): Promise<Calibration | null> {
  if (!usable(ctx)) return null;
  try {
    return (await ctx.deps.calibrations!.read()).calibration;
  } catch (e) {
    ctx.warn(
      `could not read the host's calibration (the run forecasts from its own pairs instead): ${(e as Error).message}`,
    );
    return null;
  }
}

/** Before an adaptive run: the forecast event from the calibration, or none and why; kept in run.json. */
export function announceForecast(ctx: RunContext, session: ResultsSession, cal: Calibration | null): void {
  // A designed run (fixed or adaptive) keeps the design's forecast; a resumed run keeps the one it recorded.
  if (ctx.opts.design && !session.manifest.forecast?.design)
    (session.manifest.forecast ??= { forecasts: [] }).design = ctx.opts.design;
  if (!adaptiveRepeats(ctx.scenario.workload) || ctx.opts.identityOnly) return;
  const record = (session.manifest.forecast ??= { forecasts: [] });
  const f = ctx.scenario.servers.length === 2 ? forecastBefore(ctx.scenario, cal, ctx.at()) : null;
  if (f) {
    record.forecasts.push(f);
    ctx.emit({ type: "forecast", at: ctx.at(), forecast: f });
    return;
  }
  const why =
    ctx.scenario.servers.length !== 2
      ? "no forecast: the forecast models a run of two servers"
      : cal
        ? "no forecast before the run"
        : NO_CALIBRATION;
  record.none = why;
  ctx.emit({ type: "forecast", at: ctx.at(), forecast: null, note: why });
}

/** After the run: fold its pairs into the host's calibration (or make the first one); warns instead of failing. */
export async function updateHostCalibration(ctx: RunContext, session: ResultsSession): Promise<void> {
  if (ctx.opts.updateCalibration === false || ctx.opts.identityOnly || !usable(ctx)) return;
  try {
    const pair = pickServers(session.manifest);
    if (!pair) return; // no pair of servers: nothing to learn about pairs
    const records = await session.store.readCells();
    // The host's calibration is its noise when nothing else runs: disturbed pairs stay out of it (a run on a
    // machine at load 22 would otherwise set the pair sd every later plan reads).
    const left = disturbedPairs(records, pair[0], pair[1]);
    if (left.disturbed > 0)
      ctx.warn(
        `calibration: ${left.disturbed} of ${left.pairs} pairs were disturbed by outside work and are left out of the host's calibration`,
      );
    const pooled = runNoise(records, pair[0], pair[1], { skipDisturbed: true });
    if (!pooled) return; // fewer than 2 undisturbed pairs in every cell: no df
    if (!(pooled.pairSdPct > 0)) return; // identical ratios (a fake or a broken metric): no noise figure worth keeping
    const w = ctx.scenario.workload;
    const costs = {
      grossCellSeconds: grossCellSeconds(records),
      cellSeconds: w.duration === undefined ? 0 : (parseDuration(w.duration) ?? 0),
      servers: ctx.scenario.servers.length,
      setupSeconds: session.manifest.forecast?.setupSeconds,
      teardownSeconds: ctx.timings.teardown,
      restartSeconds: observedCosts(records).restartSeconds,
      shape: costShapeOf(ctx.scenario),
    };
    // How unequal this run's cells were: the next forecasts' prior df of the cells' pair sds is fitted from it, and
    // the pair level folded in is the typical cell's (a stalling cell would otherwise set the host's noise).
    const spread = runCellSpread(records, pair[0], pair[1]);
    const noise = typicalNoise(pooled, spread);
    const store = ctx.deps.calibrations!;
    const { key, facts, calibration: cal } = await store.read();
    const next = cal
      ? updateCalibration(cal, noise, ctx.at(), costs, spread)
      : calibrationFromRun({
          hostKey: key,
          hostFacts: keyFacts(facts),
          scenario: ctx.opts.scenarioFile ?? ctx.scenario.name,
          noise,
          costs,
          at: ctx.at(),
          spread,
        });
    const file = await store.write(next);
    ctx.emit({
      type: "calibration-updated",
      at: ctx.at(),
      file,
      made: !cal,
      pairs: noise.pairs,
      pairSdPct: next.pairSdPct,
      pairDf: next.pairDf,
      instanceSdPct: next.instanceSdPct,
    });
  } catch (e) {
    ctx.warn(`could not update the host's calibration: ${(e as Error).message}`);
  }
}
