/**
 * The latency percentiles and the NOPM of a report for people and machines (pure): the words, rows, CSV fields, JSON
 * and chart data every renderer uses, from src/core/stats/latency.ts and src/core/stats/nopm.ts.
 *
 * A latency ratio is shown plain, numerator / denominator (0.82: the numerator's latency is 0.82 of the
 * denominator's; lower is better), with the same verdict words as the q/s table: `faster` means the numerator's
 * latency is lower. NOPM reads like q/s (numerator / denominator × 100, higher is better).
 */
import { FDR } from "../model/verdict.ts";
import { atHistogramResolution, latencyRatio, type LatencySection } from "../stats/latency.ts";
import type { RatioCell, RatioTable } from "../stats/ratio-model.ts";
import { LATENCY_PERCENTILES } from "../stats/metric.ts";
import { textTable } from "../base/text-table.ts";
import { answerHead, answerRows, wrap } from "./answer.ts";
import { cellVerdictText, verdictWordOf } from "../model/vocabulary.ts";

/** The mark after the verdict of a reading whose interval is narrower than one histogram bucket. */
export const RESOLUTION_MARK = "r";

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const fmtQ = (x: number | null) => (x === null ? "" : x < 0.0001 ? "<0.0001" : x.toPrecision(2));

/** A latency in ms with about four significant digits (the histogram prints three decimals). */
export function fmtMs(x: number | null): string {
  if (x === null) return "";
  return x >= 100 ? x.toFixed(1) : x >= 10 ? x.toFixed(2) : x.toFixed(3);
}

/** A plain latency ratio with three decimals (one bucket is about 0.018). */
const fmtRatio = (x: number | null) => (x === null ? "" : x.toFixed(3));

/** `0.962` and `0.948–0.976` of a latency cell; empty strings without them. */
function ratioTexts(c: RatioCell): [string, string] {
  const r = c.status === "ok" ? latencyRatio(c) : null;
  if (!r) return ["", ""];
  return [fmtRatio(r.ratio), r.low !== null && r.high !== null ? `${fmtRatio(r.low)}–${fmtRatio(r.high)}` : ""];
}

/** What the section's figures mean, in words: the direction, the family of the q-values, the resolution. */
export function latencyIntro(s: LatencySection): string[] {
  if (!s.tables.length)
    return [
      "Latency percentiles: none. No measured cell recorded sysbench's latency histogram, so there is no p50, p95 or " +
        "p99 to compare (sysbench prints it with --histogram).",
    ];
  const t = s.tables[0]!.table;
  const conf = Math.round(t.confidence * 100);
  const lines = [
    `Latency percentiles (p50, p95, p99 of each repeat, read from sysbench's latency histogram; lower is better). ` +
      `ratio: ${t.numeratorLabel}'s latency / ${t.denominatorLabel}'s, the geometric mean over ` +
      `${t.pairing === "paired" ? "paired repeats" : "the repeats of each side (unpaired)"} with ` +
      `its ${conf}% interval, from the same estimator as q/s: 0.82 means ${t.numeratorLabel}'s latency is 0.82× ` +
      `${t.denominatorLabel}'s, lower is better. The verdict reads as in the q/s table: faster means ` +
      `${t.numeratorLabel}'s latency is lower.`,
    `q: Benjamini–Hochberg over all ${plural(s.readings, "latency reading")} of this report (every percentile of ` +
      `every cell${s.tables.length > 3 ? " of every table" : ""}); a faster or slower reading holds when q ≤ ${FDR}: ` +
      `${s.verdictsAtFdr} of ${s.verdicts} hold. Chance alone gives about ${s.expectedFalse.toFixed(1)} false ` +
      `readings before that control.`,
    `Histogram buckets are ${s.bucketPct}% apart, so every percentile moves by whole buckets: ` +
      `${RESOLUTION_MARK} after a verdict marks an interval narrower than one bucket, to be read at the ` +
      `histogram's resolution, not finer` +
      `${s.atResolution ? ` (${plural(s.atResolution, "reading")})` : ""}.`,
  ];
  if (s.withoutHistogram > 0)
    lines.push(
      `${plural(s.withoutHistogram, "measured cell")} of ${s.withHistogram + s.withoutHistogram} recorded no ` +
        `histogram. A table reads the histograms only when every cell it compares has one, so where one lacks it ` +
        `p95 is sysbench's printed percentile and p50 and p99 are missing.`,
    );
  return lines;
}

