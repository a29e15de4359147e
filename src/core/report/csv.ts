/**
 * CSV renderer: comparison.csv, one line per test × threads. Empty fields where there is no number. `estimate` is
 * exp(mean log ratio) * 100, the centre of [low, high]; `ratio` is the seed tables' median / median.
 * `verdict` is the kind (verdict.ts), `direction` and `equivalence` its two readings, `fdr` holds/fails under
 * Benjamini–Hochberg (empty unless the direction is faster or slower).
 */
import type { RunReport } from "./model.ts";
import type { RatioTable } from "../stats/ratio-model.ts";
import type { CostTable } from "../stats/costs.ts";
import { LATENCY_CSV_HEADER, latencyCsvFields } from "./latency.ts";

export function csvField(v: string | number | null | undefined): string {
  if (v === null || v === undefined) return "";
  const s = String(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export const CSV_HEADER = [
  "test",
  "threads",
  "metric",
  "numerator",
  "denominator",
  "status",
  "estimate",
  "low",
  "high",
  "verdict",
  "n",
  "ratio",
  "cv_numerator_pct",
  "cv_denominator_pct",
  "numerator_median",
  "denominator_median",
  "failed_repeats",
  "instances",
  "df",
  "p",
  "q",
  "unstable",
  "direction",
  "equivalence",
  "fdr",
] as const;

export function ratioCsvLines(
  t: RatioTable,
  prefix: Array<string | number> = [],
  extra: (test: string, threads: number) => Array<string | number | null> = () => [],
): string[] {
  const out: string[] = [];
  for (const r of t.rows) {
    for (const c of r.cells) {
      const row = [
        ...prefix,
        r.test,
        c.threads,
        t.metric,
        t.numerator,
        t.denominator,
        c.status,
        c.estimate,
        c.low,
        c.high,
        c.verdict,
        c.n,
        c.ratio,
        c.cvNumerator,
        c.cvDenominator,
        c.numeratorMedian,
        c.denominatorMedian,
        c.failedRepeats,
        c.instances,
        c.df,
        c.p,
        c.q,
        c.unstable.join("; "),
        c.direction,
        c.equivalence,
        c.fdr,
        ...extra(r.test, c.threads),
      ];
      out.push(row.map(csvField).join(","));
    }
  }
  return out;
}

/**
 * The columns a report with the host's history adds: the verdicts' level (`run` or `host`), the run's own interval
 * (the same as low/high at the run level), where a second run on this host lands, the sd between runs in % and the
 * comparable runs behind it.
 */
export const REPLICATION_CSV_HEADER = [
  "level",
  "run_low",
  "run_high",
  "next_run_low",
  "next_run_high",
  "between_runs_sd_pct",
  "history_runs",
] as const;

/**
 * The ratio table as CSV (comparison.csv). After the table's columns (and the history's, when the report has one)
 * come the cell's latency percentiles and NOPM (LATENCY_CSV_HEADER, src/core/report/latency.ts), empty where absent.
 */
export function renderCsv(report: RunReport): string {
  const withHistory = report.level !== undefined;
  const lines = [[...CSV_HEADER, ...(withHistory ? REPLICATION_CSV_HEADER : []), ...LATENCY_CSV_HEADER].join(",")];
  const latency = (t: RatioTable) => latencyCsvFields(report.latency, report.nopm, t.numerator, t.denominator);
  // A ladder (src/core/stats/ladder.ts): the same columns, one line per pair × cell; q is over every pair × cell.
  if (report.ladder) for (const t of report.ladder.blocks) lines.push(...ratioCsvLines(t, [], latency(t)));
  else if (report.table) {
    const history = withHistory ? replicationFields(report) : () => [];
    const more = latency(report.table);
    lines.push(
      ...ratioCsvLines(report.table, [], (test, threads) => [...history(test, threads), ...more(test, threads)]),
    );
  }
  return lines.join("\n") + "\n";
}

function replicationFields(report: RunReport): (test: string, threads: number) => Array<string | number | null> {
  const own = report.level?.runTable ?? report.table;
  return (test, threads) => {
    const c = own?.rows.find((r) => r.test === test)?.cells.find((x) => x.threads === threads);
    const x = report.replication?.cells.get(`${test}|${threads}`);
    const r1 = (v: number | undefined) => (v === undefined ? null : Math.round(v * 10) / 10);
    return [
      report.level?.level ?? "run",
      c?.low ?? null,
      c?.high ?? null,
      r1(x?.low),
      r1(x?.high),
      r1(x?.tauPct),
      x?.k ?? null,
    ];
  };
}

export const COST_CSV_HEADER = [
  "test",
  "threads",
  "figure",
  "numerator",
  "denominator",
  "status",
  "estimate",
  "low",
  "high",
  "moved",
  "n",
  "df",
  "p",
  "numerator_median",
  "denominator_median",
  "reason",
  "note",
] as const;

export function costCsvLines(t: CostTable, prefix: Array<string | number> = []): string[] {
  return t.cells.flatMap((c) =>
    c.figures.map((f) =>
      [
        ...prefix,
        c.test,
        c.threads,
        f.figure,
        t.numerator,
        t.denominator,
        f.status,
        f.estimate,
        f.low,
        f.high,
        f.moved,
        f.n,
        f.df,
        f.p,
        f.numeratorMedian,
        f.denominatorMedian,
        f.reason,
        f.note,
      ]
        .map(csvField)
        .join(","),
    ),
  );
}

/** costs.csv (the cost-per-query table of src/core/stats/costs.ts): one line per test × threads × figure. Only the header when the run recorded no costs. */
export function renderCostCsv(t: CostTable | null): string {
  const lines = [COST_CSV_HEADER.join(",")];
  if (t && t.recorded) lines.push(...costCsvLines(t));
  return lines.join("\n") + "\n";
}
