/**
 * `npm run bench -- --only forecast [--results DIR]`: how often the forecasts of recorded adaptive runs held. Reads
 * every run.json under DIR (default results/; each run keeps its forecasts beside its wall time) and prints, for the
 * forecast before the run and the one after each of the first rounds, in how many runs the real wall time fell
 * inside the 80% range (src/core/plan/forecast.ts forecastCoverage). Runs nothing.
 */
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { forecastCoverage } from "../src/core/plan/forecast.ts";
import type { RunManifest } from "../src/core/results.ts";
import { readRunManifest } from "../src/adapters/report-files.ts";

export async function forecastBench(o: { resultsDir: string; out: (line: string) => void }): Promise<number> {
  const names = await readdir(o.resultsDir).catch((e: NodeJS.ErrnoException) => {
    if (e.code === "ENOENT") return [] as string[]; // no results folder yet: no recorded runs
    throw e;
  });
  const manifests: RunManifest[] = [];
  for (const n of names.sort()) {
    // A folder without a readable run.json (calibrate-<id>/, bench scratch) is not a run: skipped, counted below.
    const m = await readRunManifest(join(o.resultsDir, n)).catch(() => undefined);
    if (m?.forecast) manifests.push(m);
  }
  o.out(`forecast coverage: ${manifests.length} recorded runs with forecasts in ${o.resultsDir} (of ${names.length} entries)`);
  for (const r of forecastCoverage(manifests, 3))
    o.out(`  ${r.stage.padEnd(8)} ${r.runs === 0 ? "no runs" : `${r.inside} of ${r.runs} inside the 80% range (${Math.round(r.share! * 100)}%)`}`);
  return 0;
}
