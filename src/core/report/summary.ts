/**
 * The execution summary (seed 002's "Test execution summary"), per test × threads, side by side for two servers,
 * with the difference of the first against the second. Each figure is the median over the measured repeats.
 */
import type { CellRecord, RunManifest } from "../results.ts";
import type { SysbenchResult } from "../sysbench/result.ts";
import { median } from "../stats.ts";
import { axes, measureRecords, pickServers } from "./ratio.ts";

export interface SummaryRow {
  label: string;
  /** Indent level in the text view (a "per sec." line sits under its count). */
  indent: number;
  /** One value per server (same order as `servers`), null when not recorded. */
  values: Array<number | null>;
  decimals: number;
  /** (first / second - 1) * 100, null when either is missing or the second is 0. */
  diffPct: number | null;
  /** Which direction is better, when one is. */
  better: "higher" | "lower" | null;
}

export interface SummaryBlock {
  test: string;
  threads: number;
  /** Repeats that went into each server's medians. */
  repeats: number[];
  /** Per server: "ok", or "failed"/"missing" when there is nothing to show. */
  status: string[];
  rows: SummaryRow[];
}

export interface ExecutionSummary {
  /** [B, A]: the numerator then the denominator; differences are B vs A. */
  servers: string[];
  percentile: number;
  blocks: SummaryBlock[];
}

type Field = { label: string; indent?: number; decimals: number; better: "higher" | "lower" | null; get: (m: SysbenchResult) => number | null };

const perSec = (n: number | null, m: SysbenchResult) => (n === null || !m.totalTime ? null : n / m.totalTime);
const add = (a: number | null, b: number | null) => (a === null || b === null ? null : a + b);

function fields(percentile: number): Field[] {
  return [
    { label: "transactions", decimals: 0, better: null, get: (m) => m.transactions },
    { label: "per sec.", indent: 1, decimals: 2, better: "higher", get: (m) => m.tps },
    { label: "read/write requests", decimals: 0, better: null, get: (m) => add(m.reads, m.writes) },
    { label: "per sec.", indent: 1, decimals: 2, better: "higher", get: (m) => perSec(add(m.reads, m.writes), m) },
    { label: "other operations", decimals: 0, better: null, get: (m) => m.other },
    { label: "per sec.", indent: 1, decimals: 2, better: "higher", get: (m) => perSec(m.other, m) },
    { label: "queries per sec.", decimals: 2, better: "higher", get: (m) => m.qps },
    { label: "ignored errors", decimals: 0, better: "lower", get: (m) => m.ignoredErrors },
    { label: "reconnects", decimals: 0, better: "lower", get: (m) => m.reconnects },
    { label: "total time (s)", decimals: 4, better: null, get: (m) => m.totalTime },
    { label: "total number of events", decimals: 0, better: null, get: (m) => m.events },
    { label: "time taken by event execution (s)", decimals: 4, better: null, get: (m) => (m.latencyMs?.sum == null ? null : m.latencyMs.sum / 1000) },
    { label: "per-request latency (ms) min", decimals: 2, better: "lower", get: (m) => m.latencyMs?.min ?? null },
    { label: "avg", indent: 1, decimals: 2, better: "lower", get: (m) => m.latencyMs?.avg ?? null },
    { label: "max", indent: 1, decimals: 2, better: "lower", get: (m) => m.latencyMs?.max ?? null },
    { label: `${percentile}th percentile`, indent: 1, decimals: 2, better: "lower", get: (m) => m.latencyMs?.percentileValue ?? null },
    { label: "threads fairness: events avg", decimals: 4, better: null, get: (m) => m.fairness?.eventsAvg ?? null },
    { label: "events stddev", indent: 1, decimals: 2, better: "lower", get: (m) => m.fairness?.eventsStddev ?? null },
    { label: "execution time avg", indent: 1, decimals: 4, better: null, get: (m) => m.fairness?.execAvg ?? null },
    { label: "execution time stddev", indent: 1, decimals: 2, better: "lower", get: (m) => m.fairness?.execStddev ?? null },
  ];
}

