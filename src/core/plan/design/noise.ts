/**
 * The noise the budget design assumes (pure): the pair sd against cell length (the calibration's curve fitted as a
 * power law, else a slow level plus an AR(1) fitted to a per-second series) and the instance sd it trusts.
 */
import type { Calibration, CellLengthPoint } from "../calibration/schema.ts";
import { ASSUMED_PAIR_SD_PCT, ASSUMED_INSTANCE_SD_PCT } from "../calibration/prediction.ts";

/** The noise figures measured on this project's VM (/work/shared/notes/noise-and-statistics-facts.md §6). */
export const NOTES_SERIES = { lag1: 0.77, blockSeconds: 20, blockCvPct: 11.1, whiteCvPct: 4.1 } as const;

/** The cell length of the A/A pairs behind ASSUMED_PAIR_SD_PCT (notes §2: 6 s cells). */
export const ASSUMED_PAIR_CELL_SECONDS = 6;

/** The pair sd at a cell length, and where it comes from. */
export interface PairSdAtLength {
  source: "curve" | "host series" | "notes";
  /** Pair sd (%) at `seconds` cells. */
  at: (seconds: number) => number;
  note: string;
}

/** The variance factor of the mean of L seconds of an AR(1) with lag-1 autocorrelation φ (1 at L = 1). */
export function ar1MeanFactor(phi: number, seconds: number): number {
  const L = Math.max(1, seconds);
  if (!(phi > 0)) return 1 / L;
  if (phi >= 1) return 1;
  return (1 / L) * ((1 + phi) / (1 - phi) - (2 * phi * (1 - phi ** L)) / (L * (1 - phi) ** 2));
}

/**
 * One server's cell-mean variance against its length: a slow level (variance f²) plus an AR(1) part (w²), fitted
 * so that the per-second CV c and the CV b of B-second block means hold: f² + w² = c², f² + w² g(B) = b².
 */
export function seriesVariance(o: {
  lag1: number;
  cvPct: number;
  blockSeconds: number;
  blockCvPct: number;
}): (seconds: number) => number {
  const c2 = (o.cvPct / 100) ** 2;
  const b2 = (o.blockCvPct / 100) ** 2;
  const g = ar1MeanFactor(o.lag1, o.blockSeconds);
  const w2 = g < 1 ? Math.max(0, Math.min(c2, (c2 - b2) / (1 - g))) : 0;
  const f2 = Math.max(0, c2 - w2);
  return (L) => f2 + w2 * ar1MeanFactor(o.lag1, L);
}

/** The pair sd against cell length this calibration gives (see the module comment). */
export function pairSdAtLength(cal: Calibration | null): PairSdAtLength {
  const curve = cal?.cellLengthCurve?.filter((p) => p.cellSeconds > 0 && p.pairSdPct > 0) ?? [];
  if (curve.length >= 2) {
    const f = fitCurve(curve);
    return {
      source: "curve",
      at: f.at,
      note:
        `the calibration's curve (${curve.map((p) => `${p.cellSeconds} s: ${p.pairSdPct.toFixed(1)}% (df ${Math.round(p.pairDf)})`).join(", ")}), ` +
        `fitted as pair sd ∝ length^−${f.slope.toFixed(2)} (least squares on the logs, weighted by df; the slope held to 0–0.5, white noise's)`,
    };
  }
  const series = cal?.perSecond;
  const block = series?.blocks.at(-1);
  const fromSeries =
    series && block && series.autocorr.length && Number.isFinite(series.cvPct) && Number.isFinite(block.cvPct);
  const p = fromSeries
    ? { lag1: series.autocorr[0], cvPct: series.cvPct, blockSeconds: block.seconds, blockCvPct: block.cvPct }
    : {
        lag1: NOTES_SERIES.lag1,
        cvPct: NOTES_SERIES.whiteCvPct * Math.sqrt(NOTES_SERIES.blockSeconds),
        blockSeconds: NOTES_SERIES.blockSeconds,
        blockCvPct: NOTES_SERIES.blockCvPct,
      };
  const v = seriesVariance(p);
  const anchorSeconds = cal && cal.cellSeconds > 0 ? cal.cellSeconds : ASSUMED_PAIR_CELL_SECONDS;
  const anchorSd = curve.length === 1 ? curve[0].pairSdPct : (cal?.pairSdPct ?? ASSUMED_PAIR_SD_PCT);
  const at0 = curve.length === 1 ? curve[0].cellSeconds : anchorSeconds;
  const what = fromSeries ? "this host's per-second series" : "the notes' figures";
  return {
    source: fromSeries ? "host series" : "notes",
    at: (L) => anchorSd * Math.sqrt(v(L) / v(at0)),
    note:
      `a model from ${what} (lag-1 autocorrelation ${p.lag1.toFixed(2)}, per-second CV ${p.cvPct.toFixed(1)}%, ${p.blockSeconds} s block means ${p.blockCvPct.toFixed(1)}%), ` +
      `scaled to pair sd ${anchorSd.toFixed(1)}% at ${at0} s cells${cal ? "" : " (assumed: no calibration)"}; \`twinbench calibrate --lengths 10,30,90\` measures the curve`,
  };
}