/** The head of {@link latencyRows}, naming the two sides of the first table. */
export function latencyHead(s: LatencySection): string[] {
  const t = s.tables[0]?.table;
  const conf = Math.round((t?.confidence ?? 0.95) * 100);
  return [
    "sysbench test",
    "threads",
    "pct",
    `${t?.numeratorLabel ?? "numerator"} ms`,
    `${t?.denominatorLabel ?? "denominator"} ms`,
    "ratio",
    `${conf}% interval`,
    "verdict",
    "BH q",
  ];
}

/** The rows of one pair's readings: per cell, its p50, p95 and p99 (test and threads on the first). */
export function latencyRows(s: LatencySection, numerator: string, denominator: string): string[][] {
  const tables = s.tables.filter((x) => x.table.numerator === numerator && x.table.denominator === denominator);
  const first = tables[0]?.table;
  if (!first) return [];
  const out: string[][] = [];
  first.rows.forEach((row, i) =>
    row.cells.forEach((_, k) =>
      tables.forEach((x, j) => {
        const c = x.table.rows[i]!.cells[k]!;
        const [ratio, interval] = ratioTexts(c);
        const res = c.status === "ok" && atHistogramResolution(c) ? ` ${RESOLUTION_MARK}` : "";
        out.push([
          j === 0 ? row.test : "",
          j === 0 ? String(c.threads) : "",
          x.percentile,
          fmtMs(c.numeratorMedian),
          fmtMs(c.denominatorMedian),
          ratio,
          interval,
          cellVerdictText(c, x.table.marginPct) + res,
          fmtQ(c.q),
        ]);
      }),
    ),
  );
  return out;
}

/** The compared pairs of the section, in order (one for a two-server run; each server's NEW/BASE in a comparison). */
export function latencyPairs(s: LatencySection): Array<{ numerator: string; denominator: string; label: string }> {
  const seen = new Map<string, { numerator: string; denominator: string; label: string }>();
  for (const { table: t } of s.tables) {
    const key = `${t.numerator}\u0000${t.denominator}`;
    if (!seen.has(key))
      seen.set(key, {
        numerator: t.numerator,
        denominator: t.denominator,
        label: `${t.numeratorLabel} against ${t.denominatorLabel}`,
      });
  }
  return [...seen.values()];
}

const R = { align: "right" } as const;

/** The section as text lines (report --details, compare): the words, then one table per compared pair. */
export function latencyTextLines(s: LatencySection): string[] {
  const lines = latencyIntro(s).flatMap((l) => wrap(l));
  const pairs = latencyPairs(s);
  for (const p of pairs) {
    if (pairs.length > 1) lines.push("", `${p.label}:`);
    const t = s.tables.find((x) => x.table.numerator === p.numerator && x.table.denominator === p.denominator)!;
    const head = latencyHead({ ...s, tables: [t] });
    lines.push(
      "",
      ...textTable(latencyRows(s, p.numerator, p.denominator), {
        head: [head],
        indent: "  ",
        columns: [{}, R, {}, R, R, R, {}, {}, R],
      }),
    );
  }
  return lines;
}

/** The section as Markdown lines (report.md's details). */
export function latencyMarkdown(s: LatencySection, esc: (x: string) => string): string[] {
  const lines: string[] = [];
  for (const l of latencyIntro(s)) lines.push(...wrap(l, undefined, ""), "");
  const pairs = latencyPairs(s);
  for (const p of pairs) {
    if (pairs.length > 1) lines.push(`#### ${esc(p.label)}`, "");
    const t = s.tables.find((x) => x.table.numerator === p.numerator && x.table.denominator === p.denominator)!;
    const head = latencyHead({ ...s, tables: [t] });
    lines.push(
      `| ${head.map(esc).join(" | ")} |`,
      `|:--|--:|:--|--:|--:|--:|--:|:--|--:|`,
      ...latencyRows(s, p.numerator, p.denominator).map((r) => `| ${r.map(esc).join(" | ")} |`),
      "",
    );
  }
  return lines;
}

