/**
 * The A/A noise of a recorded run's figures, pure: `npm run bench -- --only steady` and
 * `--only costs` read a results folder of an A/A run (one server image against itself) and give, per figure, its pair
 * sd: the sd of ln(a/b) over the repeat pairs around each cell's (test × threads) mean, pooled over cells, with its
 * chi-square interval (bench/lib/noise.ts sdEstimate), and its ratio to a reference figure's pair sd.
 *
 * The figures share their pairs (the same repeats), so two figures' sds are not independent and the F interval of
 * noise.ts does not apply; the ratio's interval is a seeded bootstrap over the pairs within each cell.
 *
 * - steady: q/s as the mean of the per-second samples after a lead-in of 0, 1, 2, 3 s, against sysbench's total;
 * - costs: q/s and each cost per query of src/core/stats/costs.ts, against q/s.
 */
import type { CellRecord } from "../../src/core/model/results.ts";
import { measureRecords } from "../../src/core/stats/records.ts";
import { COST_FIGURES, costValue } from "../../src/core/stats/costs.ts";
import { seededRandom } from "../../src/core/base/random.ts";
import { residualSpread, sdEstimate, type SdEstimate } from "./noise.ts";

/** One figure's value for a record: null where it has none (that pair is left out for this figure). */
export type FigureOf = (r: CellRecord) => number | null;

export interface AaFigure {
  key: string;
  label: string;
  of: FigureOf;
}

/** The ratio of a figure's pair sd to the reference's, over the pairs both have, with a bootstrap interval. */
export interface SdRatioBoot {
  ratio: number;
  low: number;
  high: number;
  /** Pairs both figures have. */
  pairs: number;
}

export interface AaFigureNoise {
  key: string;
  label: string;
  sd: SdEstimate | null;
  /** Cells with at least two pairs (the ones that give the sd degrees of freedom). */
  cells: number;
  vsReference: SdRatioBoot | null;
}

/** A cell's pairs: for each repeat measured on both servers, the two records. */
interface CellPairs {
  cell: string;
  pairs: Array<[CellRecord, CellRecord]>;
}

function cellPairs(records: readonly CellRecord[], a: string, b: string): CellPairs[] {
  const ok = measureRecords(records).filter((r) => r.status === "ok" && r.repeat >= 1);
  const by = new Map<string, Map<number, Partial<Record<"a" | "b", CellRecord>>>>();
  for (const r of ok) {
    if (r.server !== a && r.server !== b) continue;
    const cell = `${r.test}/${r.threads}`;
    const reps = by.get(cell) ?? new Map();
    const p = reps.get(r.repeat) ?? {};
    p[r.server === a ? "a" : "b"] = r;
    reps.set(r.repeat, p);
    by.set(cell, reps);
  }
  return [...by].map(([cell, reps]) => ({
    cell,
    pairs: [...reps.entries()]
      .sort((x, y) => x[0] - y[0])
      .flatMap(([, p]) => (p.a && p.b ? [[p.a, p.b] as [CellRecord, CellRecord]] : [])),
  }));
}

const logRatio = (f: FigureOf, [x, y]: [CellRecord, CellRecord]): number | null => {
  const a = f(x);
  const b = f(y);
  return a !== null && b !== null && a > 0 && b > 0 ? Math.log(a / b) : null;
};

function sdOf(groups: number[][]): number | null {
  const s = residualSpread([
    { index: 0, kind: "lab", arm: "", seconds: 0, cells: Object.fromEntries(groups.map((g, i) => [String(i), g])) },
  ]);
  return s.df > 0 ? Math.sqrt(s.ss / s.df) : null;
}

