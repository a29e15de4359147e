/**
 * The ladder in HTML: one chart across the ladder as inline SVG, and the ladder's tables, legend, method and notes.
 */
import { escapeHtml as esc } from "./escape.ts";
import { STATE_MARKS, cellVerdictText, verdictSentence } from "../model/vocabulary.ts";
import type { RatioCell } from "../stats/ratio-model.ts";
import { ladderCell, type Ladder } from "../stats/ladder.ts";
import {
  LADDER_VERDICT_HEAD,
  blockTitle,
  ladderLegend,
  ladderMethodLines,
  ladderNotes,
  ladderVerdictRows,
  type TableText,
} from "./ladder-render.ts";

const PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"];

/**
 * One chart across the ladder, as inline SVG (no script): a row per test × threads, in each row one point per
 * server (its estimate) with its interval as a whisker, on a log scale, against a line at 100 and the margin's band.
 */
export function ladderChartSvg(l: Ladder, tx: TableText): string {
  const { intervalText } = tx;
  const cells = l.tests.flatMap((test) => l.threads.map((th) => ({ test, th })));
  const pts = l.blocks.flatMap((b) =>
    cells
      .map(({ test, th }) => ladderCell(b, test, th))
      .filter((c): c is RatioCell => c?.estimate !== null && c !== undefined),
  );
  const values = [
    100 - l.marginPct,
    100 + l.marginPct,
    ...pts.flatMap((c) => [c.low ?? c.estimate!, c.high ?? c.estimate!]),
  ];
  // A log scale: a ratio and its inverse lie as far from 100 (an interval [50–200] is symmetric around 100).
  const lo = Math.min(...values) * 0.98;
  const hi = Math.max(...values) * 1.02;
  const labelW = 220;
  const plotW = 520;
  const rowH = 10 + 12 * l.blocks.length;
  const top = 24;
  const height = top + rowH * cells.length + 30;
  const width = labelW + plotW + 20;
  const x = (v: number) => labelW + (Math.log(v / lo) / Math.log(hi / lo)) * plotW;
  const out: string[] = [];
  out.push(
    `<svg class="ladder-chart" xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${esc(ladderLegend(l))}">`,
  );
  out.push(
    `<rect x="${x(100 - l.marginPct).toFixed(1)}" y="${top}" width="${(x(100 + l.marginPct) - x(100 - l.marginPct)).toFixed(1)}" height="${rowH * cells.length}" fill="#eee"/>`,
  );
  out.push(
    `<line x1="${x(100).toFixed(1)}" x2="${x(100).toFixed(1)}" y1="${top}" y2="${top + rowH * cells.length}" stroke="#555"/>`,
  );
  cells.forEach(({ test, th }, i) => {
    const y0 = top + i * rowH;
    out.push(`<text x="4" y="${y0 + rowH / 2 + 4}" font-size="11">${esc(`${test} @ ${th}`)}</text>`);
    l.blocks.forEach((b, j) => {
      const c = ladderCell(b, test, th);
      const y = y0 + 8 + j * 12;
      const colour = PALETTE[j % PALETTE.length];
      if (!c || c.estimate === null) return;
      const tip = `${blockTitle(l, b)}, ${test} @ ${th}: ${c.estimate.toFixed(1)} ${intervalText(c) ?? "no interval"} ${cellVerdictText(c, l.marginPct)}`;
      if (c.low !== null && c.high !== null)
        out.push(
          `<line x1="${x(c.low).toFixed(1)}" x2="${x(c.high).toFixed(1)}" y1="${y}" y2="${y}" stroke="${colour}" stroke-width="2"><title>${esc(tip)}</title></line>`,
        );
      out.push(
        `<circle cx="${x(c.estimate).toFixed(1)}" cy="${y}" r="3.5" fill="${colour}" data-server="${esc(b.numerator)}" data-verdict="${c.verdict}"><title>${esc(tip)}</title></circle>`,
      );
    });
  });
  const axisY = top + rowH * cells.length;
  const ticks = [10, 20, 25, 33, 50, 67, 80, 90, 95, 98, 100, 102, 105, 110, 125, 150, 200, 300, 400, 500, 1000].filter(
    (v) => v >= lo && v <= hi,
  );
  // Ticks closer than 24 px to the previous one are left out (100 always stays).
  const shown: number[] = [];
  for (const v of ticks) if (v === 100 || !shown.length || x(v) - x(shown[shown.length - 1]!) >= 24) shown.push(v);
  for (const v of shown.filter((v, i) => v === 100 || shown[i + 1] !== 100 || x(100) - x(v) >= 24))
    out.push(`<text x="${x(v).toFixed(1)}" y="${axisY + 14}" font-size="10" text-anchor="middle">${v}</text>`);
  l.blocks.forEach((b, j) => {
    out.push(
      `<circle cx="${labelW + 8 + j * 170}" cy="${12}" r="4" fill="${PALETTE[j % PALETTE.length]}"/><text x="${labelW + 16 + j * 170}" y="16" font-size="11">${esc(blockTitle(l, b))}</text>`,
    );
  });
  out.push("</svg>");
  return out.join("");
}

