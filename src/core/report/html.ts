/**
 * HTML renderer: one self-contained report.html. Tables are static HTML; charts are drawn by Chart.js, whose
 * source the caller passes in (the adapter reads it from node_modules), so this module stays pure and the file
 * loads nothing from the network. After the charts are created the page sets `document.body.dataset.chartsReady`
 * to their number (or `chartsError` to the error message).
 */
import { type CostTable } from "../stats/costs.ts";
import { costPointText, costSummary, costSummaryHead, type CostSummary } from "./cost-summary.ts";
import { firstScreen, secondRunDetails, type FirstScreen } from "./first-screen.ts";
import { verdictWordOf } from "../model/vocabulary.ts";
import { answerHead, answerRows } from "./answer.ts";
import {
  latencyChartData,
  latencyHead,
  latencyIntro,
  latencyPairs,
  latencyRows,
  nopmHeading,
  nopmLegend,
} from "./latency.ts";
import type { LatencySection } from "../stats/latency.ts";
import type { RunManifest } from "../model/results.ts";
import { type RatioTable } from "../stats/ratio-model.ts";
import type { RunReport } from "./model.ts";
import { formatBytes } from "../base/units.ts";
import {
  TABLE_TEXT,
  VERDICT_HEAD,
  cellNotes,
  configIdentityLine,
  legend,
  methodLines,
  partialLine,
  plainCell,
  runLine,
  verdictRows,
} from "./text.ts";
import { ladderHtml } from "./ladder-html.ts";
import { escapeHtml, scriptJson } from "./escape.ts";
import { forestOf, forestSvg } from "./forest.ts";
import { CSS, SCRIPT } from "./html-assets.ts";
import type { HtmlData } from "./html-data.ts";
import { disturbedNotePrefix } from "../measure/interference.ts";
import { createHash } from "node:crypto";

