/**
 * The figures of a run's report beside its q/s table (pure), for the same compared servers: the cost per query of the
 * primary pair, and for every compared pair the latency percentiles (src/core/stats/latency.ts) and the TPC-C-like
 * cells' NOPM (src/core/stats/nopm.ts), each read by the q/s table's own estimator with another metric.
 */
import type { CellRecord, RunManifest } from "../model/results.ts";
import { adaptiveRepeats } from "../model/scenario/schema.ts";
import { costTableFromSides, type CostTable } from "../stats/costs.ts";
import { buildLadder, type LadderPair } from "../stats/ladder.ts";
import { latencySection, type LatencySection } from "../stats/latency.ts";
import type { LatencyPercentile, Metric } from "../stats/metric.ts";
import { nopmTables } from "../stats/nopm.ts";
import { axes, buildRatioTable, pickServers, serverLabels } from "../stats/ratio.ts";
import type { RatioTable } from "../stats/ratio-model.ts";

/** Which servers a report compares and how: an explicit pair, and the equivalence margin. */
export interface FigureOptions {
  numerator?: string;
  denominator?: string;
  marginPct?: number;
}

/** The cost-per-query table of a run: the ratio table's two servers, paired repeats, sequential when adaptive. */
export function buildCostTable(
  manifest: RunManifest,
  cells: readonly CellRecord[],
  opts: Pick<FigureOptions, "numerator" | "denominator"> = {},
): CostTable | null {
  const pair = pickServers(manifest, opts);
  if (!pair) return null;
  const [num, den] = pair;
  const [ln, ld] = serverLabels(manifest, num, den);
  const { tests, threads } = axes(manifest, cells);
  return costTableFromSides(
    { id: num, label: ln, records: cells.filter((c) => c.server === num) },
    { id: den, label: ld, records: cells.filter((c) => c.server === den) },
    tests,
    threads,
    {
      pairing: "paired",
      sequential: adaptiveRepeats(manifest.scenario.workload) !== undefined,
      hardware: manifest.hosts?.[0]?.hardwareCounters,
    },
  );
}

/**
 * The latency section and the NOPM tables of a run, for the pairs of its ladder (`ladderPairs`, more than one) or
 * else for the two-server table's pair (the scenario's, or `opts`' explicit one).
 */
export function runFigures(
  manifest: RunManifest,
  cells: readonly CellRecord[],
  ladderPairs: readonly LadderPair[] | null,
  opts: FigureOptions = {},
): { latency: LatencySection | null; nopm: RatioTable[] } {
  const tablesOf = (metric: Metric): RatioTable[] => {
    const o = { ...opts, metric };
    if (ladderPairs) return buildLadder(manifest, cells, ladderPairs, o)?.blocks ?? [];
    const t = buildRatioTable(manifest, cells, o);
    return t ? [t] : [];
  };
  return {
    latency: latencySection((p: LatencyPercentile) => tablesOf(p), cells),
    nopm: nopmTables(() => tablesOf("nopm"), cells),
  };
}