function htmlTable(head: string[], rows: string[][], cls: string): string {
  return `<table class="${cls}"><thead><tr>${head.map((h) => `<th>${h}</th>`).join("")}</tr></thead><tbody>${rows.map((r) => `<tr>${r.map((c) => `<td>${c}</td>`).join("")}</tr>`).join("")}</tbody></table>`;
}

/** The ladder in report.html: the chart, the table (a column block per server), legend and method, verdicts, medians. */
export function ladderHtml(l: Ladder, tx: TableText): string[] {
  const { plainCell, intervalText, statusText } = tx;
  const cellHtml = (c: RatioCell | undefined) => {
    if (!c || statusText(c) !== null || c.estimate === null) {
      const st = c ? (statusText(c) ?? STATE_MARKS.missing) : STATE_MARKS.missing;
      return `<span class="cell status-${c?.status ?? "missing"}" data-verdict="${c?.status ?? "missing"}">${esc(st)}</span>`;
    }
    const title = `${verdictSentence(c, l.marginPct)}; n=${c.n}; median/median ${c.ratio?.toFixed(2) ?? "n/a"}${c.reason ? `; ${c.reason}` : ""}${c.unstable.length ? `; unstable: ${c.unstable.join("; ")}` : ""}`;
    return `<span class="cell verdict-${c.verdict} direction-${c.direction} equivalence-${c.equivalence}${c.fdr === "fails" ? " fdr-fails" : ""}" data-verdict="${c.verdict}" title="${esc(title)}"><b>${c.estimate.toFixed(1)}</b> <small>${esc(intervalText(c) ?? "no interval")}</small> ${esc(cellVerdictText(c))}</span>`;
  };
  const rows = l.tests.flatMap((test) =>
    l.threads.map((th) => [esc(test), String(th), ...l.blocks.map((b) => cellHtml(ladderCell(b, test, th)))]),
  );
  const medians = l.tests.flatMap((test) =>
    l.threads.map((th) => [
      esc(test),
      String(th),
      ...l.blocks.map((b) => {
        const c = ladderCell(b, test, th);
        return esc(c ? plainCell(c) : STATE_MARKS.missing);
      }),
    ]),
  );
  const head = ["sysbench test", "threads", ...l.blocks.map((b) => esc(blockTitle(l, b)))];
  const vr = ladderVerdictRows(l, tx);
  return [
    l.kind === "change" ? "<h2>Ladder change</h2>" : "<h2>Ladder table</h2>",
    `<p>${esc(ladderLegend(l))}</p>`,
    `<div class="ladder-chart-box">${ladderChartSvg(l, tx)}</div>`,
    htmlTable(head, rows, "ratio ladder"),
    `<ul>${ladderMethodLines(l, tx)
      .map((s) => `<li>${esc(s)}</li>`)
      .join("")}</ul>`,
    ...(vr.length
      ? [
          "<h3>Verdicts</h3>",
          `<p>${esc(`BH q: Benjamini–Hochberg over the ${l.method.intervals} cells of every pair with an interval.`)}</p>`,
          htmlTable(
            [...LADDER_VERDICT_HEAD].map(esc),
            vr.map((r) => r.map(esc)),
            "verdicts",
          ),
        ]
      : []),
    "<h3>Median / median over repeats</h3>",
    htmlTable(head, medians, "ratio medians"),
    ...ladderNotes(l, tx).map((n) => `<p>${esc(`note: ${n}`)}</p>`),
  ];
}
