/**
 * `npm run bench -- --only steady --results DIR` and `--only costs --results DIR`: the A/A noise of a recorded A/A
 * run's figures, from its results folder (no run). DIR is a run of one image against itself (scenarios/aa-mariadb.yaml:
 * servers a and b); `--pair a,b` names the two servers otherwise.
 * - steady: the pair sd of q/s taken as sysbench's total and as the per-second mean after a lead-in
 *   of 0, 1, 2, 3 s (`--lead-ins 0,1,2,3`), each with its 95% interval and its ratio to the total's;
 * - costs: the pair sd of q/s and of every cost per query side by side, each against q/s's.
 * Several DIRs (comma separated) are pooled: each folder's pairs stay within their own cells.
 * bench/lib/aa-figures.ts computes; this prints.
 */
import {
  aaFigureNoise,
  costFigures,
  intervalCounts,
  steadyFigures,
  type AaFigure,
  type AaFigureNoise,
} from "./lib/aa-figures.ts";
import { formatSd } from "./lib/noise.ts";
import { TwinbenchError } from "../src/core/base/errors.ts";
import type { CellRecord } from "../src/core/model/results.ts";
import { readResultsFolder } from "../src/adapters/report-files.ts";
import { textTable } from "./lib/figures.ts";

export async function aaDirBench(o: {
  kind: "steady" | "costs";
  results: string;
  pair?: string;
  leadIns?: string;
  out: (line: string) => void;
}): Promise<number> {
  const dirs = o.results
    .split(",")
    .map((d) => d.trim())
    .filter(Boolean);
  const records: CellRecord[] = [];
  let pair: [string, string] | undefined;
  for (const [i, dir] of dirs.entries()) {
    const f = await readResultsFolder(dir);
    const ids = f.manifest.servers.map((s) => s.id);
    const p = o.pair
      ? (o.pair.split(",").map((x) => x.trim()) as [string, string])
      : ids.length === 2
        ? ([ids[0]!, ids[1]!] as [string, string])
        : undefined;
    if (!p || p.length !== 2 || !p.every((id) => ids.includes(id)))
      throw new TwinbenchError(
        `${dir}: the A/A pair ${o.pair ?? "(two servers)"} is not among its servers ${ids.join(", ")}`,
        { code: "BENCH_ARGS", hint: "pass --pair a,b naming two of the run's servers" },
      );
    pair ??= p;
    // Pooled folders: the cells of each stay their own (a folder's servers had their own instances).
    records.push(
      ...f.cells.map((r) => ({
        ...r,
        test: `${i}:${r.test}`,
        server: r.server === p[0] ? pair![0] : r.server === p[1] ? pair![1] : r.server,
        key: `${i}:${r.key}`,
      })),
    );
    const n = intervalCounts(f.cells);
    o.out(
      `${dir}: run ${f.manifest.runId}, ${f.cells.filter((c) => c.phase === "measure").length} measured records, ${n ? `${n.min}–${n.max}` : "no"} per-second samples a cell, pair ${p.join("/")}`,
    );
  }
  const leadIns = (o.leadIns ?? "0,1,2,3").split(",").map(Number);
  if (leadIns.some((x) => !Number.isInteger(x) || x < 0))
    throw new TwinbenchError(`--lead-ins: expected whole seconds like 0,1,2,3, got "${o.leadIns}"`, {
      code: "BENCH_ARGS",
      hint: "e.g. --lead-ins 0,1,2,3",
    });
  const figures: AaFigure[] = o.kind === "steady" ? steadyFigures(leadIns) : costFigures();
  const rows = aaFigureNoise(records, pair![0], pair![1], figures);
  o.out("");
  o.out(
    o.kind === "steady"
      ? "A/A pair sd of q/s by the seconds it is taken from (100 × sd of ln(a/b) around each cell's mean, pooled; 95% chi-square interval; ratio to sysbench's total with a 95% bootstrap interval over the pairs):"
      : "A/A pair sd of q/s and of each cost per query (100 × sd of ln(a/b) around each cell's mean, pooled; 95% chi-square interval; ratio to q/s's with a 95% bootstrap interval over the pairs both have):",
  );
  for (const l of textTable(["figure", "pairs", "cells", "pair sd % [95%]", "÷ reference [95%]"], rows.map(row)))
    o.out(l);
  return 0;
}

function row(r: AaFigureNoise): string[] {
  const v = r.vsReference;
  return [
    r.label,
    String(r.sd?.pairs ?? 0),
    String(r.cells),
    formatSd(r.sd),
    v ? `${v.ratio.toFixed(2)} [${v.low.toFixed(2)}–${v.high.toFixed(2)}] (${v.pairs} pairs)` : "-",
  ];
}
