/**
 * Figures of `npm run bench` (pure): the transport table, the split of a run's wall time, and the A/A noise with
 * the repeats × duration it implies for a ±2% interval. The measuring lives in bench/; this only computes.
 */
import type { CellRecord } from "../../src/core/model/results.ts";
import type { RatioTable } from "../../src/core/stats/ratio-model.ts";
import { mean, median, stddev, tQuantile } from "../../src/core/base/distributions.ts";
import { textTable as layoutTable, type TextColumn } from "../../src/core/base/text-table.ts";

// ---- 1. Transport overhead ------------------------------------------------------------------------------------

export interface TransportSample {
  /** "socket" | "loopback" | "bridge" | "host-socket" | "host-tcp" */
  transport: string;
  test: string;
  threads: number;
  round: number;
  qps: number;
}

export interface TransportRow {
  test: string;
  threads: number;
  /**
   * Per transport (in the order given): median q/s over rounds, its ratio to the best median in %, n, and the
   * paired ratio: median over rounds of q/s ÷ the best transport's q/s in the same round (robust to load that
   * changes between rounds).
   */
  cells: Array<{
    transport: string;
    medianQps: number | null;
    ratioToBest: number | null;
    pairedRatio: number | null;
    n: number;
    cvPct: number | null;
  }>;
  best: string | null;
}

export interface DefaultVerdict {
  transport: string;
  /** Over the rows, the lowest paired ratio of the default to another candidate (container) transport, in %. */
  worstRatio: number | null;
  /** Geometric mean of that ratio over the rows, in %. */
  geomeanRatio: number | null;
  /** Rows where the default is more than `tolerancePct` below another candidate transport (`best`: that one). */
  shortRows: Array<{ test: string; threads: number; ratio: number; best: string }>;
  within: boolean;
  tolerancePct: number;
}

export function transportRows(samples: readonly TransportSample[], transports: readonly string[]): TransportRow[] {
  const keys: Array<{ test: string; threads: number }> = [];
  for (const s of samples)
    if (!keys.some((k) => k.test === s.test && k.threads === s.threads))
      keys.push({ test: s.test, threads: s.threads });
  return keys.map(({ test, threads }) => {
    const of = (t: string) =>
      samples
        .filter((s) => s.test === test && s.threads === threads && s.transport === t && s.qps > 0)
        .map((s) => s.qps);
    const meds = transports.map((t) => {
      const xs = of(t);
      return { transport: t, xs, med: xs.length ? median(xs) : null };
    });
    const bestMed = Math.max(0, ...meds.map((m) => m.med ?? 0));
    const best = bestMed > 0 ? meds.find((m) => m.med === bestMed)!.transport : null;
    const inRound = (t: string, round: number) =>
      samples.find(
        (s) => s.test === test && s.threads === threads && s.transport === t && s.round === round && s.qps > 0,
      )?.qps;
    const paired = (t: string): number | null => {
      if (!best) return null;
      const rs: number[] = [];
      for (const round of new Set(
        samples.filter((s) => s.test === test && s.threads === threads).map((s) => s.round),
      )) {
        const a = inRound(t, round);
        const b = inRound(best, round);
        if (a && b) rs.push((a / b) * 100);
      }
      return rs.length ? median(rs) : null;
    };
    return {
      test,
      threads,
      best,
      cells: meds.map((m) => ({
        transport: m.transport,
        medianQps: m.med,
        ratioToBest: m.med !== null && bestMed > 0 ? (m.med / bestMed) * 100 : null,
        pairedRatio: paired(m.transport),
        n: m.xs.length,
        cvPct: m.xs.length >= 2 ? (stddev(m.xs) / mean(m.xs)) * 100 : null,
      })),
    };
  });
}

/**
 * Is the default transport within `tolerancePct` of every other candidate (container) transport in every row? The
 * comparison is paired: per round, default q/s ÷ the other's q/s, median over rounds; a row's figure is the lowest
 * of those medians (above 100 when the default beats them all).
 */
export function defaultTransportVerdict(
  samples: readonly TransportSample[],
  rows: readonly TransportRow[],
  def: string,
  candidates: readonly string[],
  tolerancePct = 3,
): DefaultVerdict {
  const ratios: number[] = [];
  const shortRows: DefaultVerdict["shortRows"] = [];
  for (const r of rows) {
    const of = (t: string) =>
      samples.filter((s) => s.test === r.test && s.threads === r.threads && s.transport === t && s.qps > 0);
    const mine = of(def);
    if (mine.length === 0) continue;
    let worst: { ratio: number; other: string } | undefined;
    for (const other of candidates) {
      if (other === def) continue;
      const per: number[] = [];
      for (const d of mine) {
        const b = of(other).find((s) => s.round === d.round);
        if (b) per.push((d.qps / b.qps) * 100);
      }
      if (per.length === 0) continue;
      const ratio = median(per);
      if (!worst || ratio < worst.ratio) worst = { ratio, other };
    }
    if (!worst) continue;
    ratios.push(worst.ratio);
    if (worst.ratio < 100 - tolerancePct)
      shortRows.push({ test: r.test, threads: r.threads, ratio: worst.ratio, best: worst.other });
  }
  const worstRatio = ratios.length ? Math.min(...ratios) : null;
  const geomeanRatio = ratios.length ? Math.exp(mean(ratios.map((x) => Math.log(x)))) : null;
  return {
    transport: def,
    worstRatio,
    geomeanRatio,
    shortRows,
    within: ratios.length > 0 && shortRows.length === 0,
    tolerancePct,
  };
}

