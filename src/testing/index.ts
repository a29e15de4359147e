/**
 * `twinbench/testing`: performance gates in your own test suite (vitest, jest, node:test). Run a small scenario
 * on real servers through the library, then assert on a cell of its ratio table. A gate fails only on a
 * significant shortfall — the whole confidence interval below the bound — and its message shows the estimate and
 * the interval, so a noisy machine does not fail a build by chance.
 *
 * @example
 * ```ts
 * import { runBenchmark, expectRatio } from "twinbench/testing";
 * const { report } = await runBenchmark("scenarios/quick.yaml", { sets: ["workload.tests=[oltp_point_select]"] });
 * expectRatio(report, { test: "oltp_point_select", threads: 1 }).atLeast(95);
 * ```
 * @packageDocumentation
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CancelledError, TwinbenchError } from "../core/base/errors.ts";
import type { EventSink } from "../core/model/events.ts";
import type { ModeChoice } from "../core/images/context.ts";
import type { Scenario } from "../core/model/scenario/schema.ts";
import { buildRunReport, type ReportOptions, type RunReport } from "../core/report/model.ts";
import type { RatioCell, RatioTable } from "../core/stats/ratio-model.ts";
import { loadScenario, readNeutralConfig } from "../adapters/scenario-file.ts";
import { readResultsFolder } from "../adapters/report-files.ts";
import { DockerEngine } from "../adapters/docker/engine.ts";
import { createRunDeps } from "../app/deps.ts";
import { runScenario, type RunSummary } from "../app/run.ts";
import { defaultSession } from "../app/session.ts";

/** Options of {@link runBenchmark}. */
export interface BenchmarkOptions {
  /** `--set PATH=VALUE` overrides, applied to a scenario file (e.g. `"workload.duration=3s"`). */
  sets?: string[];
  /** Keep the results folder here (default: a temporary folder, removed once the report is built). */
  outDir?: string;
  /** Cancels the run: servers are removed, and the promise rejects with a CancelledError. */
  signal?: AbortSignal;
  /** The run's typed events (progress, cells, warnings). */
  onEvent?: EventSink;
  imageMode?: ModeChoice;
  /** The `twinbench.session` label (default: `$TWINBENCH_SESSION`, else one per process). */
  session?: string;
  /** Metric and CV threshold of the report (default: q/s, 10%). */
  report?: ReportOptions;
}

/** A finished benchmark. */
export interface BenchmarkResult {
  summary: RunSummary;
  /** The report model: `report.table` is the ratio table that {@link expectRatio} reads. */
  report: RunReport;
  /** The results folder, when `outDir` was given. */
  dir?: string;
}

/**
 * Run a scenario (a file, with `sets`, or a scenario object) end to end on the local Docker engine and return its
 * report. Images are built when missing; everything the run creates is removed, also on failure or cancel. A run
 * that cannot measure anything throws (TwinbenchError with the run engine's code); cell failures show in the report.
 */
export async function runBenchmark(scenario: Scenario | string, opts: BenchmarkOptions = {}): Promise<BenchmarkResult> {
  const sc = typeof scenario === "string" ? (await loadScenario(scenario, { sets: opts.sets })).scenario : scenario;
  const keep = opts.outDir !== undefined;
  const parent = keep ? undefined : await mkdtemp(join(tmpdir(), "twinbench-testing-"));
  const outDir = opts.outDir ?? join(parent!, "run");
  try {
    const deps = await createRunDeps({ engine: new DockerEngine("local"), imageMode: opts.imageMode ?? sc.imageMode });
    const summary = await runScenario(deps, {
      scenario: sc,
      scenarioFile: typeof scenario === "string" ? scenario : undefined,
      overrides: opts.sets,
      neutralCnf: await readNeutralConfig(sc),
      outDir,
      sessionId: opts.session ?? defaultSession(),
      signal: opts.signal,
      onEvent: opts.onEvent,
    });
    if (summary.status === "cancelled") throw new CancelledError();
    const folder = await readResultsFolder(summary.dir);
    const report = buildRunReport(folder.manifest, folder.cells, opts.report);
    return { summary, report, ...(keep ? { dir: summary.dir } : {}) };
  } finally {
    if (parent) await rm(parent, { recursive: true, force: true });
  }
}

/** Which cell of the ratio table a gate checks. */
export interface RatioSelector {
  /** The test as the scenario names it, e.g. `"oltp_point_select"`. */
  test: string;
  threads: number;
}