/**
 * The curve's points fitted as a power law, ln sd = a − b ln L, by least squares weighted by each point's df (the
 * variance of a log sd is about 1/(2 df)), with b held to 0–0.5: longer cells never make it noisier, and no noise
 * falls faster than white noise's 1/√L. Below the shortest measured length the law goes on (shorter cells are
 * noisier); past the longest it is held flat (no gain is assumed that was not measured). A fit, not the points at face value
 * (log-log between them): measured curves here had a 10 s point (3.2%, df 6) against 7 s (5.0%, df 21) falling
 * faster than white noise, and a curve rising from 7 to 10 s (5.8%, 8.7%): both were chance, at 3–6 df.
 */
export function fitCurve(curve: readonly CellLengthPoint[]): { slope: number; at: (seconds: number) => number } {
  const pts = curve
    .filter((p) => p.cellSeconds > 0 && p.pairSdPct > 0)
    .map((p) => ({ x: Math.log(p.cellSeconds), y: Math.log(p.pairSdPct), w: p.pairDf > 0 ? p.pairDf : 1 }));
  const W = pts.reduce((a, p) => a + p.w, 0);
  const mx = pts.reduce((a, p) => a + p.w * p.x, 0) / W;
  const my = pts.reduce((a, p) => a + p.w * p.y, 0) / W;
  const sxx = pts.reduce((a, p) => a + p.w * (p.x - mx) ** 2, 0);
  const sxy = pts.reduce((a, p) => a + p.w * (p.x - mx) * (p.y - my), 0);
  const slope = Math.min(0.5, Math.max(0, sxx > 0 ? -sxy / sxx : 0));
  const hi = Math.max(...pts.map((p) => p.x));
  return { slope, at: (L) => Math.exp(my - slope * (Math.min(hi, Math.log(Math.max(L, 1))) - mx)) };
}

/** Below this many df, a calibration's instance sd is not trusted to be small (see {@link designInstanceSd}). */
export const MIN_INSTANCE_DF = 10;

/**
 * The instance sd the design works with. With fewer than {@link MIN_INSTANCE_DF} df (or none measured), never less
 * than the assumed {@link ASSUMED_INSTANCE_SD_PCT}: a calibration's 0.0% from 2 df (the method of
 * moments floored at 0) made the design keep 3 rounds per instance, and the run itself then measured 17.2% between
 * instances. A small instance sd lets a design save restarts; only enough df may buy that.
 */
export function designInstanceSd(
  cal: Pick<Calibration, "instanceSdPct" | "instanceDf" | "pairSdPct" | "pairHoldsInstances"> | null,
): { pct: number; note: string | null } {
  if (!cal) return { pct: ASSUMED_INSTANCE_SD_PCT, note: null };
  const measured = cal.instanceSdPct;
  if (measured === null && cal.pairHoldsInstances)
    return {
      pct: cal.pairSdPct / Math.SQRT2,
      note: `the calibration's pair sd ${cal.pairSdPct.toFixed(1)}% holds both levels (its runs had a fresh instance each round): split evenly, ${(cal.pairSdPct / Math.SQRT2).toFixed(1)}% each, as the notes found the two levels about equal`,
    };
  if (measured !== null && cal.instanceDf >= MIN_INSTANCE_DF) return { pct: measured, note: null };
  if (measured !== null && measured >= ASSUMED_INSTANCE_SD_PCT) return { pct: measured, note: null };
  return {
    pct: ASSUMED_INSTANCE_SD_PCT,
    note:
      measured === null
        ? `the calibration has no instance sd: ${ASSUMED_INSTANCE_SD_PCT}% assumed`
        : `the calibration's ${measured.toFixed(1)}% rests on ${Math.round(cal.instanceDf)} df (fewer than ${MIN_INSTANCE_DF}): ${ASSUMED_INSTANCE_SD_PCT}% assumed until more runs measure it`,
  };
}
