/**
 * A host's run history: one small entry per run, each cell's estimate with its standard error, and what makes a
 * cell comparable across runs. replication.ts reads the runs of one cell from it; the history store (adapters)
 * keeps the entries, one JSON line each.
 *
 * Two runs' cells are comparable when they measured the same thing the same way: the same test and thread count,
 * the same metric, the same two server builds (family, version, package, image) with the same rendered config, the
 * same storage kinds, and the same data and cell length. That is the cell's `key`, a hash of exactly those facts;
 * the host is its own level (entries carry the host key), and the budget, repeats and order are not part of it
 * (they change how many pairs a run takes, not what a pair measures).
 */
import { createHash } from "node:crypto";
import { z } from "zod";
import type { RunManifest, ServerManifest } from "../model/results.ts";
import { parseDuration } from "../model/scenario/schema.ts";
import type { RatioTable } from "./ratio-model.ts";
import { seFromInterval, type CellRuns } from "./replication.ts";

export const HISTORY_VERSION = 1;

/** One cell of one run in the history. */
export interface HistoryCell {
  test: string;
  threads: number;
  /** The comparability key (see the header). */
  key: string;
  /** ln(estimate / 100) and its standard error within the run; the interval's df. */
  y: number;
  se: number;
  df: number;
  /** The run's printed estimate and interval, in %. */
  estimate: number;
  low: number;
  high: number;
  /** Pairs and server instances behind it. */
  n: number;
  instances: number;
  /**
   * Each server's own level in this cell: the mean log of its metric over the run's repeats, its se and df, under a
   * key of that server's facts alone (compare reads the level between runs of one server from these).
   */
  sides?: HistorySide[];
}

/** One server's level in one cell of one run. */
export interface HistorySide {
  server: string;
  key: string;
  y: number;
  se: number;
  df: number;
}

/** One run in a host's history. */
export interface HistoryEntry {
  version: typeof HISTORY_VERSION;
  runId: string;
  startedAt: string;
  hostKey: string;
  /** The host's CPU model and cores, for people (the key is the machine's identity). */
  cpuModel?: string;
  cpus?: number;
  scenario: string;
  numerator: string;
  denominator: string;
  metric: string;
  confidence: number;
  cells: HistoryCell[];
}

/** The facts that make a cell of this run comparable with another run's, hashed. */
export function cellKey(manifest: RunManifest, table: RatioTable, test: string, threads: number): string {
  const facts = {
    test,
    threads,
    metric: table.metric,
    numerator: serverOf(manifest, table.numerator),
    denominator: serverOf(manifest, table.denominator),
    ...workloadFacts(manifest),
  };
  return createHash("sha256").update(JSON.stringify(facts)).digest("hex").slice(0, 16);
}

/** The facts that make one server's cell comparable with another run's (cellKey with one server), hashed. */
export function serverCellKey(manifest: RunManifest, metric: string, server: string, test: string, threads: number) {
  const facts = { test, threads, metric, server: serverOf(manifest, server), ...workloadFacts(manifest) };
  return createHash("sha256").update(JSON.stringify(facts)).digest("hex").slice(0, 16);
}

function serverOf(manifest: RunManifest, id: string) {
  const s = manifest.servers.find((x) => x.id === id);
  return s ? serverIdentity(s) : { id };
}

function workloadFacts(manifest: RunManifest) {
  const w = manifest.scenario.workload;
  return {
    data: { engine: w.engine, tables: w.tables, tableSize: w.tableSize },
    cell: {
      seconds: w.duration ? parseDuration(w.duration) : null,
      events: w.events ?? null,
      trim: w.trim ?? null,
      warmup: w.warmup,
      prewarm: w.prewarm,
      fresh: w.fresh,
      sysbench: w.sysbench,
    },
  };
}

/**
 * A server's identity across runs and machines. The image is named by its lock tag (the hash of its pinned packages
 * and build recipe), not by the engine's image id: a fresh machine builds the same pinned image again with another
 * id (the files' times differ), and the project's committed history must still match it.
 */
function serverIdentity(s: ServerManifest) {
  return {
    family: s.family,
    version: s.version ?? null,
    packageVersion: s.packageVersion ?? null,
    image: s.imageTag ?? s.imageId ?? s.image,
    config: createHash("sha256").update(s.cnf).digest("hex").slice(0, 16),
    storage: s.storage?.kind ?? null,
    cpuset: s.resources.cpuset ?? null,
    memoryBytes: s.resources.memoryBytes ?? null,
  };
}

