/**
 * A run's records as log pair ratios (pure): paired by repeat, grouped by cell and server instance, with the pairs
 * outside work disturbed left out and counted. What a calibration learns from a run starts here.
 */
import type { CellRecord } from "../../model/results.ts";
import { measureRecords } from "../../stats/records.ts";
import { metricValue } from "../../stats/metric.ts";
import type { CellVarianceObs } from "./schema.ts";
import { type RunNoise, nestedSd, runLevels, cellVariances } from "../../stats/nested-sd.ts";

/** A run's pooled residual variance of log pair ratios (within cells and instances) and its df. */
export interface PooledResiduals {
  s2: number;
  df: number;
}

/**
 * A run's log pair ratios (qps of `num` over `den`, paired by repeat, each key's last attempt), grouped by cell
 * (host, test, threads) and, within a cell, by server instance: cells[c][i] holds cell c's log ratios on instance i.
 */
function pairGroups(
  records: readonly CellRecord[],
  num: string,
  den: string,
  o: { skipDisturbed?: boolean } = {},
): number[][][] {
  return keyedPairGroups(records, num, den, o).map((g) => g.groups);
}

/** {@link pairGroups} with each cell's name, "test@threads" (with its host first on a multi-host run, "host:test@threads"). */
function keyedPairGroups(
  records: readonly CellRecord[],
  num: string,
  den: string,
  o: { skipDisturbed?: boolean } = {},
): Array<{ cell: string; groups: number[][] }> {
  const value = (r: CellRecord | undefined) => {
    const v =
      r && r.status === "ok" && r.metrics && r.metrics.status !== "failed" ? metricValue(r.metrics, "qps") : null;
    return typeof v === "number" && Number.isFinite(v) && v > 0 ? v : null;
  };
  const measured = measureRecords(records);
  const key = (r: CellRecord) => `${r.host ?? ""}|${r.test}|${r.threads}|${r.repeat}`;
  const dens = new Map(measured.filter((r) => r.server === den).map((r) => [key(r), r]));
  const cells = new Map<string, Map<number, number[]>>();
  for (const a of measured) {
    if (a.server !== num) continue;
    const b = dens.get(key(a));
    const va = value(a);
    const vb = value(b);
    if (va === null || vb === null) continue;
    // A pair that outside work disturbed (its last attempt too) says how busy the machine was, not how noisy it is.
    if (o.skipDisturbed && (a.interference?.disturbed || b?.interference?.disturbed)) continue;
    const cell = `${a.host ?? ""}|${a.test}|${a.threads}`;
    const inst = a.instance ?? b?.instance ?? 0;
    const groups = cells.get(cell) ?? new Map<number, number[]>();
    groups.set(inst, [...(groups.get(inst) ?? []), Math.log(va / vb)]);
    cells.set(cell, groups);
  }
  return [...cells].map(([k, g]) => {
    const [host, test, threads] = k.split("|");
    return { cell: `${host ? `${host}:` : ""}${test}@${threads}`, groups: [...g.values()] };
  });
}

/**
 * The pooled within-cell variance of a run's log pair ratios (qps of `num` over `den`, paired by repeat, grouped by
 * test, threads and server instance): what a run tells about the host's pair sd. Null with no df.
 */
export function pooledResiduals(records: readonly CellRecord[], num: string, den: string): PooledResiduals | null {
  // Every (cell, instance) group is one group of nestedSd's single cell: only the within-group spread counts.
  const sd = nestedSd([pairGroups(records, num, den).flat()]);
  return sd.pairDf > 0 ? { s2: (sd.pairSdPct / 100) ** 2, df: sd.pairDf } : null;
}

/**
 * A run's noise at both levels the calibration stores: log pair ratios (qps of `num` over `den`, paired by repeat)
 * grouped by cell (host, test, threads) and, within a cell, by server instance; {@link nestedSd} of that layout.
 * Null when no cell has 2 pairs on one instance (no pair df).
 */
export function runNoise(
  records: readonly CellRecord[],
  num: string,
  den: string,
  o: { skipDisturbed?: boolean } = {},
): RunNoise | null {
  return runLevels(pairGroups(records, num, den, o));
}

/** The log pair ratios (qps a/b) of an A/A run per cell (test|threads), paired by repeat; pairs disturbed by outside work in their last attempt are left out and counted. */
export function aaPairsByCell(cells: readonly CellRecord[]): { pairs: Map<string, number[]>; disturbed: number } {
  const qps = (r: CellRecord) => {
    const v = r.status === "ok" && r.metrics && r.metrics.status !== "failed" ? metricValue(r.metrics, "qps") : null;
    return typeof v === "number" && v > 0 ? v : null;
  };
  const measured = measureRecords(cells);
  const bs = new Map(measured.filter((r) => r.server === "b").map((r) => [`${r.test}|${r.threads}|${r.repeat}`, r]));
  const out = new Map<string, number[]>();
  let disturbed = 0;
  for (const a of measured.filter((r) => r.server === "a")) {
    const b = bs.get(`${a.test}|${a.threads}|${a.repeat}`);
    const va = qps(a);
    const vb = b ? qps(b) : null;
    if (va === null || vb === null) continue;
    // A pair disturbed by outside work in its last attempt too measures the machine's load, not its noise: runs
    // leave such pairs out of the host's calibration, and calibrate does too. Kept, two
    // pairs disturbed by a compile (8.9 k q/s against 15.3 k) once took its pair sd from about 5% to 13.9%.
    if (a.interference?.disturbed || b?.interference?.disturbed) {
      disturbed++;
      continue;
    }
    const k = `${a.test}|${a.threads}`;
    out.set(k, [...(out.get(k) ?? []), Math.log(va / vb)]);
  }
  return { pairs: out, disturbed };
}

/** A run's cells for {@link Calibration.cellSpread}: {@link cellVariances} of its undisturbed pairs (num over den), named. */
export function runCellSpread(records: readonly CellRecord[], num: string, den: string): CellVarianceObs[] {
  return keyedPairGroups(records, num, den, { skipDisturbed: true })
    .map((g) => ({ cell: g.cell, flat: g.groups.flat() }))
    .filter((g) => g.flat.length >= 2)
    .map((g) => ({ ...cellVariances([g.flat])[0]!, cell: g.cell }));
}

/** How many of a run's pairs (num over den, by repeat) outside work disturbed: those a calibration update leaves out. */
export function disturbedPairs(
  records: readonly CellRecord[],
  num: string,
  den: string,
): { pairs: number; disturbed: number } {
  const all = pairGroups(records, num, den).flat(2).length;
  const kept = pairGroups(records, num, den, { skipDisturbed: true }).flat(2).length;
  return { pairs: all, disturbed: all - kept };
}

/**
 * Why calibrate's series run counts as disturbed by outside work (the interference reasons of its last ok measured
 * cell), or null: its CV and autocorrelation would then describe that work, not the machine.
 */
export function seriesDisturbance(records: readonly CellRecord[]): string | null {
  const r = measureRecords(records)
    .filter((c) => c.status === "ok")
    .at(-1);
  return r?.interference?.disturbed ? r.interference.reasons.join("; ") || "disturbed" : null;
}