// ---- 2. Lab overhead ------------------------------------------------------------------------------------------

/** run.json `timings` keys that are paid once per server (not per cell). */
export const SETUP_KEYS = ["images", "storage", "start", "prepare", "snapshot", "prewarm", "teardown"] as const;

export interface LabSplit {
  wall: number;
  /** Seconds per timing key, in a fixed order, plus "other" = wall − sum of the keys. */
  parts: Array<{ key: string; seconds: number; sharePct: number }>;
  /** Sum of sysbench `total time` over the measured cells. */
  measured: number;
  measuredSharePct: number;
  cells: number;
  servers: number;
  /** (wall − measured) / cells: everything that is not measurement, spread over the cells. */
  grossOverheadPerCell: number;
  /** Per-server set-up and teardown: (images + storage + start + prepare + snapshot + prewarm + teardown) / servers. */
  setupPerServer: number;
  /** Warm-up runs and their seconds. */
  warmups: number;
  warmupSeconds: number;
  /** (wall − measured − set-up − warm-ups) / cells: sysbench container start, thread init, report, pause/unpause. */
  netOverheadPerCell: number;
}

export function labSplit(timings: Record<string, number>, records: readonly CellRecord[], servers: number): LabSplit {
  const wall = timings.wall ?? 0;
  const order = [
    "images",
    "storage",
    "start",
    "prepare",
    "snapshot",
    "restore",
    "prewarm",
    "warmup",
    "measure",
    "teardown",
  ];
  const parts = order
    .filter((k) => timings[k] !== undefined)
    .map((k) => ({ key: k, seconds: timings[k]!, sharePct: wall > 0 ? (timings[k]! / wall) * 100 : 0 }));
  for (const k of Object.keys(timings))
    if (!order.includes(k) && k !== "wall")
      parts.push({ key: k, seconds: timings[k]!, sharePct: wall > 0 ? (timings[k]! / wall) * 100 : 0 });
  const known = parts.reduce((a, p) => a + p.seconds, 0);
  parts.push({
    key: "other",
    seconds: Math.max(0, wall - known),
    sharePct: wall > 0 ? (Math.max(0, wall - known) / wall) * 100 : 0,
  });
  const measuredCells = records.filter((r) => r.phase === "measure" && r.status === "ok");
  const measured = measuredCells.reduce((a, r) => a + (r.metrics?.totalTime ?? 0), 0);
  const cells = measuredCells.length;
  const setup = SETUP_KEYS.reduce((a, k) => a + (timings[k] ?? 0), 0);
  const warmupSeconds = timings.warmup ?? 0;
  const warmups = records.filter((r) => r.phase === "warmup").length;
  return {
    wall,
    parts,
    measured,
    measuredSharePct: wall > 0 ? (measured / wall) * 100 : 0,
    cells,
    servers,
    grossOverheadPerCell: cells > 0 ? (wall - measured) / cells : 0,
    setupPerServer: servers > 0 ? setup / servers : 0,
    warmups,
    warmupSeconds,
    netOverheadPerCell: cells > 0 ? Math.max(0, wall - measured - setup - warmupSeconds) / cells : 0,
  };
}

export interface Projection {
  tests: number;
  threads: number;
  servers: number;
  repeats: number;
  cellSeconds: number;
  warmupSeconds: number;
  cells: number;
  measured: number;
  overhead: number;
  setup: number;
  warmups: number;
  total: number;
  measuredSharePct: number;
}

/**
 * A matrix projected with the split of a measured run: cells × cellSeconds measured, plus the net per-cell
 * overhead, the per-server set-up, and one warm-up per (server, test) of `warmupSeconds` (+ the per-cell overhead).
 */
