/**
 * Cross-run comparison: the same scenario run twice (two hosts, two kernels, two builds), compared cell by cell
 * for each server. numerator = NEW (run B), denominator = BASE (run A), so above 100 means NEW is faster.
 * Repeats of two runs are not paired: with one run a side the interval compares the repeats of the two runs (it
 * cannot hold the variance between runs, and the report says so); with 2 or more runs a side (`--also-base`,
 * `--also-new`) each run's cell value is one observation, so the interval includes the variance between runs.
 * Also: the host facts and effective variables that differ, and a refusal when scenario, pins or config differ.
 */
import { kernelFactDifferences } from "../hosts/facts.ts";
import { InputError, TwinbenchError } from "../base/errors.ts";
import type { CellRecord, RunManifest, ServerManifest, StorageFacts } from "../model/results.ts";
import type { Scenario } from "../model/scenario/schema.ts";
import { comparisonPairs } from "../model/scenario/pairs.ts";
import {
  axes,
  measureRecords,
  metricLabel,
  ratioTableFromSides,
  type Metric,
  type RatioTable,
} from "../stats/ratio.ts";
import { summariseInterference } from "../measure/interference.ts";
import { formatBytes } from "./model.ts";
import { TABLE_TEXT, renderRatioText } from "./text.ts";
import { buildLadder, compareLadders, ladderJson, type Ladder, type LadderPair } from "../stats/ladder.ts";
import { markdownLadder, renderLadderText } from "./ladder-render.ts";
import { markdownRatioTable } from "./markdown.ts";
import { ratioCsvLines, CSV_HEADER } from "./csv.ts";
import { ratioTableJson } from "../stats/ratio.ts";
import { costExplanation, costLines, costTableFromSides, costTableJson, type CostTable } from "../stats/costs.ts";

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
}

