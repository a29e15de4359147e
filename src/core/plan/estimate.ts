/**
 * The plan's time model (pure): each phase of a run (image checks, server starts, prepare, snapshots, restores,
 * restarts, warm-ups, measured cells, teardown) priced by the set-up costs, per host, and the run's wall time.
 */
import { type Scenario, parseDuration, trimSeconds } from "../model/scenario/schema.ts";
import type { SetupCosts } from "../model/setup-costs.ts";

/** A data-moving cost for a server holding `rows` rows: its fixed part plus its part per million rows. */
export function sizedSeconds(fixed: number, perMillionRows: number, rows: number): number {
  return fixed + perMillionRows * (Math.max(0, rows) / 1e6);
}

/** What the estimate counts of a plan: its measured cells and the steps between them, each on its host. */
export interface PlanSteps {
  cells: ReadonlyArray<{ host?: string }>;
  warmups: ReadonlyArray<{ host?: string; seconds: number }>;
  restores: ReadonlyArray<{ host?: string }>;
  restarts: ReadonlyArray<{ host?: string; beforeCell: number; instance: number }>;
  snapshots: readonly string[];
}

export interface EstimateItem {
  label: string;
  seconds: number;
  host?: string;
}

export interface PlanEstimate {
  /** Wall time: hosts run in parallel, so the longest host's total. */
  totalSeconds: number;
  measureSeconds: number;
  warmupSeconds: number;
  setupSeconds: number;
  breakdown: EstimateItem[];
  /** True when some cells are bounded by events, timed at a rough rate (eventsPerSecond). */
  approximate: boolean;
  notes: string[];
}

export function estimatePlan(
  s: Scenario,
  costs: SetupCosts,
  plan: PlanSteps,
  hosts: Array<string | undefined>,
): PlanEstimate {
  const w = s.workload;
  // workload.trim: each measured cell runs that much longer.
  const duration = w.duration === undefined ? 0 : (parseDuration(w.duration) ?? 0) + trimSeconds(w);
  const byEvents = !(duration > 0) && w.events !== undefined;
  const cellSeconds = byEvents ? (w.events ?? 0) / costs.eventsPerSecond : duration;

  const breakdown: EstimateItem[] = [];
  const totals: number[] = [];
  let measureAll = 0;
  let warmAll = 0;
  let setupAll = 0;
  for (const host of hosts) {
    const { items, setup, warm, measure } = hostEstimate(s, costs, plan, host, { cellSeconds, byEvents, duration });
    breakdown.push(...items);
    totals.push(setup + warm + measure);
    measureAll = Math.max(measureAll, measure);
    warmAll = Math.max(warmAll, warm);
    setupAll = Math.max(setupAll, setup);
  }
  const notes: string[] = [];
  if (byEvents)
    notes.push(`cells end after ${w.events} events; their time is a guess at ~${costs.eventsPerSecond} events/s`);
  if (hosts.length > 1) notes.push(`${hosts.length} hosts run in parallel: the total is the longest host's`);
  return {
    totalSeconds: f(Math.max(0, ...totals)),
    measureSeconds: measureAll,
    warmupSeconds: warmAll,
    setupSeconds: f(setupAll),
    breakdown,
    approximate: byEvents,
    notes,
  };
}

