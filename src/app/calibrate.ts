/**
 * `twinbench calibrate`: measure the host's noise before spending its time. Stages, each a separate
 * short run of the run engine (so every A/A run starts fresh server instances):
 *
 *   layout (plan time model, --max-time) → series: one server, one long cell, per-second report
 *   → A/A runs: the scenario's first server against itself, on 1–2 cells, one run per instance
 *   → nested sds (pairs within instances, instances) → the host's calibration file
 *
 * The runs' results folders stay under <outRoot>/calibrate-<id>/. Progress goes to `log`; the runs' own events to
 * `onEvent`.
 */
import { join } from "node:path";
import { CancelledError, TwinbenchError } from "../core/base/errors.ts";
import type { EventSink } from "../core/model/events.ts";
import type { CellRecord, HostFacts } from "../core/model/results.ts";
import { parseDuration, type Scenario } from "../core/model/scenario/schema.ts";
import { formatSeconds } from "../core/base/units.ts";
import { grossCellSeconds } from "../core/plan/run-costs.ts";
import { measureRecords } from "../core/stats/records.ts";
import { aaScenario, calibrationLayout, curveScenario, seriesScenario } from "../core/plan/calibrate-layout.ts";
import { cellLengthCurve, recalibrated } from "../core/plan/calibration/update.ts";
import { aaPairsByCell, seriesDisturbance } from "../core/plan/calibration/pairs.ts";
import { pairSecondsAt } from "../core/plan/calibration/costs.ts";
import { hostKey, keyFacts } from "../core/plan/calibration/host-key.ts";
import { type Calibration } from "../core/plan/calibration/schema.ts";
import { nestedSd } from "../core/stats/nested-sd.ts";
import { seriesStats } from "../core/stats/series.ts";
import { readResultsFolder } from "../adapters/report-files.ts";
import { localHostFacts, readCalibration, writeCalibration } from "../adapters/calibration-store.ts";
import { runScenario, newRunId, type RunDeps, type RunSummary } from "./run.ts";

/** What calibrate needs: the lab, the scenario it derives its runs from, its time, where to write. */
export interface CalibrateOptions {
  deps: RunDeps;
  scenario: Scenario;
  /** The scenario's file name (recorded as the calibration's scenario). */
  scenarioFile: string;
  neutralCnf: string;
  maxSeconds: number;
  /** Folder under which calibrate-<id>/ is made (default "results"). */
  outRoot?: string;
  /** The calibration store's folder (default: calibrationDir()). */
  calibrationDir?: string;
  /** A/A pairs to aim for in all, and server instances (separate runs). Defaults 30 and 3. */
  pairs?: number;
  instances?: number;
  seriesSeconds?: number;
  /** Cell lengths (seconds) of the pair-sd curve (`--lengths 10,30,90`): one A/A run each, after the others. */
  lengths?: number[];
  sessionId?: string;
  selfContainerId?: string;
  signal?: AbortSignal;
  onEvent?: EventSink;
  log: (line: string) => void;
}

/** The calibration made, where it was stored, and the results folders of its runs. */
export interface CalibrateResult {
  calibration: Calibration;
  file: string;
  dir: string;
  runs: string[];
}

/** A scenario's cell length in seconds (0 for a run of events). */
const cellSecondsOf = (s: Scenario) => parseDuration(s.workload.duration ?? 0) ?? 0;

/** The q/s of each second of a one-server run's measured cell. */
function seriesOf(cells: readonly CellRecord[]): number[] {
  const r = measureRecords(cells).find((c) => c.status === "ok" && c.metrics);
  return (r?.metrics?.intervals ?? []).map((s) => s.qps);
}