export function buildSummary(
  manifest: RunManifest,
  cells: readonly CellRecord[],
  opts: { numerator?: string; denominator?: string } = {},
): ExecutionSummary {
  const pair = pickServers(manifest, opts);
  const servers = pair ?? manifest.scenario.servers.map((s) => s.id).slice(0, 1);
  const percentile = manifest.scenario.workload.percentile ?? 95;
  const measured = measureRecords(cells);
  const { tests, threads } = axes(manifest, cells);
  const fs = fields(percentile);
  const blocks: SummaryBlock[] = [];
  for (const test of tests) {
    for (const t of threads) {
      const per = servers.map((s) => measured.filter((c) => c.server === s && c.test === test && c.threads === t));
      if (per.every((p) => p.length === 0)) continue;
      const ok = per.map((p) => p.filter((c) => c.status === "ok" && c.metrics && c.metrics.status === "ok").map((c) => c.metrics!));
      const status = per.map((p, i) => (ok[i].length ? "ok" : p.some((c) => c.status === "failed") ? "failed" : p.length ? p[0].status : "missing"));
      const rows = fs.map((f): SummaryRow => {
        const values = ok.map((ms) => {
          const vs = ms.map(f.get).filter((v): v is number => typeof v === "number" && Number.isFinite(v));
          return vs.length ? median(vs) : null;
        });
        const [b, a] = values;
        const diffPct = values.length === 2 && a !== null && b !== null && a !== 0 ? (b / a - 1) * 100 : null;
        return { label: f.label, indent: f.indent ?? 0, values, decimals: f.decimals, diffPct, better: f.better };
      });
      blocks.push({ test, threads: t, repeats: ok.map((o) => o.length), status, rows });
    }
  }
  return { servers, percentile, blocks };
}

function fmt(v: number | null, decimals: number): string {
  return v === null ? "--" : v.toFixed(decimals);
}

function diffText(r: SummaryRow, servers: string[]): string {
  if (r.diffPct === null) return "";
  const d = `${r.diffPct >= 0 ? "+" : ""}${r.diffPct.toFixed(2)}%`;
  if (r.better === null || Math.abs(r.diffPct) < 0.005) return d;
  const firstBetter = r.better === "higher" ? r.diffPct > 0 : r.diffPct < 0;
  return `${d}  ${firstBetter ? servers[0] : servers[1]} better`;
}

export function renderSummaryText(s: ExecutionSummary): string {
  const out: string[] = [];
  const [b, a] = s.servers;
  out.push(
    s.servers.length === 2
      ? `Test execution summary: ${b} and ${a} side by side; difference = ${b} vs ${a} (${b} / ${a} - 1) * 100.`
      : `Test execution summary: ${b}.`,
    "",
  );
  const labelW = 36;
  const colW = Math.max(14, ...s.servers.map((x) => x.length + 2));
  for (const blk of s.blocks) {
    const reps = blk.repeats.map((n, i) => `${s.servers[i]}: ${blk.status[i] === "ok" ? `${n} repeat${n === 1 ? "" : "s"}` : blk.status[i]}`);
    out.push(`${blk.test} @ ${blk.threads} threads (median over repeats; ${reps.join(", ")})`);
    out.push(" ".repeat(labelW) + s.servers.map((x) => x.padStart(colW)).join("") + (s.servers.length === 2 ? "   difference" : ""));
    for (const r of blk.rows) {
      const label = ("  " + "  ".repeat(r.indent) + r.label).padEnd(labelW);
      const vals = r.values.map((v) => fmt(v, r.decimals).padStart(colW)).join("");
      out.push((label + vals + (s.servers.length === 2 ? "   " + diffText(r, s.servers) : "")).trimEnd());
    }
    out.push("");
  }
  if (!s.blocks.length) out.push("No measured cells.");
  return out.join("\n") + (out[out.length - 1] === "" ? "" : "\n");
}

export function renderSummaryMarkdown(s: ExecutionSummary): string {
  const out: string[] = [`# Test execution summary`, ""];
  for (const blk of s.blocks) {
    out.push(`## ${blk.test} @ ${blk.threads} threads`, "");
    out.push(`| figure | ${s.servers.join(" | ")} |${s.servers.length === 2 ? " difference |" : ""}`);
    out.push(`|:--|${s.servers.map(() => "--:").join("|")}|${s.servers.length === 2 ? "--:|" : ""}`);
    for (const r of blk.rows) {
      const label = (r.indent ? "&nbsp;&nbsp;" : "") + r.label;
      out.push(`| ${label} | ${r.values.map((v) => fmt(v, r.decimals)).join(" | ")} |${s.servers.length === 2 ? ` ${diffText(r, s.servers)} |` : ""}`);
    }
    out.push("");
  }
  return out.join("\n");
}