export function project(
  split: LabSplit,
  m: { tests: number; threads: number; servers: number; repeats?: number; cellSeconds: number; warmupSeconds?: number },
): Projection {
  const repeats = m.repeats ?? 1;
  const cells = m.tests * m.threads * m.servers * repeats;
  const measured = cells * m.cellSeconds;
  const overhead = cells * split.netOverheadPerCell;
  const setup = m.servers * split.setupPerServer;
  const warmupSeconds = m.warmupSeconds ?? 0;
  const warmups = warmupSeconds > 0 ? m.servers * m.tests * (warmupSeconds + split.netOverheadPerCell) : 0;
  const total = measured + overhead + setup + warmups;
  return {
    tests: m.tests,
    threads: m.threads,
    servers: m.servers,
    repeats,
    cellSeconds: m.cellSeconds,
    warmupSeconds,
    cells,
    measured,
    overhead,
    setup,
    warmups,
    total,
    measuredSharePct: total > 0 ? (measured / total) * 100 : 0,
  };
}

// ---- 3. A/A noise ---------------------------------------------------------------------------------------------

export interface AaNoise {
  cells: number;
  /** median |ratio − 100| over the cells with a ratio, in percentage points. */
  madFrom100: number | null;
  /** Largest |ratio − 100|. */
  maxFrom100: number | null;
  sameShare: number;
  verdicts: Record<string, number>;
  /** Pooled sd of the paired log ratios ln(a_r / b_r) (≈ CV of the ratio of one repeat pair). */
  pairSd: number | null;
  pairDf: number;
  /** Pooled CV of one side's repeats (between-run noise of one server), as a fraction. */
  repeatCv: number | null;
  /** Per-second CV inside a cell (from the interval samples), as a fraction, pooled. */
  intervalCv: number | null;
  /** Seconds per measured cell in the A/A run. */
  cellSeconds: number;
}

function pooledSd(groups: number[][]): { sd: number | null; df: number } {
  let ss = 0;
  let df = 0;
  for (const g of groups) {
    if (g.length < 2) continue;
    const m = mean(g);
    for (const x of g) ss += (x - m) ** 2;
    df += g.length - 1;
  }
  return { sd: df > 0 ? Math.sqrt(ss / df) : null, df };
}

export function aaNoise(table: RatioTable, records: readonly CellRecord[], cellSeconds: number): AaNoise {
  const all = table.rows.flatMap((r) => r.cells);
  const withRatio = all.filter((c) => c.ratio !== null);
  const dev = withRatio.map((c) => Math.abs(c.ratio! - 100));
  const verdicts: Record<string, number> = {};
  for (const c of all) verdicts[c.verdict] = (verdicts[c.verdict] ?? 0) + 1;
  // Paired log ratios per cell.
  const pairGroups: number[][] = [];
  const sideGroups: number[][] = [];
  for (const c of all) {
    const d: number[] = [];
    const len = Math.min(c.numeratorValues.length, c.denominatorValues.length);
    for (let i = 0; i < len; i++) {
      const a = c.numeratorValues[i];
      const b = c.denominatorValues[i];
      if (a && b && a > 0 && b > 0) d.push(Math.log(a / b));
    }
    pairGroups.push(d);
    for (const side of [c.numeratorValues, c.denominatorValues])
      sideGroups.push(side.filter((x): x is number => typeof x === "number" && x > 0).map((x) => Math.log(x)));
  }
  const pair = pooledSd(pairGroups);
  const side = pooledSd(sideGroups);
  // Per-second samples inside each measured cell: drop the first second (thread start-up), log scale.
  const intervalGroups = records
    .filter((r) => r.phase === "measure" && r.status === "ok" && r.metrics)
    .map((r) =>
      r
        .metrics!.intervals.slice(1)
        .map((s) => s.qps)
        .filter((q) => q > 0)
        .map((q) => Math.log(q)),
    );
  const intervals = pooledSd(intervalGroups);
  return {
    cells: all.length,
    madFrom100: dev.length ? median(dev) : null,
    maxFrom100: dev.length ? Math.max(...dev) : null,
    // Cells whose interval includes 100 (the old verdict "same"): equivalent or inconclusive.
    sameShare: all.length ? ((verdicts.equivalent ?? 0) + (verdicts.inconclusive ?? 0)) / all.length : 0,
    verdicts,
    pairSd: pair.sd,
    pairDf: pair.df,
    repeatCv: side.sd,
    intervalCv: intervals.sd,
    cellSeconds,
  };
}

/** Half-width (as a fraction, on the log scale ≈ relative) of a 95% paired t-interval with n pairs of sd `sd`. */
export function halfWidth(sd: number, n: number, confidence = 0.95): number {
  if (n < 2) return Number.POSITIVE_INFINITY;
  return tQuantile(1 - (1 - confidence) / 2, n - 1) * (sd / Math.sqrt(n));
}

/** Smallest n ≥ 2 (up to `max`) with halfWidth(sd, n) ≤ target; null when even `max` is not enough. */
export function repeatsFor(sd: number, target = Math.log(1.02), max = 200): number | null {
  for (let n = 2; n <= max; n++) if (halfWidth(sd, n) <= target) return n;
  return null;
}