/** A host or server fact that differs between two runs. */
export interface FactDiff {
  /** "host local", "server mariadb", "sysbench" */
  scope: string;
  field: string;
  base: string | null;
  new: string | null;
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
  /** One cost-per-query table per compared server (same order as `tables`): NEW / BASE, unpaired. */
  costs: CostTable[];
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

// ---- identity: what must be equal for a comparison to mean something -------------------------------------------

/** The parts of a scenario that define the experiment (not its name, hosts or images: those are what is compared). */
export function scenarioIdentity(s: Scenario): Record<string, unknown> {
  return {
    // How a run reacts to disturbance is not what it measures: runs with and without re-runs compare.
    workload: { ...s.workload, rerunDisturbed: undefined },
    config: s.config,
    storage: s.storage,
    load: s.load,
    resources: s.resources,
    order: s.order,
    servers: Object.fromEntries(s.servers.map((x) => [x.id, { config: x.config ?? null, storage: x.storage ?? null }])),
  };
}

function stable(v: unknown): string {
  if (v === undefined) return "(unset)";
  if (v === null || typeof v !== "object") return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(stable).join(",")}]`;
  const o = v as Record<string, unknown>;
  return `{${Object.keys(o)
    .sort()
    .filter((k) => o[k] !== undefined)
    .map((k) => `${JSON.stringify(k)}:${stable(o[k])}`)
    .join(",")}}`;
}

/** Paths where two values differ, e.g. `workload.threads: [1,4] vs [1,8]`. Arrays compare as a whole. */
export function deepDiff(a: unknown, b: unknown, path = ""): string[] {
  const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
  if (isObj(a) && isObj(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    return keys.flatMap((k) => deepDiff(a[k], b[k], path ? `${path}.${k}` : k));
  }
  return stable(a) === stable(b) ? [] : [`${path || "(root)"}: ${stable(a)} vs ${stable(b)}`];
}

/** Scenario, pins (applied resources) and rendered config differences between two runs. */
export function runDifferences(a: RunManifest, b: RunManifest, servers: string[]): string[] {
  const out = deepDiff(scenarioIdentity(a.scenario), scenarioIdentity(b.scenario)).map((d) => `scenario.${d}`);
  for (const id of servers) {
    const sa = a.servers.find((s) => s.id === id);
    const sb = b.servers.find((s) => s.id === id);
    if (!sa || !sb) continue;
    out.push(...deepDiff(sa.resources ?? {}, sb.resources ?? {}).map((d) => `pins ${id}.${d}`));
    if ((sa.cnf ?? "") !== (sb.cnf ?? "")) out.push(`config ${id}: the rendered my.cnf differs`);
  }
  return out;
}

// ---- facts ------------------------------------------------------------------------------------------------

const str = (v: unknown): string | null =>
  v === undefined || v === null ? null : typeof v === "object" ? stable(v) : String(v);

function pushDiff(out: FactDiff[], scope: string, field: string, a: unknown, b: unknown): void {
  const sa = str(a);
  const sb = str(b);
  if (sa !== sb) out.push({ scope, field, base: sa, new: sb });
}

export function factDifferences(a: RunManifest, b: RunManifest, servers: string[]): FactDiff[] {
  const out: FactDiff[] = [];
  const hostIds = [...new Set([...a.hosts.map((h) => h.id), ...b.hosts.map((h) => h.id)])];
  // Hosts are matched by id; one host on each side is matched whatever its id (that is the usual case: two machines).
  const pairs: Array<[string, (typeof a.hosts)[number] | undefined, (typeof b.hosts)[number] | undefined]> =
    a.hosts.length === 1 && b.hosts.length === 1
      ? [
          [
            a.hosts[0].id === b.hosts[0].id ? a.hosts[0].id : `${a.hosts[0].id}/${b.hosts[0].id}`,
            a.hosts[0],
            b.hosts[0],
          ],
        ]
      : hostIds.map((id) => [id, a.hosts.find((h) => h.id === id), b.hosts.find((h) => h.id === id)]);
  for (const [id, ha, hb] of pairs) {
    const scope = `host ${id}`;
    pushDiff(out, scope, "kernel", ha?.kernel, hb?.kernel);
    pushDiff(out, scope, "os", ha?.os, hb?.os);
    pushDiff(out, scope, "cpu", ha?.cpuModel, hb?.cpuModel);
    pushDiff(out, scope, "cpus", ha?.cpus, hb?.cpus);
    pushDiff(
      out,
      scope,
      "memory",
      ha?.memoryBytes === undefined ? undefined : formatBytes(ha.memoryBytes),
      hb?.memoryBytes === undefined ? undefined : formatBytes(hb.memoryBytes),
    );
    pushDiff(out, scope, "docker version", ha?.dockerVersion, hb?.dockerVersion);
    pushDiff(out, scope, "docker API", ha?.apiVersion, hb?.apiVersion);
    pushDiff(out, scope, "storage driver", ha?.storageDriver, hb?.storageDriver);
    pushDiff(out, scope, "cgroup version", ha?.cgroupVersion, hb?.cgroupVersion);
    for (const d of kernelFactDifferences(ha, hb)) out.push({ scope, ...d });
  }
  for (const id of servers) {
    const sa: Partial<ServerManifest> = a.servers.find((s) => s.id === id) ?? {};
    const sb: Partial<ServerManifest> = b.servers.find((s) => s.id === id) ?? {};
    const scope = `server ${id}`;
    pushDiff(out, scope, "version", sa.version, sb.version);
    pushDiff(out, scope, "image", sa.imageTag ?? sa.image, sb.imageTag ?? sb.image);
    pushDiff(out, scope, "image id", sa.imageId, sb.imageId);
    pushDiff(out, scope, "package", sa.packageVersion, sb.packageVersion);
    pushDiff(out, scope, "connection", sa.connection, sb.connection);
    const st = (s: Partial<ServerManifest>): Partial<StorageFacts> => s.storage ?? {};
    for (const f of ["kind", "fsType", "mountOptions", "raidLevel", "chunk", "loopBacked", "sizeBytes"] as const) {
      pushDiff(
        out,
        scope,
        `storage ${f}`,
        (st(sa) as Record<string, unknown>)[f],
        (st(sb) as Record<string, unknown>)[f],
      );
    }
    pushDiff(out, scope, "storage members", st(sa).members?.length, st(sb).members?.length);
    pushDiff(out, scope, "storage details", st(sa).details, st(sb).details);
  }
  pushDiff(out, "sysbench", "version", a.sysbench?.version, b.sysbench?.version);
  pushDiff(out, "sysbench", "package", a.sysbench?.packageVersion, b.sysbench?.packageVersion);
  return out;
}

export function variableDifferences(a: RunManifest, b: RunManifest, servers: string[]): FactDiff[] {
  const out: FactDiff[] = [];
  for (const id of servers) {
    const va = a.servers.find((s) => s.id === id)?.effectiveVariables ?? {};
    const vb = b.servers.find((s) => s.id === id)?.effectiveVariables ?? {};
    for (const k of [...new Set([...Object.keys(va), ...Object.keys(vb)])].sort())
      pushDiff(out, `server ${id}`, k, va[k], vb[k]);
  }
  return out;
}

// ---- the comparison ---------------------------------------------------------------------------------------

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
  const tables = servers.map((id) =>
    ratioTableFromSides(
      { id, label: `NEW ${id}`, ...sideRecords(newRuns, id) },
      { id, label: `BASE ${id}`, ...sideRecords(baseRuns, id) },
      tests,
      threads,
      {
        metric: opts.metric,
        marginPct: opts.marginPct,
        pairing: "unpaired",
        percentile: a.manifest.scenario.workload.percentile ?? 95,
      },
    ),
  );
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
    tables,
    costs,
    ladder: ladderChange(a, b, opts),
    differences,
    forced: differences.length > 0,
    factDiff: factDifferences(a.manifest, b.manifest, servers),
    variableDiff: variableDifferences(a.manifest, b.manifest, servers),
    warnings: disturbanceWarnings(baseRuns, newRuns, servers),
  };
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

// ---- renderers ----------------------------------------------------------------------------------------------

/** The facts and effective variables that differ, as text lines (also under `compare --summary`). */
export function diffLines(cmp: RunComparison): string[] {
  const lines: string[] = [];
  const fmt = (d: FactDiff) => `  ${d.scope} ${d.field}: ${d.base ?? "(unset)"} -> ${d.new ?? "(unset)"}`;
  lines.push(
    cmp.factDiff.length ? "Host and server facts that differ (BASE -> NEW):" : "Host and server facts: no differences.",
  );
  lines.push(...cmp.factDiff.map(fmt));
  lines.push(
    cmp.variableDiff.length ? "Effective variables that differ (BASE -> NEW):" : "Effective variables: no differences.",
  );
  lines.push(...cmp.variableDiff.map(fmt));
  return lines;
}

/** A comparison as terminal text. */
export function renderComparisonText(cmp: RunComparison): string {
  const lines: string[] = [
    `Run comparison: NEW ${cmp.new.runId} / BASE ${cmp.base.runId} * 100 (above 100: NEW is faster)`,
    "",
  ];
  if (cmp.baseRuns.length > 1 || cmp.newRuns.length > 1) {
    lines.push(
      `BASE runs: ${cmp.baseRuns.map((r) => r.runId).join(", ")}; NEW runs: ${cmp.newRuns.map((r) => r.runId).join(", ")}`,
      "",
    );
  }
  for (const [label, runs] of [
    ["BASE", cmp.baseRuns],
    ["NEW", cmp.newRuns],
  ] as const) {
    for (const r of runs) if (r.status !== "ok") lines.push(`${label} run ${r.runId} is partial (status ${r.status}).`);
  }
  if (cmp.forced)
    lines.push("FORCED: the runs differ in scenario, pins or config:", ...cmp.differences.map((d) => `  ${d}`), "");
  if (cmp.warnings.length) lines.push(...cmp.warnings.map((w) => `WARNING: ${w}`), "");
  if (cmp.ladder)
    lines.push(
      "Ladder: each pair's ratio in NEW / its ratio in BASE",
      "",
      ...renderLadderText(cmp.ladder, TABLE_TEXT),
      "",
    );
  cmp.tables.forEach((t, i) => {
    lines.push(`Server ${t.numerator}`, "", ...renderRatioText(t), "");
    const why = explanationLines(t, cmp.costs[i]);
    if (why.length) lines.push(...why, "");
    const costs = costLines(cmp.costs[i] ?? null);
    if (costs.length) lines.push(...costs, "");
  });
  lines.push(...diffLines(cmp));
  return lines.join("\n") + "\n";
}

/**
 * Why a server's cells moved: for each cell whose q/s is faster or slower, its cost figures that rose, fell or did
 * not move between the runs (unpaired intervals, NEW / BASE). Empty when no cell moved or no cost was recorded.
 */
export function explanationLines(t: RatioTable, costs: CostTable | undefined): string[] {
  if (!costs?.recorded) return [];
  const out: string[] = [];
  for (const r of t.rows) {
    for (const c of r.cells) {
      if (c.direction !== "faster" && c.direction !== "slower") continue;
      const cc = costs.cells.find((x) => x.test === r.test && x.threads === c.threads);
      if (!cc) continue;
      const q = `${((c.estimate ?? 0) / 100).toFixed(2)}× [${((c.low ?? 0) / 100).toFixed(2)}–${((c.high ?? 0) / 100).toFixed(2)}]`;
      out.push(
        `- ${t.numerator} ${r.test} at ${c.threads} thread${c.threads === 1 ? "" : "s"} got ${c.direction} (${metricLabel(t.metric, t.percentile)} ${q}): ${costExplanation(cc)}`,
      );
    }
  }
  return out.length
    ? [
        `Why ${t.numerator}'s cells moved (cost per query, NEW / BASE, unpaired ${Math.round(costs.confidence * 100)}% intervals):`,
        ...out,
      ]
    : [];
}

