/**
 * What re-running disturbed pairs buys, from recorded runs: `npx tsx bench/reruns.ts DIR…`.
 *
 * A disturbed pair is run once more, both cells, same order, as new attempts of the same keys (src/app/run/cells.ts);
 * the report uses each key's last attempt. For every run this prints, from its own cells.jsonl:
 * - how many pairs were re-run, and the share of measured cells that were re-runs;
 * - the table with the last attempts (what the report shows) and with the first attempts (as if nothing were re-run),
 *   and the pooled pair sd of each (log ratios around each cell's mean): lower with the re-runs means they helped;
 * - for the re-run pairs, the mean shift of the log ratio from the first to the last attempt with its 95% interval.
 *   In an A/A run the truth is 0 for every cell: a shift that is not centred on 0 would be a bias of the first
 *   attempts (or of the re-runs). The flag comes from outside CPU use, measured apart from q/s, so replacing a pair
 *   selects on the machine, not on the outcome.
 */
import { readResultsFolder } from "../src/adapters/report-files.ts";
import type { CellRecord } from "../src/core/model/results.ts";
import { estimateTable } from "../src/stats/index.ts";
import { tQuantile } from "../src/core/base/distributions.ts";
import { primaryPair } from "../src/core/model/scenario/pairs.ts";

const pooledSd = (t: ReturnType<typeof estimateTable>): { sd: number; df: number } => {
  let ss = 0;
  let df = 0;
  for (const row of t.rows)
    for (const c of row.cells) {
      const ds = c.numeratorValues
        .map((a, i) => (a !== null && c.denominatorValues[i] !== null ? Math.log(a / c.denominatorValues[i]!) : null))
        .filter((x): x is number => x !== null);
      if (ds.length < 2) continue;
      const m = ds.reduce((a, x) => a + x, 0) / ds.length;
      ss += ds.reduce((a, x) => a + (x - m) ** 2, 0);
      df += ds.length - 1;
    }
  return { sd: df ? Math.sqrt(ss / df) : Number.NaN, df };
};

for (const dir of process.argv.slice(2)) {
  const f = await readResultsFolder(dir);
  const scenario = f.manifest.scenario;
  const measured = f.cells.filter((c) => c.phase === "measure" && c.repeat >= 1);
  const firsts = new Map<string, CellRecord>();
  for (const c of measured) if (!firsts.has(c.key)) firsts.set(c.key, c);
  const first = [...firsts.values()];
  const reruns = measured.length - first.length;
  const last = estimateTable(scenario, measured);
  const orig = estimateTable(scenario, first);
  const [a, b] = [pooledSd(last), pooledSd(orig)];
  console.log(
    `${dir}: ${f.manifest.runId}, ${measured.length} measured cells, ${reruns} of them re-runs (${((100 * reruns) / measured.length).toFixed(0)}%)`,
  );
  console.log(
    `  pooled pair sd: last attempts ${(100 * a.sd).toFixed(1)}% (df ${a.df}), first attempts ${(100 * b.sd).toFixed(1)}% (df ${b.df})`,
  );
  // shift from first to last attempt, per re-run pair
  const byKey = new Map<string, CellRecord[]>();
  for (const c of measured) byKey.set(c.key, [...(byKey.get(c.key) ?? []), c]);
  const [num, den] = primaryPair(scenario) ?? [scenario.servers[0].id, scenario.servers[1]?.id ?? ""];
  const shifts: number[] = [];
  for (const [key, rs] of byKey) {
    if (rs.length < 2 || rs[0].server !== num) continue;
    const other = byKey.get(key.replace(`${num}/`, `${den}/`));
    if (!other || other.length < 2) continue;
    const d = (x: CellRecord, y: CellRecord) =>
      Math.log((x.metrics?.qps ?? Number.NaN) / (y.metrics?.qps ?? Number.NaN));
    shifts.push(d(rs.at(-1)!, other.at(-1)!) - d(rs[0], other[0]));
  }
  if (shifts.length >= 2) {
    const m = shifts.reduce((x, s) => x + s, 0) / shifts.length;
    const sd = Math.sqrt(shifts.reduce((x, s) => x + (s - m) ** 2, 0) / (shifts.length - 1));
    const h = tQuantile(0.975, shifts.length - 1) * (sd / Math.sqrt(shifts.length));
    console.log(
      `  re-run pairs: ${shifts.length}; ratio of last to first attempt ${(100 * Math.exp(m)).toFixed(1)} [${(100 * Math.exp(m - h)).toFixed(1)}–${(100 * Math.exp(m + h)).toFixed(1)}]`,
    );
  }
  for (const [name, t] of [
    ["last attempts", last],
    ["first attempts", orig],
  ] as const)
    console.log(
      `  ${name}: ${t.rows.flatMap((r) => r.cells.map((c) => `${r.test}@${c.threads} ${c.estimate?.toFixed(1)} [${c.low?.toFixed(1)}–${c.high?.toFixed(1)}] ${c.verdict}`)).join("; ")}`,
    );
}
