/**
 * A host's calibration as the lines `twinbench calibrate` and `calibrate --show` print (pure).
 */
import type { Calibration } from "../plan/calibration/schema.ts";

const fx = (x: number | null | undefined, d = 1) =>
  x === null || x === undefined || !Number.isFinite(x) ? "-" : x.toFixed(d);

/** A calibration as the lines `calibrate` and `calibrate --show` print. */
export function calibrationLines(c: Calibration, file?: string): string[] {
  const out = [`calibration of host ${c.hostKey}${file ? ` (${file})` : ""}`];
  out.push(
    `  host: ${Object.entries(c.hostFacts)
      .map(([k, v]) => `${k} ${v}`)
      .join(", ")}`,
  );
  out.push(
    `  measured ${c.measuredAt} from ${c.scenario}; updated ${c.updatedAt} by ${c.updates} run${c.updates === 1 ? "" : "s"}`,
  );
  if (c.perSecond) {
    const p = c.perSecond;
    out.push(
      `  one server, ${p.seconds} s per-second series: CV ${fx(p.cvPct)}%, autocorrelation lag 1..${p.autocorr.length}: ${p.autocorr.map((a) => fx(a, 2)).join(" ")}`,
    );
    for (const b of p.blocks)
      out.push(
        `    CV of ${b.seconds} s block means ${fx(b.cvPct)}% (white noise would give ${fx(b.whiteNoiseCvPct)}%)`,
      );
  } else out.push("  no per-second series");
  out.push(`  A/A pairs at ${c.cellSeconds} s cells: pair sd ${fx(c.pairSdPct)}% (df ${fx(c.pairDf, 0)})`);
  out.push(
    c.instanceSdPct === null
      ? "  between server instances: not measured (one instance)"
      : `  between server instances: sd ${fx(c.instanceSdPct)}% (df ${c.instanceDf}; method of moments, floored at 0)`,
  );
  out.push(`  wall time per pair: ${c.secondsPerPair === null ? "not measured" : `${fx(c.secondsPerPair)} s`}`);
  if (c.cellLengthCurve?.length) {
    out.push("  pair sd against cell length (A/A pairs within one instance per length):");
    for (const p of c.cellLengthCurve)
      out.push(`    ${p.cellSeconds} s cells: pair sd ${fx(p.pairSdPct)}% (df ${fx(p.pairDf, 0)})`);
  } else out.push("  pair sd against cell length: not measured (`twinbench calibrate --lengths 10,30,90`)");
  if (c.cellSpread?.length) {
    out.push(
      "  cells of the last runs (pair sd of each, over all its pairs; the design forecasts named cells from them):",
    );
    for (const r of c.cellSpread) {
      const where = [
        r.shape ? `${r.shape.rows} rows, ${r.shape.storage}` : "data not recorded",
        r.cellSeconds ? `${r.cellSeconds} s cells` : "cell length not recorded",
      ].join(", ");
      const cells = r.cells.map((x, i) => `${x.cell ?? `cell ${i + 1}`} ${fx(Math.sqrt(x.s2) * 100)}%`).join(", ");
      out.push(`    ${r.at} (${where}): ${cells}`);
    }
  }
  if (c.costShape || c.restartSecondsPerServer !== undefined)
    out.push(
      `  measured costs: set-up ${c.setupSeconds === undefined ? "-" : `${fx(c.setupSeconds, 0)} s`}, restart ${c.restartSecondsPerServer === undefined ? "-" : `${fx(c.restartSecondsPerServer)} s`} a server, ` +
        `teardown ${c.teardownSeconds === undefined ? "-" : `${fx(c.teardownSeconds)} s`}${c.costShape ? ` (on ${c.costShape.rows} rows, ${c.costShape.storage}: reused for data of that shape only)` : ""}`,
    );
  return out;
}
