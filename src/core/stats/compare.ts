/**
 * Cross-run comparison: the same scenario run twice (two hosts, two kernels, two builds), compared cell by cell
 * for each server. numerator = NEW (run B), denominator = BASE (run A), so above 100 means NEW is faster.
 * Repeats of two runs are not paired: with one run a side the interval compares the repeats of the two runs (it
 * cannot hold the variance between runs, and the report says so); with 2 or more runs a side (`--also-base`,
 * `--also-new`) each run's cell value is one observation, so the interval includes the variance between runs.
 * Also: the differences between the runs (run-differences.ts), a refusal when scenario, pins or config differ, and
 * the regression gate. The printed comparison is src/core/report/compare.ts.
 */
import { InputError, TwinbenchError } from "../base/errors.ts";
import type { CellRecord, RunManifest } from "../model/results.ts";
import { comparisonPairs } from "../model/scenario/pairs.ts";
import { summariseInterference } from "../measure/interference.ts";
import { axes, ratioTableFromSides } from "./ratio.ts";
import { measureRecords } from "./records.ts";
import type { RatioTable } from "./ratio-model.ts";
import type { LatencyPercentile, Metric } from "./metric.ts";
import { latencySection, type LatencySection } from "./latency.ts";
import { nopmTables } from "./nopm.ts";
import { buildLadder, compareLadders, type Ladder, type LadderPair } from "./ladder.ts";
import { costTableFromSides, type CostTable } from "./costs.ts";
import { acrossTwoRuns, type CellLevel } from "./host-level.ts";
import { DEFAULT_MARGIN_PCT } from "../model/scenario/schema.ts";
import { factDifferences, runDifferences, variableDifferences, type FactDiff } from "./run-differences.ts";

/** One run for {@link compareRuns}: its manifest and cell records. */
export interface RunData {
  manifest: RunManifest;
  cells: CellRecord[];
}

/** Options of {@link compareRuns}. */
export interface CompareOptions {
  /** Compare only this server id (default: every server present in both runs). */
  server?: string;
  /** Compare even when scenario, pins or config differ (the differences are listed). */
  force?: boolean;
  metric?: Metric;
  /** Equivalence margin in percent (default 5). */
  marginPct?: number;
  /** The runs' pairs (src/core/model/scenario/pairs.ts comparisonPairs): with more than one, the comparison has a ladder. */
  pairs?: readonly LadderPair[];
  /**
   * The level between runs of each server on BASE's host (history-view.ts serverLevels), by server id then
   * `test|threads`: with one run a side, every interval includes it.
   */
  betweenRuns?: ReadonlyMap<string, ReadonlyMap<string, CellLevel>>;
}

export interface RunInfo {
  runId: string;
  status: RunManifest["status"];
  startedAt: string;
}

/** Two runs compared cell by cell (NEW/BASE × 100 per server) with the facts and variables that differ. */
export interface RunComparison {
  base: RunInfo;
  new: RunInfo;
  /** Every run of each side (the first is `base` / `new`). */
  baseRuns: RunInfo[];
  newRuns: RunInfo[];
  servers: string[];
  /** One table per compared server: NEW / BASE * 100. */
  tables: RatioTable[];
  /**
   * p50, p95 and p99 latency of every cell, NEW / BASE per server (unpaired, as `tables`), q over every latency
   * reading of the comparison (src/core/stats/latency.ts); their intervals leave out the level between runs.
   */
  latency: LatencySection | null;
  /** The TPC-C-like cells' NOPM, NEW / BASE per server (src/core/stats/nopm.ts); empty without NOPM. */
  nopm: RatioTable[];
  /** One cost-per-query table per compared server (same order as `tables`): NEW / BASE, unpaired. */
  costs: CostTable[];
  /**
   * One run a side: whether the intervals include the level between runs from the host's history (`widened` cells,
   * from up to `runs` earlier runs); null with several runs a side, whose intervals hold it by themselves.
   */
  betweenRuns: { widened: number; runs: number } | null;
  /** Two ladder runs (more than one pair): per pair and cell, its ratio in NEW / its ratio in BASE; else null. */
  ladder: Ladder | null;
  /** Scenario / pins / config differences (non-empty only with force). */
  differences: string[];
  forced: boolean;
  factDiff: FactDiff[];
  variableDiff: FactDiff[];
  /** Why the figures may come from the machine rather than the servers (one side's cells were disturbed more). */
  warnings: string[];
}

/** One side's records: one run as it is, several runs with their repeats numbered on (run 2's repeat 1 follows run 1's last). */
function sideRecords(runs: readonly RunData[], id: string): { records: CellRecord[]; runs?: CellRecord[][] } {
  const per = runs.map((r) => r.cells.filter((c) => c.server === id));
  if (per.length === 1) return { records: per[0] };
  const records: CellRecord[] = [];
  let offset = 0;
  for (const rs of per) {
    for (const c of rs) records.push({ ...c, repeat: c.repeat + offset });
    offset += Math.max(0, ...rs.map((c) => c.repeat));
  }
  return { records, runs: per };
}