/** The CSV columns the latency and NOPM readings add at the end of comparison.csv's lines (one line per cell). */
export const LATENCY_CSV_HEADER = [
  ...LATENCY_PERCENTILES.flatMap((p) => [
    `${p}_numerator_ms`,
    `${p}_denominator_ms`,
    `${p}_ratio`,
    `${p}_low`,
    `${p}_high`,
    `${p}_verdict`,
    `${p}_q`,
    `${p}_fdr`,
    `${p}_at_resolution`,
  ]),
  "nopm_numerator",
  "nopm_denominator",
  "nopm_estimate",
  "nopm_low",
  "nopm_high",
  "nopm_verdict",
  "nopm_q",
  "nopm_fdr",
] as const;

const cellOf = (t: RatioTable | undefined, test: string, threads: number) =>
  t?.rows.find((r) => r.test === test)?.cells.find((c) => c.threads === threads);

const round = (x: number | null, digits: number) => (x === null ? null : Number(x.toFixed(digits)));

/**
 * The {@link LATENCY_CSV_HEADER} fields of one cell of the pair numerator/denominator (empty where not measured):
 * per percentile each side's median over repeats (ms), the plain latency ratio and its interval, the verdict kind,
 * q and its FDR reading, and whether the interval is narrower than a bucket; then the NOPM ratio (× 100).
 */
export function latencyCsvFields(
  s: LatencySection | null,
  nopm: readonly RatioTable[],
  numerator: string,
  denominator: string,
): (test: string, threads: number) => Array<string | number | null> {
  const pick = (ts: readonly RatioTable[]) =>
    ts.find((t) => t.numerator === numerator && t.denominator === denominator);
  const nt = pick(nopm);
  return (test, threads) => {
    const fields: Array<string | number | null> = [];
    for (const p of LATENCY_PERCENTILES) {
      const t = pick((s?.tables ?? []).filter((x) => x.percentile === p).map((x) => x.table));
      const c = cellOf(t, test, threads);
      const r = c && c.status === "ok" ? latencyRatio(c) : null;
      fields.push(
        c?.numeratorMedian ?? null,
        c?.denominatorMedian ?? null,
        round(r?.ratio ?? null, 4),
        round(r?.low ?? null, 4),
        round(r?.high ?? null, 4),
        c && c.status === "ok" ? c.verdict : null,
        c?.q ?? null,
        c?.fdr ?? null,
        c && c.low !== null ? String(atHistogramResolution(c)) : null,
      );
    }
    const n = cellOf(nt, test, threads);
    fields.push(
      n?.numeratorMedian ?? null,
      n?.denominatorMedian ?? null,
      n?.estimate ?? null,
      n?.low ?? null,
      n?.high ?? null,
      n && n.status === "ok" ? n.verdict : null,
      n?.q ?? null,
      n?.fdr ?? null,
    );
    return fields;
  };
}

/** The section as JSON (report.json `latency`): the family, then each table's readings with machine keys. */
export function latencyJson(s: LatencySection | null): object | null {
  if (!s) return null;
  return {
    source: "histogram",
    direction: "ratio = numerator latency / denominator latency; lower is better; faster = numerator latency lower",
    readings: s.readings,
    expectedFalse: s.expectedFalse,
    verdicts: s.verdicts,
    verdictsAtFdr: s.verdictsAtFdr,
    fdr: { method: "benjamini-hochberg", level: FDR, family: "every latency reading of the report" },
    bucketPct: s.bucketPct,
    atResolution: s.atResolution,
    withHistogram: s.withHistogram,
    withoutHistogram: s.withoutHistogram,
    tables: s.tables.map(({ percentile, table: t }) => ({
      percentile,
      numerator: t.numerator,
      denominator: t.denominator,
      numeratorLabel: t.numeratorLabel,
      denominatorLabel: t.denominatorLabel,
      pairing: t.pairing,
      confidence: t.confidence,
      marginPct: t.marginPct,
      cells: t.rows.flatMap((r) =>
        r.cells.map((c) => {
          const x = c.status === "ok" ? latencyRatio(c) : null;
          return {
            test: r.test,
            threads: c.threads,
            status: c.status,
            numeratorMs: c.numeratorMedian,
            denominatorMs: c.denominatorMedian,
            ratio: round(x?.ratio ?? null, 6),
            low: round(x?.low ?? null, 6),
            high: round(x?.high ?? null, 6),
            invertedEstimate: c.estimate,
            verdict: c.verdict,
            direction: c.direction,
            equivalence: c.equivalence,
            verdictWord: verdictWordOf(c),
            fdr: c.fdr,
            n: c.n,
            df: c.df,
            p: c.p,
            q: c.q,
            atResolution: c.low !== null && atHistogramResolution(c),
            ...(c.reason ? { reason: c.reason } : {}),
          };
        }),
      ),
    })),
  };
}