/** A comparison as Markdown. */
export function renderComparisonMarkdown(cmp: RunComparison): string {
  const lines: string[] = [`# Run comparison: NEW \`${cmp.new.runId}\` / BASE \`${cmp.base.runId}\``, ""];
  if (cmp.forced)
    lines.push(
      "> **FORCED**: the runs differ in scenario, pins or config:",
      "",
      ...cmp.differences.map((d) => `- ${d}`),
      "",
    );
  if (cmp.warnings.length) lines.push(...cmp.warnings.map((w) => `> **Warning**: ${w}`), "");
  if (cmp.ladder)
    lines.push(
      "## Ladder: each pair's ratio in NEW / its ratio in BASE",
      "",
      ...markdownLadder(cmp.ladder, TABLE_TEXT),
      "",
    );
  cmp.tables.forEach((t, i) => {
    lines.push(`## ${t.numerator}`, "", ...markdownRatioTable(t), "");
    const why = [...explanationLines(t, cmp.costs[i]), ...costLines(cmp.costs[i] ?? null)];
    if (why.length) lines.push(...why, "");
  });
  lines.push("## Differences", "", "```", ...diffLines(cmp), "```", "");
  return lines.join("\n");
}

/** A comparison as CSV, one line per server, test and thread count. */
export function renderComparisonCsv(cmp: RunComparison): string {
  const lines = [["server", ...CSV_HEADER].join(",")];
  for (const t of cmp.tables) lines.push(...ratioCsvLines(t, [t.numerator]));
  // A ladder's change: server = "numerator/base", numerator/denominator = the pair (NEW / BASE of its ratio).
  for (const t of cmp.ladder?.blocks ?? []) lines.push(...ratioCsvLines(t, [`${t.numerator}/${t.denominator}`]));
  return lines.join("\n") + "\n";
}

/** A comparison as a JSON-ready object. */
export function comparisonJson(cmp: RunComparison): object {
  return {
    base: cmp.base,
    new: cmp.new,
    baseRuns: cmp.baseRuns,
    newRuns: cmp.newRuns,
    servers: cmp.servers,
    tables: cmp.tables.map(ratioTableJson),
    costs: cmp.costs.map(costTableJson),
    ...(cmp.ladder ? { ladder: ladderJson(cmp.ladder) } : {}),
    differences: cmp.differences,
    forced: cmp.forced,
    factDiff: cmp.factDiff,
    variableDiff: cmp.variableDiff,
    warnings: cmp.warnings,
  };
}

/** The runs' hardware-counter checks in one line: the one text when they agree, each run's when they differ. */
function hardwareOf(ms: readonly RunManifest[]): string | undefined {
  const texts = [
    ...new Set(ms.map((m) => m.hosts?.[0]?.hardwareCounters).filter((t): t is string => typeof t === "string")),
  ];
  return texts.length <= 1 ? texts[0] : texts.join(" ");
}