/** The change of each pair of two ladder runs (the first run of each side), or null without a ladder. */
function ladderChange(a: RunData, b: RunData, opts: CompareOptions): Ladder | null {
  // The pairs of the base run's scenario (a ladder: every server against its base), unless the caller names them.
  const pairs = opts.pairs ?? comparisonPairs(a.manifest.scenario);
  const metricOpts = {
    ...(opts.metric ? { metric: opts.metric } : {}),
    ...(opts.marginPct !== undefined ? { marginPct: opts.marginPct } : {}),
  };
  const la = buildLadder(a.manifest, a.cells, pairs, metricOpts);
  const lb = buildLadder(b.manifest, b.cells, pairs, metricOpts);
  return la && lb ? compareLadders(la, lb, opts.marginPct ?? la.marginPct) : null;
}

/** The runs' hardware-counter checks in one line: the one text when they agree, each run's when they differ. */
function hardwareOf(ms: readonly RunManifest[]): string | undefined {
  const texts = [
    ...new Set(ms.map((m) => m.hosts?.[0]?.hardwareCounters).filter((t): t is string => typeof t === "string")),
  ];
  return texts.length <= 1 ? texts[0] : texts.join(" ");
}

/**
 * Compare runs of the same scenario cell by cell: NEW/BASE × 100 per server, plus host facts and effective variables
 * that differ. With one run a side the interval leaves out the variance between runs (the report says so); with
 * several a side, each run's cell value is one observation. Throws InputError COMPARE_MISMATCH when scenario, pins
 * or config differ, unless `force`.
 */
export function compareRuns(
  base: RunData | readonly RunData[],
  next: RunData | readonly RunData[],
  opts: CompareOptions = {},
): RunComparison {
  const baseRuns = Array.isArray(base) ? (base as readonly RunData[]) : [base as RunData];
  const newRuns = Array.isArray(next) ? (next as readonly RunData[]) : [next as RunData];
  const a = baseRuns[0];
  const b = newRuns[0];
  const idsA = a.manifest.scenario.servers.map((s) => s.id);
  const idsB = new Set(b.manifest.scenario.servers.map((s) => s.id));
  const common = idsA.filter((id) => idsB.has(id));
  let servers = common;
  if (opts.server !== undefined) {
    if (!common.includes(opts.server)) {
      throw new InputError(`server "${opts.server}" is not in both runs (${a.manifest.runId}, ${b.manifest.runId})`, {
        code: "COMPARE_SERVER",
        hint: common.length ? `servers in both: ${common.join(", ")}` : "the two runs share no server id",
      });
    }
    servers = [opts.server];
  }
  if (servers.length === 0) {
    throw new InputError(`runs ${a.manifest.runId} and ${b.manifest.runId} share no server id`, {
      code: "COMPARE_NO_COMMON_SERVER",
      hint: `BASE has ${idsA.join(", ")}; NEW has ${[...idsB].join(", ")}`,
    });
  }
  const differences = [
    ...runDifferences(a.manifest, b.manifest, servers),
    ...[...baseRuns.slice(1), ...newRuns.slice(1)].flatMap((r) =>
      runDifferences(a.manifest, r.manifest, servers).map(
        (d) => `run ${r.manifest.runId} vs ${a.manifest.runId}: ${d}`,
      ),
    ),
  ];
  if (differences.length && !opts.force) {
    throw new InputError(`runs ${a.manifest.runId} and ${b.manifest.runId} differ in scenario, pins or config`, {
      code: "COMPARE_MISMATCH",
      problems: differences,
      hint: "compare runs of the same scenario, or pass --force to compare anyway (the differences are listed)",
    });
  }
  const ax = axes(a.manifest, a.cells);
  const bx = axes(b.manifest, b.cells);
  const tests = [...ax.tests, ...bx.tests.filter((t) => !ax.tests.includes(t))];
  const threads = [...ax.threads, ...bx.threads.filter((t) => !ax.threads.includes(t))];
  // Every server's NEW / BASE table of a metric: the comparison's own metric, the latency percentiles, NOPM.
  const tablesOf = (metric: Metric | undefined) =>
    servers.map((id) =>
      ratioTableFromSides(
        { id, label: `NEW ${id}`, ...sideRecords(newRuns, id) },
        { id, label: `BASE ${id}`, ...sideRecords(baseRuns, id) },
        tests,
        threads,
        {
          metric,
          marginPct: opts.marginPct,
          pairing: "unpaired",
          percentile: a.manifest.scenario.workload.percentile ?? 95,
        },
      ),
    );
  const tables = tablesOf(opts.metric);
  const everyRecord = [...baseRuns, ...newRuns].flatMap((r) => r.cells.filter((c) => servers.includes(c.server)));
  const latency = latencySection((p: LatencyPercentile) => tablesOf(p), everyRecord);
  const nopm = nopmTables(() => tablesOf("nopm"), everyRecord);
  const oneEach = baseRuns.length === 1 && newRuns.length === 1;
  const across = oneEach
    ? tables.map((t) =>
        acrossTwoRuns(t, opts.betweenRuns?.get(t.numerator) ?? new Map(), opts.marginPct ?? DEFAULT_MARGIN_PCT),
      )
    : null;
  const costs = servers.map((id) =>
    costTableFromSides(
      { id, label: `NEW ${id}`, ...sideRecords(newRuns, id) },
      { id, label: `BASE ${id}`, ...sideRecords(baseRuns, id) },
      tests,
      threads,
      { pairing: "unpaired", hardware: hardwareOf([...newRuns, ...baseRuns].map((r) => r.manifest)) },
    ),
  );
  const runInfo = (m: RunManifest): RunInfo => ({ runId: m.runId, status: m.status, startedAt: m.startedAt });
  return {
    base: runInfo(a.manifest),
    new: runInfo(b.manifest),
    baseRuns: baseRuns.map((r) => runInfo(r.manifest)),
    newRuns: newRuns.map((r) => runInfo(r.manifest)),
    servers,
    tables: across ? across.map((x) => x.table) : tables,
    betweenRuns: across
      ? {
          widened: across.reduce((a, x) => a + x.widened, 0),
          runs: Math.max(0, ...across.map((x) => x.runs)),
        }
      : null,
    latency,
    nopm,
    costs,
    ladder: ladderChange(a, b, opts),
    differences,
    forced: differences.length > 0,
    factDiff: factDifferences(a.manifest, b.manifest, servers),
    variableDiff: variableDifferences(a.manifest, b.manifest, servers),
    warnings: disturbanceWarnings(baseRuns, newRuns, servers),
  };
}