/** Run the series and the A/A runs, then store the host's calibration. */
export async function calibrate(o: CalibrateOptions): Promise<CalibrateResult> {
  const started = performance.now();
  const id = newRunId(new Date());
  const dir = join(o.outRoot ?? "results", `calibrate-${id}`);
  const layout = calibrationLayout(o.scenario, o.maxSeconds, {
    pairs: o.pairs,
    instances: o.instances,
    seriesSeconds: o.seriesSeconds,
    lengths: o.lengths,
  });
  const curveText = layout.curve.length
    ? `, then one A/A run per cell length ${layout.curve.map((c) => `${c.cellSeconds} s`).join(", ")} (${layout.curve[0].repeats} pairs each)`
    : "";
  o.log(
    `calibrate: ${o.scenario.servers[0].image} against itself; series ${layout.seriesSeconds} s, then ${layout.instances} A/A runs × ${layout.cells} cell${layout.cells === 1 ? "" : "s"} × ${layout.repeats} pairs${curveText}; ` +
      `estimated ${formatSeconds(layout.estimateSeconds)} of ${formatSeconds(o.maxSeconds)}; results under ${dir}`,
  );
  if (!layout.fits)
    o.log(
      `calibrate: warning: even the smallest layout is estimated beyond --max-time; it runs anyway and stops after 2 A/A runs`,
    );
  const run = async (scenario: Scenario, name: string): Promise<{ summary: RunSummary; cells: CellRecord[] }> => {
    const summary = await runScenario(o.deps, {
      scenario,
      scenarioFile: o.scenarioFile,
      neutralCnf: o.neutralCnf,
      outDir: join(dir, name),
      runId: newRunId(new Date()),
      sessionId: o.sessionId,
      signal: o.signal,
      onEvent: o.onEvent,
      selfContainerId: o.selfContainerId,
      updateCalibration: false,
    });
    const folder = await readResultsFolder(summary.dir);
    if (o.signal?.aborted) throw new CancelledError(); // the run was cancelled: no further runs, nothing stored
    return { summary, cells: folder.cells };
  };

  o.log(`calibrate: series: one server, ${layout.seriesSeconds} s with a per-second report`);
  // Outside work during the series makes its CV and autocorrelation figures of that work, not of the machine: a
  // disturbed series runs once more, and a second disturbed one gives no per-second figures.
  let series = await run(seriesScenario(o.scenario, layout.seriesSeconds), "series");
  const runs = [series.summary.dir];
  let disturbed = seriesDisturbance(series.cells);
  if (disturbed) {
    o.log(`calibrate: the series was disturbed by outside work (${disturbed}); running it once more`);
    series = await run(seriesScenario(o.scenario, layout.seriesSeconds), "series-2");
    runs.push(series.summary.dir);
    disturbed = seriesDisturbance(series.cells);
  }
  const values = disturbed ? [] : seriesOf(series.cells);
  const perSecond = values.length >= 4 ? seriesStats(values) : null;
  if (disturbed)
    o.log(
      `calibrate: warning: the series was disturbed again (${disturbed}); no per-second figures (${series.summary.dir})`,
    );
  else if (!perSecond)
    o.log(
      `calibrate: warning: the series run gave ${values.length} per-second values; no per-second figures (${series.summary.dir})`,
    );

  const aa = aaScenario(o.scenario, layout.repeats, layout.cells);
  const instances: Array<Map<string, number[]>> = [];
  let perPair: number[] = [];
  for (let i = 0; i < layout.instances; i++) {
    const elapsed = (performance.now() - started) / 1000;
    if (i >= 2 && elapsed + layout.runSeconds > o.maxSeconds) {
      o.log(`calibrate: stopping after ${i} A/A runs: ${formatSeconds(elapsed)} spent, the next would pass --max-time`);
      break;
    }
    o.log(`calibrate: A/A run ${i + 1} of ${layout.instances} (fresh server instances)`);
    const r = await run(aa, `aa-${i + 1}`);
    runs.push(r.summary.dir);
    const { pairs, disturbed: left } = aaPairsByCell(r.cells);
    const n = [...pairs.values()].reduce((a, g) => a + g.length, 0);
    o.log(
      `calibrate: A/A run ${i + 1}: ${n} pairs (${r.summary.status})${left ? `; ${left} disturbed by outside work in every attempt, left out` : ""}`,
    );
    if (n === 0) continue;
    instances.push(pairs);
    // The run's pace per pair, as runs store it: both cells at their gross seconds (re-runs included). Not the
    // run's whole span over its pairs: that holds its warm-ups and gaps (15.3 s a pair of 7 s cells that took 7.2 s
    // each), and it priced every later cell too dear.
    const gross = grossCellSeconds(r.cells);
    const spp = gross === null ? null : pairSecondsAt(cellSecondsOf(aa), gross, cellSecondsOf(aa));
    if (spp !== null) perPair = [...perPair, spp];
  }
  const cellSeconds = cellSecondsOf(aa);
  const curve = await curveRuns(o, { layout, run, runs, main: instances, cellSeconds, started });
  return store(o, {
    dir,
    runs,
    facts: await localHostFacts(o.deps.engine),
    perSecond,
    instances,
    perPair,
    cellSeconds,
    curve,
  });
}