/** A failed gate: the cell's estimate and interval against the bound. */
export class RatioGateError extends TwinbenchError {
  constructor(
    message: string,
    readonly estimate: number,
    readonly low: number,
    readonly high: number,
    readonly bound: number,
    code: "RATIO_BELOW_BOUND" | "RATIO_ABOVE_BOUND",
  ) {
    super(message, {
      code,
      hint: "the whole 95% interval lies beyond the bound, so this is not noise; if the runs were disturbed, rerun with more repeats",
    });
  }
}

/** A gate on one cell; see {@link expectRatio}. */
export interface RatioExpectation {
  /** The cell of the ratio table. */
  readonly cell: RatioCell;
  /** Fails when the interval's high end is below `bound` (%): a significant shortfall. */
  atLeast(bound: number): void;
  /** Fails when the interval's low end is above `bound` (%): significantly more. */
  atMost(bound: number): void;
}

const pct = (x: number) => x.toFixed(1);

function describeCell(
  t: RatioTable,
  sel: RatioSelector,
  c: RatioCell & { estimate: number; low: number; high: number },
): string {
  return `${sel.test} @ ${sel.threads} threads: ${t.numerator}/${t.denominator} ${t.metric} = ${pct(c.estimate)}% [${pct(c.low)}–${pct(c.high)}] (${Math.round(t.confidence * 100)}% interval, ${c.n} pairs)`;
}

/**
 * A gate on one cell of a report's ratio table (numerator / denominator × 100, as in `twinbench report`).
 * `atLeast(95)` fails only when the cell's confidence interval lies wholly below 95 — a significant shortfall — and
 * says so with the estimate and the interval. A cell that failed, is missing, or has no interval (one repeat) is an
 * error of its own: such a cell cannot vouch for anything.
 *
 * @example
 * ```ts
 * expectRatio(report, { test: "oltp_point_select", threads: 1 }).atLeast(95);
 * // RatioGateError: oltp_point_select @ 1 threads: mariadb/mysql qps = 97.2% [80.1–117.9] (95% interval, 3 pairs) …
 * ```
 */
export function expectRatio(report: RunReport, sel: RatioSelector): RatioExpectation {
  const t = report.table;
  if (!t)
    throw new TwinbenchError(`run ${report.runId} has no ratio table (one server only)`, {
      code: "RATIO_NO_TABLE",
      hint: "a gate compares two servers: give the scenario two",
    });
  const row = t.rows.find((r) => r.test === sel.test);
  const cell = row?.cells.find((c) => c.threads === sel.threads);
  if (!row || !cell)
    throw new TwinbenchError(`run ${report.runId} has no cell ${sel.test} @ ${sel.threads} threads`, {
      code: "RATIO_CELL_MISSING",
      hint: `tests: ${t.rows.map((r) => r.test).join(", ")}; threads: ${t.threads.join(", ")}`,
    });
  if (cell.status !== "ok" || cell.estimate === null)
    throw new TwinbenchError(
      `${sel.test} @ ${sel.threads} threads is ${cell.status}${cell.reason ? ` (${cell.reason})` : ""}: no ratio to gate on`,
      {
        code: "RATIO_CELL_MISSING",
        hint: "see the run's cells and warnings (onEvent, or keep the results folder with outDir)",
      },
    );
  if (cell.low === null || cell.high === null)
    throw new TwinbenchError(
      `${sel.test} @ ${sel.threads} threads: ${pct(cell.estimate)}% has no interval (${cell.n} pair${cell.n === 1 ? "" : "s"})`,
      {
        code: "RATIO_NO_INTERVAL",
        hint: "a gate needs an interval: set workload.repeats to 2 or more (3 or more for a useful width)",
      },
    );
  const c = cell as RatioCell & { estimate: number; low: number; high: number };
  return {
    cell,
    atLeast(bound: number) {
      if (c.high < bound)
        throw new RatioGateError(
          `${describeCell(t, sel, c)}: significantly below ${bound}% (the interval's high end ${pct(c.high)}% < ${bound}%)`,
          c.estimate,
          c.low,
          c.high,
          bound,
          "RATIO_BELOW_BOUND",
        );
    },
    atMost(bound: number) {
      if (c.low > bound)
        throw new RatioGateError(
          `${describeCell(t, sel, c)}: significantly above ${bound}% (the interval's low end ${pct(c.low)}% > ${bound}%)`,
          c.estimate,
          c.low,
          c.high,
          bound,
          "RATIO_ABOVE_BOUND",
        );
    },
  };
}
