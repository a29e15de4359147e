/**
 * The coverage table of docs/stats.md: the shipped adaptive procedure (estimateRun's stages, Huber's centre,
 * disturbed pairs left out, applyStopRule) under every noise model, for the default scenario's settings (A/A and
 * true ratios 90–150), ±5% and a budget stop after 5 rounds. `npx tsx bench/coverage.ts [runs] [seed]`.
 */
import { readFileSync } from "node:fs";
import { parse } from "yaml";
import { NOISE_MODELS, simulateRuns, summarizeCoverage, type Design } from "../src/core/stats/coverage.ts";
import { adaptiveSettings } from "../src/core/plan/adaptive.ts";
import { ScenarioSchema } from "../src/core/model/scenario/schema.ts";

const runs = Number(process.argv[2] ?? 300);
const seed = Number(process.argv[3] ?? 20261202);
const quick = ScenarioSchema.parse(parse(readFileSync(new URL("../scenarios/quick.yaml", import.meta.url), "utf8")));
const a = adaptiveSettings(quick)!;
const cells = quick.workload.tests.length * quick.workload.threads.length;
const designs: Array<[string, Design, boolean]> = [
  [`default (min ${a.min}, ±${a.precisionPct}%)`, { cells, settings: a }, false],
  [`default (min ${a.min}, ±${a.precisionPct}%)`, { cells, settings: a }, true],
  [`±5%`, { cells, settings: { ...a, precisionPct: 5 } }, false],
  [`default, budget after 5 rounds`, { cells, settings: a, budgetRounds: 5 }, false],
];
const pct = (x: number | null) => (x === null ? "-" : `${(100 * x).toFixed(1)}%`);
console.log(`coverage of the shipped procedure: ${runs} runs × ${cells} cells per row, seed ${seed}`);
console.log(
  "| noise | design | truth | rounds (median) | half-width (median) | coverage | coverage, first to stop | A/A false verdicts | printed > 1.2× target | max printed / target |",
);
console.log("|---|---|---|---|---|---|---|---|---|---|");
for (const m of NOISE_MODELS)
  for (const [name, d, nonNull] of designs) {
    const truth = nonNull ? (_i: number, u: () => number) => Math.log(0.9 + 0.6 * u()) : undefined;
    const s = summarizeCoverage(simulateRuns(d, m, { runs, seed, truth }));
    const max = s.printedMaxRatio === null ? "-" : s.printedMaxRatio.toFixed(2);
    console.log(
      `| ${m.name} | ${name} | ${nonNull ? "90–150" : "A/A"} | ${s.medianRounds} | ${s.medianHalfWidthPct.toFixed(1)}% | ${pct(s.coverage)} | ${pct(s.coverageFirst)} | ${pct(s.falseVerdicts)} | ${pct(s.printedOver1_2x)} | ${max} |`,
    );
  }