/**
 * The curve's A/A runs: one run per cell length, each on fresh instances; the main A/A runs are the
 * point at their own length. A length whose run would pass --max-time is left out, and calibrate says so.
 */
async function curveRuns(
  o: CalibrateOptions,
  m: {
    layout: ReturnType<typeof calibrationLayout>;
    run: (s: Scenario, name: string) => Promise<{ summary: RunSummary; cells: CellRecord[] }>;
    runs: string[];
    main: Array<Map<string, number[]>>;
    cellSeconds: number;
    started: number;
  },
): Promise<Calibration["cellLengthCurve"]> {
  const { layout, run, runs, main, cellSeconds } = m;
  if (!layout.curve.length) return undefined;
  const byLength = new Map<number, Array<Map<string, number[]>>>();
  for (const c of layout.curve) {
    if (c.cellSeconds === cellSeconds) continue; // the main A/A runs are this point
    const elapsed = (performance.now() - m.started) / 1000;
    if (elapsed + c.runSeconds > o.maxSeconds) {
      o.log(
        `calibrate: curve: ${c.cellSeconds} s cells left out: ${formatSeconds(elapsed)} spent, its run (about ${formatSeconds(c.runSeconds)}) would pass --max-time`,
      );
      continue;
    }
    o.log(
      `calibrate: curve: A/A run at ${c.cellSeconds} s cells (${c.repeats} pairs × ${c.cells} cell${c.cells === 1 ? "" : "s"}, about ${formatSeconds(c.runSeconds)})`,
    );
    const r = await run(curveScenario(o.scenario, c.cellSeconds, c.cells), `aa-${c.cellSeconds}s`);
    runs.push(r.summary.dir);
    const { pairs, disturbed } = aaPairsByCell(r.cells);
    if (disturbed)
      o.log(
        `calibrate: curve: ${disturbed} pair${disturbed === 1 ? "" : "s"} of the ${c.cellSeconds} s run disturbed by outside work in every attempt, left out`,
      );
    if ([...pairs.values()].some((g) => g.length > 1)) byLength.set(c.cellSeconds, [pairs]);
    else o.log(`calibrate: curve: the ${c.cellSeconds} s run gave no pair df; left out (${r.summary.dir})`);
  }
  if (main.length) byLength.set(cellSeconds, main);
  return cellLengthCurve(byLength);
}

/** The nested sds of the A/A runs, as the host's calibration file. */
async function store(
  o: CalibrateOptions,
  m: {
    dir: string;
    runs: string[];
    facts: HostFacts;
    perSecond: Calibration["perSecond"];
    instances: Array<Map<string, number[]>>;
    perPair: number[];
    cellSeconds: number;
    curve?: Calibration["cellLengthCurve"];
  },
): Promise<CalibrateResult> {
  const keys = [...new Set(m.instances.flatMap((p) => [...p.keys()]))];
  const sd = nestedSd(keys.map((k) => m.instances.map((p) => p.get(k) ?? [])));
  if (!(sd.pairDf > 0) || !Number.isFinite(sd.pairSdPct))
    throw new TwinbenchError(`calibrate got no usable A/A pairs (${sd.pairs} pairs, df ${sd.pairDf})`, {
      code: "CALIBRATION_FAILED",
      hint: `look at the runs' results folders under ${m.dir} (\`twinbench report DIR\`) for the failed cells`,
    });
  const facts = m.facts;
  const now = new Date().toISOString();
  const calibration: Calibration = {
    version: 1,
    hostKey: hostKey(facts),
    hostFacts: keyFacts(facts),
    measuredAt: now,
    updatedAt: now,
    scenario: o.scenarioFile,
    cellSeconds: m.cellSeconds,
    perSecond: m.perSecond,
    pairSdPct: sd.pairSdPct,
    pairDf: sd.pairDf,
    instanceSdPct: sd.instanceSdPct,
    instanceDf: sd.instanceDf,
    secondsPerPair: m.perPair.length ? m.perPair.reduce((a, b) => a + b, 0) / m.perPair.length : null,
    updates: 0,
    ...(m.curve?.length ? { cellLengthCurve: m.curve } : {}),
  };
  const kept = recalibrated(calibration, await readCalibration(calibration.hostKey, o.calibrationDir));
  const file = await writeCalibration(kept, o.calibrationDir);
  return { calibration: kept, file, dir: m.dir, runs: m.runs };
}
