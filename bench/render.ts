/**
 * The bench's tables, as text (stdout) and as markdown (bench/results/<date>.md, pasted into docs/bench.md).
 */
import type { RatioTable } from "../src/core/stats/ratio-model.ts";
import {
  markdownTable,
  textTable,
  type AaNoise,
  type DefaultVerdict,
  type LabSplit,
  type OrderEffect,
  type Projection,
  type RepeatAdvice,
  type TransportRow,
} from "./lib/figures.ts";

type Table = { header: string[]; rows: string[][] };
const f0 = (x: number | null | undefined) => (x === null || x === undefined ? "-" : x.toFixed(0));
const f1 = (x: number | null | undefined) => (x === null || x === undefined ? "-" : x.toFixed(1));
const pct = (x: number | null | undefined, d = 1) => (x === null || x === undefined ? "-" : `${x.toFixed(d)}%`);
const signed = (x: number | null | undefined) =>
  x === null || x === undefined ? "-" : `${x >= 0 ? "+" : ""}${x.toFixed(2)}%`;

export function hms(s: number): string {
  const t = Math.round(s);
  const h = Math.floor(t / 3600);
  const m = Math.floor((t % 3600) / 60);
  const sec = t % 60;
  return h > 0 ? `${h}h ${String(m).padStart(2, "0")}m` : m > 0 ? `${m}m ${String(sec).padStart(2, "0")}s` : `${sec}s`;
}

export function transportTable(rows: readonly TransportRow[], transports: readonly string[]): Table {
  return {
    header: ["test / threads", ...transports.map((t) => `${t} q/s (vs best)`)],
    // q/s: median over rounds; %: paired ratio (median over rounds of q/s ÷ the best transport's q/s that round).
    rows: rows.map((r) => [
      `${r.test} / ${r.threads}`,
      ...transports.map((t) => {
        const c = r.cells.find((x) => x.transport === t);
        return c?.medianQps == null ? "-" : `${f0(c.medianQps)} (${f1(c.pairedRatio ?? c.ratioToBest)}%)`;
      }),
    ]),
  };
}

export function verdictLine(v: DefaultVerdict): string {
  if (v.worstRatio === null) return `default transport ${v.transport}: no figures`;
  const head = `default transport ${v.transport}: ${v.within ? "WITHIN" : "NOT within"} ${v.tolerancePct}% of the best container transport in every row`;
  const tail = `(paired against each other container transport: worst ${v.worstRatio.toFixed(1)}%, geometric mean over rows ${v.geomeanRatio!.toFixed(1)}%)`;
  const short = v.shortRows.map((r) => `${r.test}/${r.threads}: ${r.ratio.toFixed(1)}% of ${r.best}`).join("; ");
  return `${head} ${tail}${short ? ` — short: ${short}` : ""}`;
}

export function splitTable(s: LabSplit): Table {
  return {
    header: ["phase", "seconds", "share of wall"],
    rows: [
      ...s.parts.map((p) => [p.key, f1(p.seconds), pct(p.sharePct)]),
      ["wall", f1(s.wall), "100.0%"],
      ["measured (sysbench total time)", f1(s.measured), pct(s.measuredSharePct)],
    ],
  };
}

export function splitLines(s: LabSplit): string[] {
  return [
    `measurement share of wall time: ${pct(s.measuredSharePct)} (${f1(s.measured)} s measured of ${f1(s.wall)} s, ${s.cells} cells, ${s.servers} servers)`,
    `per-cell overhead (wall − measured) / cells: ${f1(s.grossOverheadPerCell)} s`,
    `  of which per server (images, storage, start, prepare, snapshot, prewarm, teardown): ${f1(s.setupPerServer)} s per server`,
    `  warm-ups: ${s.warmups} runs, ${f1(s.warmupSeconds)} s`,
    `  net per cell (sysbench container start, thread init, report, pause/unpause, results): ${f1(s.netOverheadPerCell)} s`,
  ];
}

export function projectionTable(ps: Array<{ label: string; p: Projection }>): Table {
  return {
    header: [
      "matrix",
      "cells",
      "measured",
      "per-cell overhead",
      "per-server set-up",
      "warm-ups",
      "total",
      "measured share",
    ],
    rows: ps.map(({ label, p }) => [
      label,
      String(p.cells),
      hms(p.measured),
      hms(p.overhead),
      hms(p.setup),
      hms(p.warmups),
      hms(p.total),
      pct(p.measuredSharePct),
    ]),
  };
}

export function aaTable(t: RatioTable): Table {
  return {
    header: ["test", ...t.threads.map((n) => `${n} thr: a/b [95% CI] verdict`)],
    rows: t.rows.map((r) => [
      r.test,
      ...t.threads.map((n) => {
        const c = r.cells.find((x) => x.threads === n);
        if (!c || c.ratio === null) return c ? c.status : "-";
        const ci = c.low !== null && c.high !== null ? ` [${c.low.toFixed(1)}–${c.high.toFixed(1)}]` : "";
        return `${c.ratio.toFixed(1)}${ci} ${c.verdict}`;
      }),
    ]),
  };
}

export function aaLines(n: AaNoise, order: OrderEffect): string[] {
  const verdicts = Object.entries(n.verdicts)
    .map(([k, v]) => `${k} ${v}`)
    .join(", ");
  return [
    `median absolute deviation of the A/A ratio from 100: ${f1(n.madFrom100)} points (max ${f1(n.maxFrom100)})`,
    `cells whose verdict is "same": ${(n.sameShare * 100).toFixed(0)}% (${verdicts}; ${n.cells} cells)`,
    `noise: one repeat pair's ratio sd ${pct(n.pairSd === null ? null : n.pairSd * 100, 2)} (df ${n.pairDf}); one server's repeat CV ${pct(n.repeatCv === null ? null : n.repeatCv * 100, 2)}; per-second CV inside a cell ${pct(n.intervalCv === null ? null : n.intervalCv * 100, 2)}; cells of ${n.cellSeconds} s`,
    `order: going first in a back-to-back pair changes q/s by ${signed(order.firstVsSecondPct)} [${signed(order.low)} … ${signed(order.high)}] over ${order.groups} pairs; a vs b ${signed(order.numVsDenPct)}`,
  ];
}

export function adviceTable(a: readonly RepeatAdvice[]): Table {
  return {
    header: ["cell duration", "predicted pair sd", "repeats for ±2%", "measured s per cell pair"],
    rows: a.map((x) => [
      `${x.seconds} s`,
      pct(x.pairSd * 100, 2),
      x.repeats === null ? "> 200" : String(x.repeats),
      x.pairSeconds === null ? "-" : String(x.pairSeconds),
    ]),
  };
}

export const asText = (t: Table): string[] => textTable(t.header, t.rows);
export const asMarkdown = (t: Table): string[] => markdownTable(t.header, t.rows);