/** The bootstrap ratio of two figures' pair sds over the pairs both have, resampling pairs within each cell. */
function bootRatio(
  cells: CellPairs[],
  f: FigureOf,
  ref: FigureOf,
  confidence: number,
  rounds: number,
  seed: number,
): SdRatioBoot | null {
  const both = cells.map((c) =>
    c.pairs.flatMap((p) => {
      const d = logRatio(f, p);
      const r = logRatio(ref, p);
      return d !== null && r !== null ? [[d, r] as const] : [];
    }),
  );
  const point = (gs: ReadonlyArray<ReadonlyArray<readonly [number, number]>>) => {
    const a = sdOf(gs.map((g) => g.map((x) => x[0])));
    const b = sdOf(gs.map((g) => g.map((x) => x[1])));
    return a === null || b === null || !(b > 0) ? null : a / b;
  };
  const ratio = point(both);
  if (ratio === null) return null;
  const rand = seededRandom(seed);
  const draws: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const g = both.map((ps) => ps.map(() => ps[Math.floor(rand() * ps.length)]!));
    const v = point(g);
    if (v !== null && Number.isFinite(v)) draws.push(v);
  }
  if (draws.length < rounds / 2) return null;
  draws.sort((x, y) => x - y);
  const q = (p: number) => draws[Math.min(draws.length - 1, Math.max(0, Math.floor(p * draws.length)))]!;
  const alpha = (1 - confidence) / 2;
  return { ratio, low: q(alpha), high: q(1 - alpha), pairs: both.reduce((s, g) => s + g.length, 0) };
}

/** The pair sd of each figure between servers `a` and `b`, the first figure being the reference of the ratios. */
export function aaFigureNoise(
  records: readonly CellRecord[],
  a: string,
  b: string,
  figures: readonly AaFigure[],
  o: { confidence?: number; rounds?: number; seed?: number } = {},
): AaFigureNoise[] {
  const confidence = o.confidence ?? 0.95;
  const cells = cellPairs(records, a, b);
  const ref = figures[0];
  return figures.map((f) => {
    const groups = cells.map((c) => c.pairs.map((p) => logRatio(f.of, p)).filter((d): d is number => d !== null));
    const spread = residualSpread([
      {
        index: 0,
        kind: "lab",
        arm: f.key,
        seconds: 0,
        cells: Object.fromEntries(groups.map((g, i) => [String(i), g])),
      },
    ]);
    return {
      key: f.key,
      label: f.label,
      sd: sdEstimate(spread, confidence),
      cells: groups.filter((g) => g.length >= 2).length,
      vsReference: !ref || f === ref ? null : bootRatio(cells, f.of, ref.of, confidence, o.rounds ?? 2000, o.seed ?? 1),
    };
  });
}

/** q/s as sysbench's total over the whole run. */
export const QPS_TOTAL: AaFigure = {
  key: "qps",
  label: "q/s (sysbench's total)",
  of: (r) => (r.metrics?.qps && r.metrics.qps > 0 ? r.metrics.qps : null),
};

/** q/s as the mean of the per-second samples after `leadIn` seconds; null when none is left. */
export function qpsAfter(leadIn: number): AaFigure {
  return {
    key: `lead${leadIn}`,
    label: `q/s, per-second mean after a ${leadIn} s lead-in`,
    of: (r) => {
      const xs = (r.metrics?.intervals ?? []).filter((s) => s.t > leadIn).map((s) => s.qps);
      return xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : null;
    },
  };
}

/** The steady-window figures: sysbench's total (the reference) and the per-second means after each lead-in. */
export function steadyFigures(leadIns: readonly number[] = [0, 1, 2, 3]): AaFigure[] {
  return [QPS_TOTAL, ...leadIns.map(qpsAfter)];
}

/** The cost figures: q/s as the report uses it (the reference), then every cost per query. */
export function costFigures(): AaFigure[] {
  const qps: AaFigure = {
    key: "qps",
    label: "q/s (the report's figure)",
    of: (r) => {
      const v = r.trimmed?.qps ?? r.metrics?.qps;
      return v && v > 0 ? v : null;
    },
  };
  return [
    qps,
    ...COST_FIGURES.map((f) => ({
      key: f.key,
      label: `${f.label} per query`,
      of: (r: CellRecord) => costValue(r, f.key),
    })),
  ];
}

/** The per-second samples each measured record has (the lead-ins a run can be asked about). */
export function intervalCounts(records: readonly CellRecord[]): { min: number; max: number } | null {
  const n = measureRecords(records)
    .filter((r) => r.status === "ok")
    .map((r) => r.metrics?.intervals.length ?? 0);
  return n.length ? { min: Math.min(...n), max: Math.max(...n) } : null;
}