/** The history entry of a finished run: its primary table's cells that have an interval. Null when none has. */
export function historyEntry(
  manifest: RunManifest,
  table: RatioTable,
  host: { hostKey: string; cpuModel?: string; cpus?: number },
): HistoryEntry | null {
  const cells: HistoryCell[] = [];
  for (const row of table.rows)
    for (const c of row.cells) {
      if (c.estimate === null || c.low === null || c.high === null || c.df === null) continue;
      const se = seFromInterval(c.low, c.high, c.df, table.confidence);
      if (se === null) continue;
      cells.push({
        test: row.test,
        threads: c.threads,
        key: cellKey(manifest, table, row.test, c.threads),
        y: Math.log(c.estimate / 100),
        se,
        df: c.df,
        estimate: c.estimate,
        low: c.low,
        high: c.high,
        n: c.n,
        instances: c.instances,
        sides: [
          side(manifest, table, table.numerator, row.test, c.threads, c.numeratorValues),
          side(manifest, table, table.denominator, row.test, c.threads, c.denominatorValues),
        ].filter((x): x is HistorySide => x !== null),
      });
    }
  if (cells.length === 0) return null;
  return {
    version: HISTORY_VERSION,
    runId: manifest.runId,
    startedAt: manifest.startedAt,
    hostKey: host.hostKey,
    ...(host.cpuModel ? { cpuModel: host.cpuModel } : {}),
    ...(host.cpus ? { cpus: host.cpus } : {}),
    scenario: manifest.scenario.name,
    numerator: table.numerator,
    denominator: table.denominator,
    metric: table.metric,
    confidence: table.confidence,
    cells,
  };
}

/** One server's level from its repeats' metric (log mean, se on n − 1 df); null below 2 positive values. */
function side(
  manifest: RunManifest,
  table: RatioTable,
  server: string,
  test: string,
  threads: number,
  values: ReadonlyArray<number | null>,
): HistorySide | null {
  const logs = values.filter((v): v is number => v !== null && v > 0).map(Math.log);
  if (logs.length < 2) return null;
  const m = logs.reduce((a, x) => a + x, 0) / logs.length;
  const sd = Math.sqrt(logs.reduce((a, x) => a + (x - m) ** 2, 0) / (logs.length - 1));
  if (!(sd > 0)) return null;
  const key = serverCellKey(manifest, table.metric, server, test, threads);
  return { server, key, y: m, se: sd / Math.sqrt(logs.length), df: logs.length - 1 };
}

/** A cell's name in the history's tables: `test @ threads`. */
export const cellName = (c: Pick<HistoryCell, "test" | "threads">): string => `${c.test} @ ${c.threads}`;

/**
 * The runs of each comparable cell on one host, oldest first: the cells of `entries` grouped by key (one entry per
 * run id: an entry added twice counts once). `only` keeps the keys of one run (the run being reported).
 */
export function cellRunsOf(entries: readonly HistoryEntry[], only?: ReadonlySet<string>): CellRuns[] {
  const seen = new Set<string>();
  const byKey = new Map<string, { name: string; runs: CellRuns["runs"][number][] }>();
  const sorted = [...entries].sort((a, b) => a.startedAt.localeCompare(b.startedAt));
  for (const e of sorted) {
    if (seen.has(e.runId)) continue;
    seen.add(e.runId);
    for (const c of e.cells) {
      if (only && !only.has(c.key)) continue;
      const g = byKey.get(c.key) ?? { name: cellName(c), runs: [] };
      g.runs.push({ run: e.runId, y: c.y, se: c.se, df: c.df });
      byKey.set(c.key, g);
    }
  }
  return [...byKey.entries()].map(([key, g]) => ({ cell: key, name: g.name, runs: g.runs }));
}

const finite = z.number().refine(Number.isFinite, "a finite number");

/** The schema every history line is written with and read against. */
export const HistoryEntrySchema = z.object({
  version: z.literal(HISTORY_VERSION),
  runId: z.string().min(1).max(200),
  startedAt: z.string().min(1).max(64),
  hostKey: z.string().min(1).max(200),
  cpuModel: z.string().max(200).optional(),
  cpus: z.number().int().positive().optional(),
  scenario: z.string().min(1).max(200),
  numerator: z.string().min(1).max(100),
  denominator: z.string().min(1).max(100),
  metric: z.string().min(1).max(50),
  confidence: z.number().gt(0).lt(1),
  cells: z
    .array(
      z.object({
        test: z.string().min(1).max(200),
        threads: z.number().int().positive(),
        key: z.string().regex(/^[0-9a-f]{16}$/),
        y: finite,
        se: z.number().positive().refine(Number.isFinite),
        df: z.number().positive(),
        estimate: z.number().positive(),
        low: z.number().positive(),
        high: z.number().positive(),
        n: z.number().int().nonnegative(),
        instances: z.number().int().nonnegative(),
        sides: z
          .array(
            z.object({
              server: z.string().min(1).max(100),
              key: z.string().regex(/^[0-9a-f]{16}$/),
              y: finite,
              se: z.number().positive().refine(Number.isFinite),
              df: z.number().positive(),
            }),
          )
          .max(2)
          .optional(),
      }),
    )
    .min(1)
    .max(10000),
});

/** A line of a history file parsed and checked; a reason when it is not a history entry. */
export function parseHistoryLine(line: string): { entry: HistoryEntry } | { problem: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch (e) {
    return { problem: `not JSON (${(e as Error).message})` };
  }
  const r = HistoryEntrySchema.safeParse(raw);
  return r.success ? { entry: r.data as HistoryEntry } : { problem: z.prettifyError(r.error).replace(/\n/g, "; ") };
}
