/**
 * The history as one HTML page (`twinbench history --html FILE`): the same table as the text, then one chart per
 * cell: every run's estimate and interval over time (dots and bars, oldest left), the pooled estimate over runs (a
 * line) and where the next run lands (a shaded band). Static SVG, no script: the page's policy forbids any.
 */
import { escapeHtml } from "./escape.ts";
import { renderHistory } from "./history.ts";
import type { HistoryCellView, HistoryView } from "../stats/history-view.ts";

const W = 640;
const H = 180;
const PAD = { left: 56, right: 16, top: 12, bottom: 28 };

/** The whole page. */
export function renderHistoryHtml(v: HistoryView): string {
  const outside = new Set(v.outside);
  const charts = v.cells
    .map((c) => {
      const out = new Set(c.runs.filter((r) => outside.has(`${c.name}: ${r.runId}`)).map((r) => r.runId));
      return `<h2>${escapeHtml(c.name)}</h2>\n${cellChartSvg(c, out)}`;
    })
    .join("\n");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>twinbench history</title>
<style>body{font-family:system-ui,sans-serif;margin:2em;max-width:60em}pre{font-size:12px}svg{display:block}
.band{fill:#cfe3f7}.pooled{stroke:#1f5fa8;stroke-width:2}.bar{stroke:#333}.dot{fill:#333}.out{fill:#c0392b}
.axis{stroke:#999}.hundred{stroke:#999;stroke-dasharray:4 3}text{font-size:11px;fill:#333}</style>
</head><body>
<h1>Run history</h1>
<pre>${escapeHtml(renderHistory(v, { runs: false }).join("\n"))}</pre>
${charts}
</body></html>
`;
}

/** One cell's runs over time as an SVG chart; the runs in `outside` (outside what the others give them) are red. */
export function cellChartSvg(c: HistoryCellView, outside: ReadonlySet<string> = new Set()): string {
  const pct = (x: number | null) => (x === null || !Number.isFinite(x) ? null : Math.exp(x) * 100);
  const band = [pct(c.level.replicationLow), pct(c.level.replicationHigh)];
  const pooled = c.level.k >= 2 ? pct(c.level.pooled) : null;
  const values = [100, ...c.runs.flatMap((r) => [r.low, r.high]), ...band.filter((x): x is number => x !== null)];
  const lo = Math.min(...values) * 0.97;
  const hi = Math.max(...values) * 1.03;
  const y = (v: number) => PAD.top + ((hi - v) / (hi - lo)) * (H - PAD.top - PAD.bottom);
  const n = Math.max(1, c.runs.length);
  const x = (i: number) => PAD.left + ((i + 0.5) / n) * (W - PAD.left - PAD.right);
  const parts: string[] = [];
  if (band[0] !== null && band[1] !== null)
    parts.push(rect(PAD.left, y(band[1]), W - PAD.left - PAD.right, y(band[0]) - y(band[1]), "band"));
  parts.push(line(PAD.left, y(100), W - PAD.right, y(100), "hundred"));
  if (pooled !== null) parts.push(line(PAD.left, y(pooled), W - PAD.right, y(pooled), "pooled"));
  c.runs.forEach((r, i) => {
    parts.push(line(x(i), y(r.high), x(i), y(r.low), "bar"));
    parts.push(
      `<circle class="${outside.has(r.runId) ? "out" : "dot"}" cx="${x(i).toFixed(1)}" cy="${y(r.estimate).toFixed(1)}" r="4">` +
        `<title>${escapeHtml(`${r.runId} ${r.startedAt}: ${r.estimate.toFixed(1)} [${r.low.toFixed(1)}–${r.high.toFixed(1)}]`)}</title></circle>`,
    );
    parts.push(text(x(i), H - 8, r.startedAt.slice(5, 16).replace("T", " "), "middle"));
  });
  for (const v of [lo, 100, hi].filter((t, i, a) => a.indexOf(t) === i))
    parts.push(text(PAD.left - 6, y(v) + 4, v.toFixed(0), "end"));
  parts.push(line(PAD.left, PAD.top, PAD.left, H - PAD.bottom, "axis"));
  const label = `${c.name}: each run's estimate and 95% interval, the pooled line and where the next run lands`;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" role="img" aria-label="${escapeHtml(label)}">${parts.join("")}</svg>`;
}

const rect = (x: number, y: number, w: number, h: number, cls: string) =>
  `<rect class="${cls}" x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${w.toFixed(1)}" height="${Math.max(0, h).toFixed(1)}"/>`;
const line = (x1: number, y1: number, x2: number, y2: number, cls: string) =>
  `<line class="${cls}" x1="${x1.toFixed(1)}" y1="${y1.toFixed(1)}" x2="${x2.toFixed(1)}" y2="${y2.toFixed(1)}"/>`;
const text = (x: number, y: number, s: string, anchor: string) =>
  `<text x="${x.toFixed(1)}" y="${y.toFixed(1)}" text-anchor="${anchor}">${escapeHtml(s)}</text>`;
