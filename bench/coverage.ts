/**
 * The coverage table of docs/stats.md: the shipped adaptive procedure (estimateRun's split + applyStopRule) under
 * every noise model, for the default scenario's settings, ±5% and ±3%, a budget stop, fixed counts, A/A and
 * non-null truths; then the shipped stop rule beside a gate on the printed half-width (printedFactor), A/A.
 * `npx tsx bench/coverage.ts [runs] [seed]`.
 */
import { readFileSync } from "node:fs";
import { parse } from "yaml";
import { NOISE_MODELS, simulateRuns, summarizeCoverage, type Design } from "../src/core/stats/coverage.ts";
import { PRINTED_WIDTH_FACTOR } from "../src/core/stats/stop.ts";
import { adaptiveSettings } from "../src/core/plan/adaptive.ts";
import { ScenarioSchema } from "../src/core/model/scenario/schema.ts";

const runs = Number(process.argv[2] ?? 300);
const seed = Number(process.argv[3] ?? 20261202);
const quick = ScenarioSchema.parse(parse(readFileSync(new URL("../scenarios/quick.yaml", import.meta.url), "utf8")));
const a = adaptiveSettings(quick)!;
const cells = quick.workload.tests.length * quick.workload.threads.length;
const designs: Array<[string, Design]> = [
  [`default (min ${a.min}, ±${a.precisionPct}%)`, { cells, settings: a }],
  [`±5%`, { cells, settings: { ...a, precisionPct: 5 } }],
  [`±3%`, { cells, settings: { ...a, precisionPct: 3 } }],
  [`default, budget after 5 rounds`, { cells, settings: a, budgetRounds: 5 }],
  [`fixed 12`, { cells, settings: a, fixedRounds: 12 }],
  [`fixed 4`, { cells, settings: a, fixedRounds: 4 }],
];
const pct = (x: number | null) => (x === null ? "-" : `${(100 * x).toFixed(1)}%`);
console.log(
  `coverage of the shipped procedure: ${runs} runs × ${cells} cells per row, seed ${seed}, ${new Date().toISOString().slice(0, 10)}`,
);
console.log(
  "| noise | design | truth | rounds (median) | half-width (median) | coverage | coverage, first to stop | A/A false verdicts | printed > 2× target at a precision stop |",
);
console.log("|---|---|---|---|---|---|---|---|---|");
for (const m of NOISE_MODELS)
  for (const [name, d] of designs)
    for (const truth of ["A/A", "90–150"] as const) {
      if (truth !== "A/A" && !name.startsWith("default (")) continue;
      const sim = simulateRuns(d, m, {
        runs,
        seed,
        truth: truth === "A/A" ? undefined : (_i, u) => Math.log(0.9 + 0.6 * u()),
      });
      const s = summarizeCoverage(sim);
      console.log(
        `| ${m.name} | ${name} | ${truth} | ${s.medianRounds} | ${s.medianHalfWidthPct.toFixed(1)}% | ${pct(s.coverage)} | ${pct(s.coverageFirst)} | ${pct(s.falseVerdicts)} | ${pct(s.printedOver2x)} |`,
      );
    }

// The stop half alone (shipped: PRINTED_WIDTH_FACTOR) beside a gate that also needs the printed half within k × target.
const factors = [PRINTED_WIDTH_FACTOR, 4, 2, 1];
const ruleName = (k: number) => (k === Number.POSITIVE_INFINITY ? "stop half alone" : `and printed ≤ ${k}× target`);
console.log("");
console.log(
  `stop rule: the stop half alone (shipped) against a gate on the printed half-width, A/A, ${runs} runs × ${cells} cells per row, seed ${seed}`,
);
console.log(
  "| noise | target | stop rule | rounds (median) | half-width (median) | coverage | coverage, first to stop | A/A false verdicts | printed > 2× target at a precision stop | printed > target at a precision stop |",
);
console.log("|---|---|---|---|---|---|---|---|---|---|");
for (const m of NOISE_MODELS)
  for (const target of [a.precisionPct, 5])
    for (const k of factors) {
      const s = summarizeCoverage(
        simulateRuns({ cells, settings: { ...a, precisionPct: target, printedFactor: k } }, m, { runs, seed }),
      );
      console.log(
        `| ${m.name} | ±${target}% | ${ruleName(k)}${k === PRINTED_WIDTH_FACTOR ? " (shipped)" : ""} | ${s.medianRounds} | ${s.medianHalfWidthPct.toFixed(1)}% | ${pct(s.coverage)} | ${pct(s.coverageFirst)} | ${pct(s.falseVerdicts)} | ${pct(s.printedOver2x)} | ${pct(s.printedOverTarget)} |`,
      );
    }
