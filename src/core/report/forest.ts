/**
 * The forest plot of a ratio table (pure): every cell's estimate and interval against the line at 100 and the
 * equivalence band 100 ± margin, grouped by test, with the verdict beside each cell. `forestOf` computes the rows
 * and the axis once; report.html draws them as SVG (`forestSvg`), the TUI as text (`forestLines`). The verdict words
 * come from the vocabulary (src/core/model/vocabulary.ts).
 */
import { escapeHtml } from "./escape.ts";
import { STATE_MARKS, STATE_WORDS, cellVerdictText } from "../model/vocabulary.ts";
import type { Direction, Verdict } from "../model/verdict.ts";
import type { RatioCell, RatioTable } from "../stats/ratio-model.ts";

/** One cell of the plot. `estimate`/`low`/`high` are null when the cell has no figure or no interval. */
export interface ForestRow {
  test: string;
  threads: number;
  estimate: number | null;
  low: number | null;
  high: number | null;
  verdict: Verdict;
  direction: Direction;
  /** The verdict word in its narrow form (`faster`, `same`, `unclear`, `load-bound`), or the state's mark (`failed`,
   * `skipped`, `·`) for a cell without figures. */
  word: string;
  /** The verdict as the answer table gives it (`same within ±5%`), or the state's word (`not measured`). */
  label: string;
  status: RatioCell["status"];
}

export interface ForestGroup {
  test: string;
  rows: ForestRow[];
}

export interface Forest {
  groups: ForestGroup[];
  marginPct: number;
  confidence: number;
  numeratorLabel: string;
  denominatorLabel: string;
  /** The plotted range: every interval, the line at 100 and the band, with a little room. */
  axis: { min: number; max: number; ticks: number[] };
}

/** The row of one cell: its figures when it has them, its state otherwise. */
function rowOf(test: string, c: RatioCell, marginPct: number): ForestRow {
  const base = { test, threads: c.threads, verdict: c.verdict, direction: c.direction, status: c.status };
  if (c.status !== "ok" || c.estimate === null) {
    const state = c.status === "ok" ? "missing" : c.status;
    return { ...base, estimate: null, low: null, high: null, word: STATE_MARKS[state], label: STATE_WORDS[state] };
  }
  return {
    ...base,
    estimate: c.estimate,
    low: c.low,
    high: c.high,
    word: cellVerdictText(c),
    label: cellVerdictText(c, marginPct),
  };
}

/** A step of 1, 2 or 5 × 10^k giving about `n` ticks over the span. */
function niceStep(span: number, n = 6): number {
  const raw = span / n;
  const p = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 5, 10].map((m) => m * p).find((s) => s >= raw) ?? 10 * p;
}

/** The widest axis the plot draws (a factor of 2 either way from 100). */
export const AXIS_LIMITS = [50, 200] as const;

/** The forest plot of a ratio table: one group per test, one row per thread count. */
export function forestOf(t: RatioTable): Forest {
  const groups = t.rows.map((r) => ({ test: r.test, rows: r.cells.map((c) => rowOf(r.test, c, t.marginPct)) }));
  const xs = groups
    .flatMap((g) => g.rows.flatMap((r) => [r.low, r.high, r.estimate]))
    .filter((x): x is number => x !== null && Number.isFinite(x));
  // At most a factor of 2 either way: a wider interval runs off the plot (drawn with an arrow) rather than squeeze
  // every other cell into a few pixels.
  const lo = Math.max(AXIS_LIMITS[0], Math.min(100 - t.marginPct, ...xs));
  const hi = Math.min(AXIS_LIMITS[1], Math.max(100 + t.marginPct, ...xs));
  const step = niceStep(hi - lo);
  const min = Math.floor(lo / step) * step;
  const max = Math.ceil(hi / step) * step;
  const ticks: number[] = [];
  for (let x = min; x <= max + step / 2; x += step) ticks.push(Math.round(x * 1e6) / 1e6);
  return {
    groups,
    marginPct: t.marginPct,
    confidence: t.confidence,
    numeratorLabel: t.numeratorLabel,
    denominatorLabel: t.denominatorLabel,
    axis: { min, max, ticks },
  };
}

const fmt = (x: number) => x.toFixed(1);