export interface NoiseModel {
  /** Variance of one pair's log ratio that does not shrink with longer cells (placement, start-up, background). */
  fixedVar: number;
  /** Variance per second of the within-run samples: one side's mean over T s has perSecondVar / T. */
  perSecondVar: number;
}

/**
 * Split the observed variance of a pair's log ratio (A/A: ln(a_r / b_r)) into a part that does not shrink with
 * longer cells and a part that does: two sides' per-second samples averaged over T seconds, 2 × perSecondVar / T.
 * Per-second samples are treated as independent, so the shrinking part is optimistic when they are correlated.
 * Without paired figures, the pair variance is taken as twice one side's repeat variance.
 */
export function noiseModel(n: AaNoise): NoiseModel | null {
  const pairVar = n.pairSd !== null ? n.pairSd ** 2 : n.repeatCv !== null ? 2 * n.repeatCv ** 2 : null;
  if (pairVar === null) return null;
  const perSecondVar = (n.intervalCv ?? 0) ** 2;
  const fixedVar = Math.max(0, pairVar - (2 * perSecondVar) / Math.max(1, n.cellSeconds));
  return { fixedVar, perSecondVar };
}

export interface RepeatAdvice {
  seconds: number;
  /** Predicted sd of one pair's log ratio at this duration. */
  pairSd: number;
  repeats: number | null;
  /** Measured seconds per cell of the matrix (both servers): 2 × repeats × seconds. */
  pairSeconds: number | null;
}

/** For each duration: the repeats a ±target interval (95%, paired t) needs under the noise model. */
export function repeatAdvice(m: NoiseModel, durations: readonly number[], target = Math.log(1.02)): RepeatAdvice[] {
  return durations.map((seconds) => {
    const pairSd = Math.sqrt(m.fixedVar + (2 * m.perSecondVar) / seconds);
    const repeats = repeatsFor(pairSd, target);
    return { seconds, pairSd, repeats, pairSeconds: repeats === null ? null : 2 * repeats * seconds };
  });
}

export interface OrderEffect {
  groups: number;
  /** Mean of ln(first / second) over the groups of back-to-back cells, as a % (exp − 1). */
  firstVsSecondPct: number | null;
  /** Its 95% interval, in %. */
  low: number | null;
  high: number | null;
  /** Mean ln(numerator / denominator), as a %, to tell a server bias from an order bias. */
  numVsDenPct: number | null;
}

/**
 * Does going first in a group (the same test, threads and repeat on each server, back to back) pay? An A/A run
 * whose ratio leans one way while this is ~0 has a bias tied to the server (placement, set-up order), not to order.
 */
export function orderEffect(
  records: readonly CellRecord[],
  numerator: string,
  denominator: string,
  metric: (r: CellRecord) => number | null,
): OrderEffect {
  const groups = new Map<string, CellRecord[]>();
  for (const r of records) {
    if (r.phase !== "measure" || r.status !== "ok") continue;
    const k = `${r.test}|${r.threads}|${r.repeat}`;
    groups.set(k, [...(groups.get(k) ?? []), r]);
  }
  const fs: number[] = [];
  const nd: number[] = [];
  for (const g of groups.values()) {
    const a = g.find((r) => r.server === numerator);
    const b = g.find((r) => r.server === denominator);
    if (!a || !b) continue;
    const va = metric(a);
    const vb = metric(b);
    if (!va || !vb) continue;
    const aFirst = a.startedAt <= b.startedAt;
    fs.push(aFirst ? Math.log(va / vb) : Math.log(vb / va));
    nd.push(Math.log(va / vb));
  }
  const pct = (x: number) => (Math.exp(x) - 1) * 100;
  if (fs.length === 0) return { groups: 0, firstVsSecondPct: null, low: null, high: null, numVsDenPct: null };
  const m = mean(fs);
  const hw = fs.length >= 2 ? halfWidth(stddev(fs), fs.length) : null;
  return {
    groups: fs.length,
    firstVsSecondPct: pct(m),
    low: hw === null ? null : pct(m - hw),
    high: hw === null ? null : pct(m + hw),
    numVsDenPct: pct(mean(nd)),
  };
}

// ---- Text tables ----------------------------------------------------------------------------------------------

/** A plain text table: first column left-aligned, the others right-aligned. */
export function textTable(header: string[], rows: string[][]): string[] {
  const columns = header.map((_, i): TextColumn => ({ align: i === 0 ? "left" : "right" }));
  return layoutTable(rows, { head: [header], rule: "-", columns });
}

/** A markdown table with the same alignment. */
export function markdownTable(header: string[], rows: string[][]): string[] {
  const sep = header.map((_, i) => (i === 0 ? "---" : "---:"));
  return [`| ${header.join(" | ")} |`, `|${sep.join("|")}|`, ...rows.map((r) => `| ${r.join(" | ")} |`)];
}