/**
 * A warning when outside work disturbed cells of either side (src/core/measure/interference.ts), saying which side had the
 * larger share: the comparison may then show the machine, not the servers. A side whose cells carry no figures says
 * so.
 */
export function disturbanceWarnings(
  baseRuns: readonly RunData[],
  newRuns: readonly RunData[],
  servers: readonly string[],
): string[] {
  const side = (runs: readonly RunData[]) => {
    const sums = runs.map((r) => {
      const cells = r.cells.filter((c) => servers.includes(c.server));
      return summariseInterference(measureRecords(cells), cells);
    });
    return {
      measured: sums.reduce((n, x) => n + x.measured, 0),
      known: sums.reduce((n, x) => n + x.known, 0),
      disturbed: sums.reduce((n, x) => n + x.disturbed.length, 0),
    };
  };
  const b = side(baseRuns);
  const n = side(newRuns);
  if (b.disturbed === 0 && n.disturbed === 0) return [];
  const text = (label: string, s: typeof b) =>
    s.known === 0
      ? `${label}: interference unknown`
      : `${label}: ${s.disturbed} of ${s.measured} measured cells disturbed`;
  const share = (s: typeof b) => (s.measured > 0 ? s.disturbed / s.measured : 0);
  const where =
    share(b) === share(n) ? "on both sides alike" : `more on the ${share(b) > share(n) ? "BASE" : "NEW"} side`;
  return [
    `outside work disturbed cells ${where} (${text("BASE", b)}; ${text("NEW", n)}): differences may come from the machine, not the servers (see each run's report)`,
  ];
}

/** A cell whose whole interval lies below the bound of {@link findRegressions}. */
export interface Regression {
  server: string;
  test: string;
  threads: number;
  /** exp(mean log ratio) * 100, the interval's centre. */
  estimate: number;
  high: number;
}

/**
 * Cells significantly below `bound` (%): the whole interval is under it. Cells without an interval, or with one of
 * zero width, never count.
 */
export function findRegressions(cmp: RunComparison, bound: number): Regression[] {
  const out: Regression[] = [];
  for (const t of cmp.tables) {
    for (const r of t.rows) {
      for (const c of r.cells) {
        if (
          c.status === "ok" &&
          c.estimate !== null &&
          c.low !== null &&
          c.high !== null &&
          c.high > c.low &&
          c.high < bound
        ) {
          out.push({ server: t.numerator, test: r.test, threads: c.threads, estimate: c.estimate, high: c.high });
        }
      }
    }
  }
  return out;
}

/** The regression gate: throws REGRESSION (exit 1) when any cell is significantly below the bound. */
export function assertNoRegression(cmp: RunComparison, bound: number): void {
  const reg = findRegressions(cmp, bound);
  if (reg.length === 0) return;
  throw new TwinbenchError(`${reg.length} cell(s) significantly below ${bound}% of BASE (run ${cmp.base.runId})`, {
    code: "REGRESSION",
    details: reg.map(
      (r) =>
        `${r.server} ${r.test} @ ${r.threads} threads: ${r.estimate.toFixed(1)}% (interval high ${r.high.toFixed(1)}%)`,
    ),
    hint: "the 95% interval of these cells lies wholly below the bound; rerun with more repeats if the runs were noisy",
  });
}