/** The chart of the section (report.html): per cell and percentile, the latency ratio's interval as a floating bar. */
export function latencyChartData(s: LatencySection | null): {
  title: string;
  labels: string[];
  datasets: Array<{ label: string; data: Array<[number, number] | null> }>;
} | null {
  const first = s?.tables[0]?.table;
  if (!s || !first) return null;
  const mine = s.tables.filter(
    (x) => x.table.numerator === first.numerator && x.table.denominator === first.denominator,
  );
  const labels = first.rows.flatMap((r) => r.cells.map((c) => `${r.test} @ ${c.threads}`));
  const datasets = mine.map((x) => ({
    label: `${x.percentile} latency`,
    data: x.table.rows.flatMap((r) =>
      r.cells.map((c): [number, number] | null => {
        const q = c.status === "ok" ? latencyRatio(c) : null;
        return q && q.low !== null && q.high !== null ? [q.low, q.high] : null;
      }),
    ),
  }));
  if (!datasets.some((d) => d.data.some((x) => x !== null))) return null;
  return {
    title:
      `${first.numeratorLabel} latency / ${first.denominatorLabel} latency, ` +
      `${Math.round(first.confidence * 100)}% intervals (below 1: ${first.numeratorLabel} faster)`,
    labels,
    datasets,
  };
}

/** The heading of a NOPM table: what it compares and which way it reads. */
export function nopmHeading(t: RatioTable): string {
  const what = `${t.numeratorLabel} / ${t.denominatorLabel} × 100`;
  return `New-orders per minute of the TPC-C-like cells (NOPM, higher is better): ${what}`;
}

/** The legend under a NOPM table: the direction and the family of its q-values. */
export function nopmLegend(t: RatioTable, tables: number): string {
  return (
    `estimate: ${t.numeratorLabel} NOPM / ${t.denominatorLabel} NOPM × 100 over the repeats, from the same estimator ` +
    `as q/s; above 100 means ${t.numeratorLabel} is faster. q: Benjamini–Hochberg over the ` +
    `${tables > 1 ? "pairs' " : ""}NOPM cells only.`
  );
}

/** The NOPM tables as text: per table its heading, the answer-style table and the legend. */
export function nopmTextLines(tables: readonly RatioTable[]): string[] {
  const lines: string[] = [];
  for (const t of tables) {
    lines.push(
      ...wrap(nopmHeading(t)),
      ...textTable(answerRows(t), {
        head: [answerHead(t)],
        indent: "  ",
        columns: [{}, { align: "right" }, { align: "right" }],
      }),
      ...wrap(nopmLegend(t, tables.length)),
      "",
    );
  }
  return lines;
}

/** The NOPM tables as Markdown. */
export function nopmMarkdown(tables: readonly RatioTable[], esc: (x: string) => string): string[] {
  const lines: string[] = [];
  for (const t of tables) {
    lines.push(
      `### ${esc(nopmHeading(t))}`,
      "",
      `| ${answerHead(t).join(" | ")} |`,
      "|:--|--:|--:|--:|:--|",
      ...answerRows(t).map((r) => `| ${r.map(esc).join(" | ")} |`),
      "",
      ...wrap(nopmLegend(t, tables.length), undefined, ""),
      "",
    );
  }
  return lines;
}