/** `102.0 [101.8–102.2]`, `102.0` without an interval, or "" without a figure. */
export function forestFigure(r: ForestRow): string {
  if (r.estimate === null) return "";
  return r.low !== null && r.high !== null ? `${fmt(r.estimate)} [${fmt(r.low)}–${fmt(r.high)}]` : fmt(r.estimate);
}

/**
 * The forest plot at text resolution, at most `width` characters a line:
 *
 *   oltp_read_only
 *     1    ······│·[─●─]·····   102.0 [101.8–102.2] faster
 *          90        100       110
 *
 * `·` is the equivalence band, `│` the line at 100, `[─●─]` the interval and estimate (`<`/`>` when it runs off
 * the plot). Cells without figures show their state's mark.
 */
export function forestLines(f: Forest, width: number): string[] {
  const threadsW = Math.max(3, ...f.groups.flatMap((g) => g.rows.map((r) => String(r.threads).length)));
  const figW = Math.max(4, ...f.groups.flatMap((g) => g.rows.map((r) => forestFigure(r).length)));
  const wordW = Math.max(1, ...f.groups.flatMap((g) => g.rows.map((r) => r.word.length)));
  const lead = 2 + threadsW + 2;
  const plotW = Math.max(11, Math.min(61, width - lead - 2 - figW - 1 - wordW));
  const { min, max } = f.axis;
  const col = (x: number) => Math.round(((x - min) / (max - min)) * (plotW - 1));
  const bandLo = col(100 - f.marginPct);
  const bandHi = col(100 + f.marginPct);
  const at100 = col(100);
  const background = (): string[] =>
    Array.from({ length: plotW }, (_, i) => (i === at100 ? "│" : i >= bandLo && i <= bandHi ? "·" : " "));
  const clip = (s: string) => (s.length <= width ? s : s.slice(0, width));
  const lines: string[] = [];
  for (const g of f.groups) {
    lines.push(clip(g.test));
    for (const r of g.rows) {
      const plot = background();
      if (r.estimate !== null) {
        if (r.low !== null && r.high !== null) {
          const a = col(r.low);
          const b = col(r.high);
          for (let i = Math.max(0, a); i <= Math.min(plotW - 1, b); i++) plot[i] = i === at100 ? "┼" : "─";
          if (a >= 0) plot[a] = "[";
          else plot[0] = "<";
          if (b <= plotW - 1) plot[b] = "]";
          else plot[plotW - 1] = ">";
        }
        const e = col(r.estimate);
        if (e >= 0 && e < plotW) plot[e] = "●";
      }
      const head = `  ${String(r.threads).padStart(threadsW)}  `;
      lines.push(clip(`${head}${plot.join("")}  ${forestFigure(r).padStart(figW)} ${r.word}`.trimEnd()));
    }
  }
  // The axis: 100 first, then the band's edges and the other ticks, each under its column where it fits.
  const axis = Array.from({ length: plotW + 8 }, () => " ");
  const labels = [100, 100 - f.marginPct, 100 + f.marginPct, ...f.axis.ticks.filter((t) => t !== 100)];
  for (const x of labels) {
    const label = Number.isInteger(x) ? String(x) : x.toFixed(1);
    const start = Math.max(0, col(x) - Math.floor(label.length / 2));
    if (axis.slice(Math.max(0, start - 1), start + label.length + 1).some((ch) => ch !== " ")) continue;
    for (let i = 0; i < label.length; i++) axis[start + i] = label[i]!;
  }
  lines.push(clip(`${" ".repeat(lead)}${axis.join("")}`.trimEnd()));
  return lines;
}

/** The lines forestLines gives: a title line per test, one per cell, and the axis. */
export function forestHeight(f: Forest): number {
  return f.groups.reduce((n, g) => n + 1 + g.rows.length, 0) + 1;
}

/** Colours of the directions (the HTML report's table uses the same hues). */
const DIRECTION_COLOURS: Readonly<Record<Direction, string>> = {
  faster: "#1a7f1a",
  slower: "#b22222",
  none: "#555",
  unknown: "#a08000",
};

/**
 * The forest plot as one SVG: a label column (test headings, thread counts), the plot (band shaded, line at 100,
 * each interval with its estimate), and the verdict column (figure and verdict).
 */