/** One host's phases (`host` undefined: the one host of a run without hosts), with its set-up, warm-up and measure. */
function hostEstimate(
  s: Scenario,
  costs: SetupCosts,
  plan: PlanSteps,
  host: string | undefined,
  o: { cellSeconds: number; byEvents: boolean; duration: number },
): { items: EstimateItem[]; setup: number; warm: number; measure: number } {
  const w = s.workload;
  const { cellSeconds, byEvents, duration } = o;
  const nServers = s.servers.length;
  const images = new Set(s.servers.map((x) => x.image)).size + 1; // + the sysbench image
  const rows = w.tables * w.tableSize;
  const on = <T extends { host?: string }>(xs: readonly T[]) => xs.filter((x) => x.host === host);
  const cells = on(plan.cells).length;
  const warmups = on(plan.warmups);
  const restores = on(plan.restores).length;
  const restarts = on(plan.restarts).filter((x) => x.beforeCell > 0 || x.instance > 0).length;
  const h = host ? { host } : {};
  const items: EstimateItem[] = [
    {
      label: `image checks (${images} × ${costs.imageCheckSeconds} s)`,
      seconds: images * costs.imageCheckSeconds,
      ...h,
    },
    {
      label: `server start and readiness (${nServers} × ${costs.serverStartSeconds} s)`,
      seconds: nServers * costs.serverStartSeconds,
      ...h,
    },
    {
      label: `prepare (${nServers} × ${w.tables} tables × ${w.tableSize} rows at ${costs.prepareRowsPerSecond} rows/s)`,
      seconds: f((nServers * rows) / costs.prepareRowsPerSecond),
      ...h,
    },
  ];
  const raids = s.servers.filter((x) => (x.storage ?? s.storage).kind === "raid0").length;
  if (raids)
    items.push({
      label: `RAID 0 set-up (${raids} × ${costs.raidSetupSeconds} s)`,
      seconds: raids * costs.raidSetupSeconds,
      ...h,
    });
  const prewarm = f(sizedSeconds(costs.prewarmSeconds, costs.prewarmSecondsPerMillionRows, rows));
  if (w.prewarm) items.push({ label: `prewarm (${nServers} × ${prewarm} s)`, seconds: nServers * prewarm, ...h });
  const snapshot = f(sizedSeconds(costs.snapshotSeconds, costs.snapshotSecondsPerMillionRows, rows));
  if (plan.snapshots.length)
    items.push({
      label: `snapshots (${plan.snapshots.length} × ${snapshot} s)`,
      seconds: plan.snapshots.length * snapshot,
      ...h,
    });
  if (restores) {
    // Every restore is prewarmed like after prepare (src/app/run/servers.ts restartWarm).
    const each = f(
      sizedSeconds(costs.restoreSeconds, costs.restoreSecondsPerMillionRows, rows) + (w.prewarm ? prewarm : 0),
    );
    items.push({
      label: `snapshot restores (${restores} × ${each} s${w.prewarm ? ": restore, start, prewarm" : ""})`,
      seconds: restores * each,
      ...h,
    });
  }
  if (restarts) {
    const each = f(sizedSeconds(costs.instanceRestartSeconds, costs.instanceRestartSecondsPerMillionRows, rows));
    items.push({
      label: `instance restarts (${restarts} × ${nServers} servers × ${each} s: restore, start${w.prewarm ? ", prewarm" : ""})`,
      seconds: restarts * nServers * each,
      ...h,
    });
  }
  const runs = cells + warmups.length;
  items.push({
    label: `sysbench start-up (${runs} runs × ${Math.round(costs.cellOverheadSeconds * 100) / 100} s)`,
    seconds: runs * costs.cellOverheadSeconds,
    ...h,
  });
  items.push({
    label: `teardown (${nServers} × ${costs.teardownSeconds} s)`,
    seconds: nServers * costs.teardownSeconds,
    ...h,
  });
  const setup = items.reduce((a, b) => a + b.seconds, 0);
  const warm = warmups.reduce((a, b) => a + b.seconds, 0);
  const measure = f(cells * cellSeconds);
  if (warmups.length)
    items.push({ label: `warm-up (${warmups.length} × ${warmups[0].seconds} s)`, seconds: warm, ...h });
  items.push({
    label: byEvents
      ? `measure (${cells} cells × ${w.events} events at ~${costs.eventsPerSecond} events/s)`
      : `measure (${cells} cells × ${duration} s)`,
    seconds: measure,
    ...h,
  });
  return { items, setup, warm, measure };
}

/** Seconds to one decimal. */
const f = (n: number) => Math.round(n * 10) / 10;
