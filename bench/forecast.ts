/**
 * `npm run bench -- --only forecast [--results DIR]`: how often the forecasts of recorded adaptive runs held. Reads
 * every run.json under DIR (default results/; each run keeps its forecasts beside its wall time) and prints, for the
 * forecast before the run and the one after each of the first rounds, in how many runs the real wall time fell
 * inside the 80% range (src/core/plan/forecast.ts forecastCoverage). Then it replays the forecasts after rounds 1–3
 * of each run from what the run had seen by then, without the host's calibration, with the shipped model and with
 * the earlier model (cells prior df 2.2 assumed, no pace factor), side by side on the same runs
 * (replayForecasts). Runs no benchmark.
 */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { type ForecastModel } from "../src/core/plan/forecast.ts";
import { forecastCoverage, replayForecasts, type ReplayedForecast } from "../src/core/plan/forecast-replay.ts";
import type { RunManifest } from "../src/core/model/results.ts";
import { readResultsFolder } from "../src/adapters/report-files.ts";
import { ASSUMED_CELL_PRIOR_DF } from "../src/core/stats/simulate.ts";

/**
 * The earlier forecast model: every host's cells as unequal as two quick.yaml runs on the project's VM (prior df 2.2),
 * no pace factor.
 */
const OLD_MODEL: ForecastModel = { cellPriorDf: ASSUMED_CELL_PRIOR_DF, paceSdPct: 0 };

export async function forecastBench(o: { resultsDir: string; out: (line: string) => void }): Promise<number> {
  const names = await readdir(o.resultsDir).catch((e: NodeJS.ErrnoException) => {
    if (e.code === "ENOENT") return [] as string[]; // no results folder yet: no recorded runs
    throw e;
  });
  const manifests: RunManifest[] = [];
  const dirs: string[] = [];
  for (const n of names.sort()) {
    // A folder without a readable run.json (calibrate-<id>/, bench scratch) is not a run: skipped, counted below.
    // Read as recorded, unchecked: only the forecasts and the wall time are counted here (a resume checks it all).
    const m = await readFile(join(o.resultsDir, n, "run.json"), "utf8")
      .then((t) => JSON.parse(t) as RunManifest)
      .catch(() => undefined); // no readable run.json: not a run, counted below
    if (m?.forecast) {
      manifests.push(m);
      dirs.push(join(o.resultsDir, n));
    }
  }
  o.out(
    `forecast coverage: ${manifests.length} recorded runs with forecasts in ${o.resultsDir} (of ${names.length} entries)`,
  );
  for (const r of forecastCoverage(manifests, 3))
    o.out(
      `  ${r.stage.padEnd(8)} ${r.runs === 0 ? "no runs" : `${r.inside} of ${r.runs} inside the 80% range (${Math.round(r.share! * 100)}%)`}`,
    );
  o.out(
    "replayed without the host calibration, from what each run had seen after the round: shipped model | earlier model (prior df 2.2, no pace)",
  );
  const tally = new Map<string, { runs: number; now: number; old: number }>();
  for (const dir of dirs) {
    const m = manifests[dirs.indexOf(dir)]!;
    if (!m.forecast?.forecasts.some((x) => x.stage === "round")) continue; // nothing to replay
    const f = await readResultsFolder(dir).catch((e: Error) => {
      o.out(`  ${dir}: not replayed (${e.message})`);
      return null;
    });
    if (!f) continue;
    const now = replayForecasts(f.manifest, f.cells);
    const old = replayForecasts(f.manifest, f.cells, { model: OLD_MODEL });
    for (const a of now) {
      const b = old.find((x) => x.round === a.round);
      if (!b) continue;
      const t = tally.get(`round ${a.round}`) ?? { runs: 0, now: 0, old: 0 };
      t.runs++;
      t.now += a.inside ? 1 : 0;
      t.old += b.inside ? 1 : 0;
      tally.set(`round ${a.round}`, t);
      o.out(`  ${f.manifest.runId} round ${a.round}: wall ${a.wall} s; ${range(a)} | ${range(b)}`);
    }
  }
  for (const [stage, t] of [...tally].sort())
    o.out(`  ${stage.padEnd(8)} inside: shipped ${t.now} of ${t.runs}, earlier ${t.old} of ${t.runs}`);
  return 0;
}

const range = (r: ReplayedForecast) =>
  `${r.forecast.totalSeconds.median} [${r.forecast.totalSeconds.low}–${r.forecast.totalSeconds.high}] ${r.inside ? "in" : "OUT"} (prior df ${r.forecast.cellPriorDf ?? "∞"})`;