export function forestSvg(f: Forest, o: { width?: number; row?: number } = {}): string {
  const W = o.width ?? 1100;
  const row = o.row ?? 20;
  const labelW = 210;
  const verdictW = 420;
  const plotX = labelW;
  const plotW = W - labelW - verdictW - 20; // room for an off-plot arrow on the right
  const top = 26;
  const n = forestHeight(f) - 1;
  const H = top + n * row + 34;
  const { min, max, ticks } = f.axis;
  const x = (v: number) => plotX + ((Math.min(max, Math.max(min, v)) - min) / (max - min)) * plotW;
  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" class="forest" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" role="img" aria-label="forest plot of every cell's estimate and ${Math.round(f.confidence * 100)}% interval">`,
  );
  out.push(
    `<rect class="band" x="${x(100 - f.marginPct).toFixed(1)}" y="${top - 6}" width="${(x(100 + f.marginPct) - x(100 - f.marginPct)).toFixed(1)}" height="${n * row + 6}" fill="#dde8f6"/>`,
  );
  for (const t of ticks) {
    out.push(
      `<line x1="${x(t).toFixed(1)}" x2="${x(t).toFixed(1)}" y1="${top - 6}" y2="${top + n * row}" stroke="#eee"/>`,
    );
    out.push(
      `<text x="${x(t).toFixed(1)}" y="${top + n * row + 14}" font-size="11" text-anchor="middle" fill="#555">${t}</text>`,
    );
  }
  out.push(
    `<line class="at100" x1="${x(100).toFixed(1)}" x2="${x(100).toFixed(1)}" y1="${top - 6}" y2="${top + n * row}" stroke="#222" stroke-width="1.5"/>`,
  );
  out.push(
    `<text x="${plotX + plotW / 2}" y="${top + n * row + 30}" font-size="12" text-anchor="middle" fill="#222">${escapeHtml(`${f.numeratorLabel} / ${f.denominatorLabel} × 100, ${Math.round(f.confidence * 100)}% interval; band: 100 ± ${f.marginPct}%`)}</text>`,
  );
  out.push(
    `<text x="${plotX + plotW + 12}" y="${top - 10}" font-size="11" fill="#555">estimate [interval]  verdict</text>`,
  );
  let i = 0;
  for (const g of f.groups) {
    const yg = top + i * row + row / 2 + 4;
    out.push(`<text x="4" y="${yg}" font-size="13" font-weight="bold">${escapeHtml(g.test)}</text>`);
    i++;
    for (const r of g.rows) {
      const y = top + i * row + row / 2;
      const colour = DIRECTION_COLOURS[r.direction];
      out.push(
        `<g class="forest-row" data-test="${escapeHtml(r.test)}" data-threads="${escapeHtml(r.threads)}" data-verdict="${escapeHtml(r.status === "ok" ? r.verdict : r.status)}">`,
      );
      out.push(
        `<text x="24" y="${y + 4}" font-size="12">${escapeHtml(r.threads)} thread${r.threads === 1 ? "" : "s"}</text>`,
      );
      if (r.low !== null && r.high !== null) {
        out.push(
          `<line x1="${x(r.low).toFixed(1)}" x2="${x(r.high).toFixed(1)}" y1="${y}" y2="${y}" stroke="${colour}" stroke-width="2"/>`,
        );
        // A cap at an end on the plot; an arrow where the interval runs off it.
        for (const [v, off, dir] of [
          [r.low, r.low < min, -1],
          [r.high, r.high > max, 1],
        ] as const) {
          const px = x(v);
          if (off)
            out.push(
              `<polygon class="off-plot" points="${(px + 6 * dir).toFixed(1)},${y} ${px.toFixed(1)},${y - 5} ${px.toFixed(1)},${y + 5}" fill="${colour}"/>`,
            );
          else
            out.push(
              `<line x1="${px.toFixed(1)}" x2="${px.toFixed(1)}" y1="${y - 4}" y2="${y + 4}" stroke="${colour}" stroke-width="2"/>`,
            );
        }
      }
      if (r.estimate !== null) out.push(`<circle cx="${x(r.estimate).toFixed(1)}" cy="${y}" r="4" fill="${colour}"/>`);
      const figure = forestFigure(r);
      out.push(
        `<text x="${plotX + plotW + 12}" y="${y + 4}" font-size="12" fill="${r.estimate === null ? "#888" : "#222"}"><tspan font-family="monospace">${escapeHtml(figure)}</tspan>${escapeHtml(`${figure ? "  " : ""}${r.label}`)}</text>`,
      );
      out.push(`</g>`);
      i++;
    }
  }
  out.push(`</svg>`);
  return out.join("\n");
}