/** A CSP source for an inline script: `'sha256-<base64>'` of its exact text (UTF-8). */
export function scriptHash(text: string): string {
  return `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;
}

function table(head: string[], rows: string[][], cls = ""): string {
  return `<table${cls ? ` class="${cls}"` : ""}><thead><tr>${head.map((h) => `<th>${h}</th>`).join("")}</tr></thead><tbody>${rows
    .map((r) => `<tr>${r.map((c) => `<td>${c}</td>`).join("")}</tr>`)
    .join("")}</tbody></table>`;
}

/** The compact cost table (cost-summary.ts): server CPU and the figures that moved, read like q/s. */
function costSummaryHtml(c: CostSummary): string {
  return table(
    ["cell", ...c.figures.map((f) => `${f.label} per query`)].map(escapeHtml),
    c.rows.map((r) => [`${r.test} @ ${r.threads}`, ...r.points.map(costPointText)].map(escapeHtml)),
    "costs",
  );
}

/** The chart of the compact cost table: per cell, each figure's interval as a floating bar, read like q/s. */
export function costChartData(t: CostTable | null): {
  title: string;
  labels: string[];
  datasets: Array<{ label: string; data: Array<[number, number] | null> }>;
} | null {
  const c = costSummary(t);
  if (!c) return null;
  const rows = c.rows.filter((r) => r.points.some((p) => p !== null && p.low !== null && p.high !== null));
  if (!rows.length) return null;
  const datasets = c.figures.map((f, i) => ({
    label: `${f.label} per query`,
    data: rows.map((r): [number, number] | null => {
      const p = r.points[i];
      return p && p.low !== null && p.high !== null ? [p.low, p.high] : null;
    }),
  }));
  return { title: costSummaryHead(c).replace(/:$/, ""), labels: rows.map((r) => `${r.test} @ ${r.threads}`), datasets };
}

/** The answer table: estimate, interval and verdict word per cell (data-verdict keeps the machine names). */
function answerTableHtml(t: RatioTable, s: Pick<FirstScreen, "head" | "rows">): string {
  const cells = t.rows.flatMap((r) => r.cells);
  const rows = s.rows.map((row, i) => {
    const c = cells[i]!;
    const word = verdictWordOf(c) ?? c.status;
    return row.map((x, j) =>
      j === 4
        ? `<span class="cell verdict-word-${word}" data-verdict="${c.status === "ok" ? c.verdict : c.status}" data-word="${word}">${escapeHtml(x)}</span>`
        : escapeHtml(x),
    );
  });
  return table(s.head.map(escapeHtml), rows, "answer");
}

/** The NOPM tables of the TPC-C-like cells: heading, answer-style table and legend each. */
function nopmHtml(tables: readonly RatioTable[]): string[] {
  return tables.flatMap((t) => [
    `<h3>${escapeHtml(nopmHeading(t))}</h3>`,
    answerTableHtml(t, { head: answerHead(t), rows: answerRows(t) }),
    `<p class="legend">${escapeHtml(nopmLegend(t, tables.length))}</p>`,
  ]);
}

/** The latency section: its words, one table per compared pair, and the chart of the first pair's intervals. */
function latencyHtml(s: LatencySection, chart: boolean): string[] {
  const out = ["<h3>Latency percentiles</h3>", ...latencyIntro(s).map((l) => `<p>${escapeHtml(l)}</p>`)];
  const pairs = latencyPairs(s);
  for (const p of pairs) {
    const t = s.tables.find((x) => x.table.numerator === p.numerator && x.table.denominator === p.denominator)!;
    if (pairs.length > 1) out.push(`<h4>${escapeHtml(p.label)}</h4>`);
    out.push(
      table(
        latencyHead({ ...s, tables: [t] }).map(escapeHtml),
        latencyRows(s, p.numerator, p.denominator).map((r) => r.map(escapeHtml)),
        "latency",
      ),
    );
  }
  if (chart) out.push(`<div class="charts"><div class="chart"><canvas id="latency-0"></canvas></div></div>`);
  return out;
}

/** The seeds' table: the ratio of the medians per test and thread count. */
function seedTableHtml(t: RatioTable): string {
  return table(
    ["sysbench test", ...t.threads.map(String)].map(escapeHtml),
    t.rows.map((r) => [escapeHtml(r.test), ...r.cells.map((c) => escapeHtml(plainCell(c)))]),
    "ratio",
  );
}

/** The first screen: title, seeds' table, answer, sentences, legend. */
function firstScreenHtml(r: RunReport): string[] {
  const t = r.table;
  const s = firstScreen(r, partialLine(r));
  const out = [`<h1>${escapeHtml(s.title)}</h1>`, s.partial ? `<p class="partial">${escapeHtml(s.partial)}</p>` : ""];
  if (r.ladder) return [...out, ...ladderHtml(r.ladder, TABLE_TEXT), ...nopmHtml(r.nopm)];
  if (!t) return out;
  out.push(seedTableHtml(t), `<p>${escapeHtml(`Number of threads across, ${legend(t)}`)}</p>`, answerTableHtml(t, s));
  if (s.sentences.length)
    out.push(`<ul class="sentences">${s.sentences.map((x) => `<li>${escapeHtml(x)}</li>`).join("")}</ul>`);
  out.push(`<p class="legend">${s.legend.map(escapeHtml).join("<br>")}</p>`);
  for (const l of [...(s.disturbance ? [s.disturbance] : []), ...(s.noHistory ? [s.noHistory] : []), ...s.level])
    out.push(`<p>${escapeHtml(l)}</p>`);
  out.push(...nopmHtml(r.nopm));
  return out;
}

/** The disturbed cells as a small table: which cell, and what disturbed it. */
function disturbedHtml(r: RunReport): string {
  const head = ["server", "test", "threads", "repeat", "outsiders (cores)", "steal (% of a core)", "why"];
  const rows = r.disturbedCells.map((d) =>
    [
      d.server,
      d.test,
      d.threads,
      d.repeat,
      d.outsiderCores?.toFixed(2) ?? "",
      d.stealPct?.toFixed(1) ?? "",
      d.reasons.join("; "),
    ].map(escapeHtml),
  );
  return `<h3>Disturbed cells</h3><p>${escapeHtml(`${disturbedNotePrefix(r.disturbedCells.length, r.disturbance.measured)}:`)}</p>${table(head, rows, "disturbed")}`;
}

function factsHtml(m: RunManifest): string {
  const hostRows = (m.hosts ?? []).map((h) =>
    [
      h.id,
      h.kernel,
      h.os,
      h.cpuModel,
      h.cpus,
      h.memoryBytes === undefined ? "" : formatBytes(h.memoryBytes),
      h.dockerVersion,
      h.apiVersion,
      h.storageDriver,
      h.cgroupVersion,
    ].map(escapeHtml),
  );
  const storageRows = (m.servers ?? []).map((s) => {
    const st = s.storage;
    return [
      s.id,
      st?.kind,
      st?.fsType,
      st?.mountOptions,
      st?.raidLevel,
      st?.members?.map((x) => x.device).join(", "),
      st?.chunk,
      st?.loopBacked === undefined ? "" : String(st.loopBacked),
      st?.sizeBytes === undefined ? "" : formatBytes(st.sizeBytes),
      st?.freeBytesBefore === undefined ? "" : formatBytes(st.freeBytesBefore),
      st?.freeBytesAfter === undefined ? "" : formatBytes(st.freeBytesAfter),
      s.resources?.cpuset,
      s.resources?.memoryBytes === undefined ? "" : formatBytes(s.resources.memoryBytes),
      s.connection
        ? `${s.connection.transport}; ssl ${s.connection.sslCipher ?? "none"}; auth ${s.connection.authPlugin ?? "?"}`
        : "",
    ].map(escapeHtml);
  });
  const sb = m.sysbench;
  return [
    "<h2>Host facts</h2>",
    table(["host", "kernel", "os", "cpu", "cpus", "memory", "docker", "api", "storage driver", "cgroup"], hostRows),
    "<h2>Storage and resources</h2>",
    table(
      [
        "server",
        "kind",
        "fs",
        "mount options",
        "raid",
        "members",
        "chunk",
        "loop",
        "size",
        "free before",
        "free after",
        "cpuset",
        "memory",
        "connection",
      ],
      storageRows,
    ),
    sb
      ? `<p>sysbench: ${escapeHtml(sb.version ?? "?")} (${escapeHtml(sb.image)}${sb.packageVersion ? `, package ${escapeHtml(sb.packageVersion)}` : ""})</p>`
      : "",
  ].join("\n");
}

function configHtml(m: RunManifest, report: RunReport): string {
  const parts = ["<h2>Config translation</h2>"];
  for (const s of m.servers ?? []) {
    parts.push(`<h3>${escapeHtml(s.id)} (${escapeHtml(s.family)} ${escapeHtml(s.version ?? "")})</h3>`);
    parts.push(
      table(
        ["option", "fate", "rendered", "reason"],
        (s.translation ?? []).map((e) => [
          escapeHtml(e.option),
          escapeHtml(e.fate),
          escapeHtml(e.rendered.join("\n")),
          escapeHtml(e.reason),
        ]),
        "translation",
      ),
    );
    if (s.asymmetries?.length) parts.push(`<p>Deliberate asymmetries: ${escapeHtml(s.asymmetries.join(", "))}</p>`);
    if (s.cnf)
      parts.push(`<details><summary>${escapeHtml(s.id)} my.cnf</summary><pre>${escapeHtml(s.cnf)}</pre></details>`);
  }
  const ids = (m.servers ?? []).map((s) => s.id);
  parts.push("<h2>Must-match variables</h2>", `<p>${escapeHtml(configIdentityLine(report))}</p>`);
  parts.push(
    table(
      ["variable", ...ids.map(escapeHtml), "equal", "deliberate", "note"],
      (m.mustMatch ?? []).map((r) => [
        escapeHtml(r.variable),
        ...ids.map((id) => escapeHtml(r.values[id] ?? "(unset)")),
        r.equal ? "yes" : `<span class="bad">no</span>`,
        r.deliberate ? "yes" : "no",
        escapeHtml(r.note ?? ""),
      ]),
      "mustmatch",
    ),
  );
  return parts.join("\n");
}

/** Render report.html. `chartJsSource` is the Chart.js UMD bundle, inlined verbatim. */
export function renderHtml(data: HtmlData, chartJsSource: string): string {
  const r = data.report;
  const t = r.table;
  const clientData = {
    servers: data.servers,
    metricCharts: data.metricCharts,
    timeSeries: data.timeSeries,
    histograms: data.histograms,
    costChart: costChartData(r.costs),
    latencyChart: latencyChartData(r.latency),
  };
  const body: string[] = [...firstScreenHtml(r), "<hr>", "<h2>Details</h2>"];
  const cs = costSummary(r.costs);
  if (cs)
    body.push(
      "<h3>Cost per query</h3>",
      `<p>${escapeHtml(costSummaryHead(cs))}</p>`,
      costSummaryHtml(cs),
      clientData.costChart ? `<div class="charts"><div class="chart"><canvas id="costs-0"></canvas></div></div>` : "",
      `<p>${escapeHtml("Every cost figure per query, with each side's median: costs.csv, report.json.")} ${escapeHtml(r.costs!.hardware)}</p>`,
    );
  const second = secondRunDetails(r);
  if (second.length)
    body.push("<h3>A second run on this host</h3>", `<pre class="second-run">${escapeHtml(second.join("\n"))}</pre>`);
  body.push(`<p>${escapeHtml(runLine(r))}</p>`, `<p>${escapeHtml(r.durationText)}</p>`);
  if (t && !r.ladder) {
    body.push(
      "<h3>Every cell at a glance</h3>",
      `<p>${escapeHtml(legend(t))}: each cell's estimate (dot) and ${Math.round(t.confidence * 100)}% interval (bar), against the line at 100 and the band 100 ± ${t.marginPct}% (shaded).</p>`,
      `<div class="forest-wrap">${forestSvg(forestOf(t))}</div>`,
      "<h3>Method</h3>",
      ...methodLines(t).map((l) => `<p>${escapeHtml(l)}</p>`),
    );
    const vr = verdictRows(t);
    if (vr.length)
      body.push(
        "<h3>Each cell in figures</h3>",
        `<p>${escapeHtml(`p: the chance reading of one cell; BH q: the same over the table's ${t.method.intervals} cells with an interval (Benjamini–Hochberg).`)}</p>`,
        table(
          [...VERDICT_HEAD].map(escapeHtml),
          vr.map((row) => row.map(escapeHtml)),
          "verdicts",
        ),
      );
    const cn = cellNotes(t);
    if (cn.length) body.push(`<ul class="notes">${cn.map((n) => `<li>${escapeHtml(n)}</li>`).join("")}</ul>`);
  }
  if (r.latency) body.push(...latencyHtml(r.latency, clientData.latencyChart !== null));
  for (const n of r.notes) {
    // The disturbed cells' note lists every cell in one sentence: a table reads better.
    if (r.disturbedCells.length && n.startsWith(disturbedNotePrefix(r.disturbedCells.length, r.disturbance.measured)))
      body.push(disturbedHtml(r));
    else body.push(`<p>${escapeHtml(n)}</p>`);
  }
  body.push(
    "<h2>Servers</h2>",
    table(
      ["id", "server", "version", "image", "package", "storage"],
      r.servers.map((s) =>
        [s.id, s.family, s.version ?? "?", s.image, s.packageVersion ?? "", s.storage].map(escapeHtml),
      ),
    ),
  );
  body.push(
    "<h2>Metric vs threads</h2>",
    `<div class="charts">${data.metricCharts.map((_, i) => `<div class="chart"><canvas id="metric-${i}"></canvas></div>`).join("")}</div>`,
  );
  body.push(
    "<h2>Per-second time series</h2>",
    data.timeSeries.length
      ? `<div class="charts">${data.timeSeries.map((_, i) => `<div class="chart"><canvas id="ts-${i}"></canvas></div>`).join("")}</div>`
      : "<p>No interval reports were recorded.</p>",
  );
  body.push(
    "<h2>Latency histograms</h2>",
    data.histograms.length
      ? `<div class="charts">${data.histograms.map((_, i) => `<div class="chart"><canvas id="hist-${i}"></canvas></div>`).join("")}</div>`
      : "<p>No latency histograms were recorded (run with sysbench --histogram).</p>",
  );
  body.push(configHtml(data.manifest, r), factsHtml(data.manifest));
  // Only these two scripts may run: the page's policy names each by its hash, so no inline script or handler that
  // found its way into the text can (the JSON data element is not a script the browser runs).
  const chartJs = chartJsSource.replace(/<\/script/gi, "<\\/script");
  const policy = [
    "default-src 'none'",
    `script-src ${scriptHash(chartJs)} ${scriptHash(SCRIPT)}`,
    "style-src 'unsafe-inline'",
    "img-src data:",
    "base-uri 'none'",
    "form-action 'none'",
  ].join("; ");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(policy)}">
<title>${escapeHtml(data.title)}</title>
<style>${CSS}</style>
</head>
<body>
${body.filter(Boolean).join("\n")}
<script type="application/json" id="twinbench-data">${scriptJson(clientData)}</script>
<script>${chartJs}</script>
<script>${SCRIPT}</script>
</body>
</html>
`;
}
