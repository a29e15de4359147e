/**
 * HTML renderer: one self-contained report.html. Tables are static HTML; charts are drawn by Chart.js, whose
 * source the caller passes in (the adapter reads it from node_modules), so this module stays pure and the file
 * loads nothing from the network. After the charts are created the page sets `document.body.dataset.chartsReady`
 * to their number (or `chartsError` to the error message).
 */
import { COST_FIGURES, costLines, costValueText, factorText, type CostTable } from "../stats/costs.ts";
import type { CellRecord, RunManifest } from "../model/results.ts";
import { measureRecords, metricValue, type Metric, type RatioTable } from "../stats/ratio.ts";
import type { RunReport } from "./model.ts";
import { formatBytes } from "./model.ts";
import {
  TABLE_TEXT,
  VERDICT_HEAD,
  cellMark,
  configIdentityLine,
  figuresLegend,
  intervalText,
  legend,
  partialLine,
  runLine,
  statusText,
  verdictLegend,
  verdictRows,
} from "./text.ts";
import { STATE_MARKS, verdictSentence } from "../model/vocabulary.ts";
import { ladderHtml } from "./ladder-render.ts";
import { forestOf, forestSvg } from "./forest.ts";
import { disturbedNotePrefix } from "../measure/interference.ts";

export interface MetricChart {
  test: string;
  metric: Metric;
  threads: number[];
  series: Array<{ server: string; medians: Array<number | null>; points: Array<{ x: string; y: number }> }>;
}

export interface TimeSeriesChart {
  test: string;
  threads: number;
  field: "qps" | "tps";
  series: Array<{ server: string; repeat: number; warmup: boolean; threads?: number; points: Array<[number, number]> }>;
}

export interface HistogramChart {
  test: string;
  threads: number;
  series: Array<{ server: string; repeat: number; points: Array<[number, number]> }>;
}

/** Everything report.html shows: the ratio table, charts, server and storage facts. Built by {@link buildHtmlData}. */
export interface HtmlData {
  title: string;
  servers: string[];
  metricCharts: MetricChart[];
  timeSeries: TimeSeriesChart[];
  histograms: HistogramChart[];
  report: RunReport;
  manifest: RunManifest;
}

function median(xs: number[]): number | null {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Gather what the charts need from the records (pure). */
export function buildHtmlData(manifest: RunManifest, cells: readonly CellRecord[], report: RunReport): HtmlData {
  const metric: Metric = report.table?.metric ?? "qps";
  const tests = report.table?.rows.map((r) => r.test) ?? [...manifest.scenario.workload.tests];
  const threads = report.table?.threads ?? [...manifest.scenario.workload.threads];
  const servers = manifest.scenario.servers.map((s) => s.id);
  const measured = measureRecords(cells).filter((c) => c.status === "ok" && c.metrics);
  const warmups = cells.filter((c) => c.phase === "warmup" && c.status === "ok" && c.metrics);
  const field: "qps" | "tps" = metric === "tps" ? "tps" : "qps";

  const metricCharts: MetricChart[] = tests.map((test) => ({
    test,
    metric,
    threads,
    series: servers.map((server) => {
      const points: Array<{ x: string; y: number }> = [];
      const medians = threads.map((t) => {
        const vals = measured
          .filter((c) => c.server === server && c.test === test && c.threads === t)
          .map((c) => metricValue(c.metrics, metric))
          .filter((v): v is number => typeof v === "number" && Number.isFinite(v));
        for (const y of vals) points.push({ x: String(t), y });
        return median(vals);
      });
      return { server, medians, points };
    }),
  }));

  const timeSeries: TimeSeriesChart[] = [];
  const histograms: HistogramChart[] = [];
  for (const test of tests) {
    for (const t of threads) {
      const ts: TimeSeriesChart = { test, threads: t, field, series: [] };
      const hist: HistogramChart = { test, threads: t, series: [] };
      for (const server of servers) {
        // The engine warms up once per server × test (at the largest thread count): chart it with that thread
        // count, or with the first one when it ran at a count the table does not show.
        const warm = warmups.filter(
          (c) =>
            c.server === server &&
            c.test === test &&
            (c.threads === t || (!threads.includes(c.threads) && t === threads[0])),
        );
        for (const w of warm) {
          const iv = w.metrics!.intervals ?? [];
          const end = iv.length ? Math.max(...iv.map((s) => s.t)) : 0;
          if (iv.length)
            ts.series.push({
              server,
              repeat: w.repeat,
              warmup: true,
              threads: w.threads,
              points: iv.map((s) => [s.t - end, s[field]]),
            });
        }
        const meas = measured
          .filter((c) => c.server === server && c.test === test && c.threads === t)
          .sort((a, b) => a.repeat - b.repeat);
        for (const m of meas) {
          const iv = m.metrics!.intervals ?? [];
          if (iv.length)
            ts.series.push({ server, repeat: m.repeat, warmup: false, points: iv.map((s) => [s.t, s[field]]) });
          const h = m.metrics!.histogram;
          if (h && h.length) hist.series.push({ server, repeat: m.repeat, points: h.map(([v, n]) => [v, n]) });
        }
      }
      if (ts.series.length) timeSeries.push(ts);
      if (hist.series.length) histograms.push(hist);
    }
  }
  const names = report.ladder
    ? servers.join("/")
    : report.table
      ? `${report.table.numeratorLabel}/${report.table.denominatorLabel}`
      : servers.join("/");
  return {
    title: `${names} sysbench comparison: ${report.scenarioName} (${report.runId})`,
    servers,
    metricCharts,
    timeSeries,
    histograms,
    report,
    manifest,
  };
}

export function escapeHtml(s: unknown): string {
  return String(s ?? "")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

/** JSON that is safe inside a <script> element. */
export function scriptJson(v: unknown): string {
  return JSON.stringify(v)
    .replace(/</g, "\\u003c")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

function table(head: string[], rows: string[][], cls = ""): string {
  return `<table${cls ? ` class="${cls}"` : ""}><thead><tr>${head.map((h) => `<th>${h}</th>`).join("")}</tr></thead><tbody>${rows
    .map((r) => `<tr>${r.map((c) => `<td>${c}</td>`).join("")}</tr>`)
    .join("")}</tbody></table>`;
}

/** The cost-per-query table: one row per cell and figure with the factor, its interval and each side's median. */
function costTableHtml(t: CostTable): string {
  const rows = t.cells.flatMap((c) =>
    c.figures.map((f) =>
      [
        `${c.test} @ ${c.threads}`,
        COST_FIGURES.find((x) => x.key === f.figure)!.label,
        f.status === "ok" ? factorText(f) : "not available",
        costValueText(f.figure, f.numeratorMedian),
        costValueText(f.figure, f.denominatorMedian),
        [f.reason, f.note].filter(Boolean).join("; "),
      ].map(escapeHtml),
    ),
  );
  const head = [
    "cell",
    "per query",
    `${t.numeratorLabel} / ${t.denominatorLabel}`,
    `${t.numeratorLabel} median`,
    `${t.denominatorLabel} median`,
    "note",
  ];
  return table(head.map(escapeHtml), rows, "costs");
}

/** The chart of the per-query costs: per cell, each figure's interval as a floating bar (× 100), side by side. */
export function costChartData(t: CostTable | null): {
  title: string;
  labels: string[];
  datasets: Array<{ label: string; data: Array<[number, number] | null> }>;
} | null {
  if (!t || !t.recorded) return null;
  const cells = t.cells.filter((c) => c.figures.some((f) => f.low !== null && f.high !== null));
  if (!cells.length) return null;
  const datasets = COST_FIGURES.map((fig) => ({
    label: fig.label,
    data: cells.map((c): [number, number] | null => {
      const f = c.figures.find((x) => x.figure === fig.key);
      return f && f.low !== null && f.high !== null ? [f.low, f.high] : null;
    }),
  })).filter((d) => d.data.some((x) => x !== null));
  return {
    title: `Cost per query, ${t.numeratorLabel} / ${t.denominatorLabel} × 100: ${Math.round(t.confidence * 100)}% intervals (above 100: ${t.numeratorLabel} costs more)`,
    labels: cells.map((c) => `${c.test} @ ${c.threads}`),
    datasets,
  };
}

function ratioTableHtml(t: RatioTable): string {
  const head = ["sysbench test", ...t.threads.map(String)];
  const rows = t.rows.map((r) => {
    const cells = r.cells.map((c) => {
      const st = statusText(c);
      if (st !== null || c.estimate === null) {
        return `<span class="cell status-${c.status}" data-verdict="${c.status}">${escapeHtml(st ?? STATE_MARKS.missing)}</span>`;
      }
      const ci = intervalText(c) ?? "no interval";
      const title = `${verdictSentence(c, t.marginPct)}; n=${c.n}; median/median ${c.ratio?.toFixed(2) ?? "n/a"}${c.reason ? `; ${c.reason}` : ""}${c.unstable.length ? `; unstable: ${c.unstable.join("; ")}` : ""}`;
      const cls = `cell verdict-${c.verdict} direction-${c.direction} equivalence-${c.equivalence}${c.fdr === "fails" ? " fdr-fails" : ""}`;
      return `<span class="${cls}" data-verdict="${c.verdict}" data-direction="${c.direction}" data-equivalence="${c.equivalence}" title="${escapeHtml(title)}"><b>${c.estimate.toFixed(1)}</b> <small>${escapeHtml(ci)}</small> ${escapeHtml(cellMark(c))}</span>`;
    });
    return [escapeHtml(r.test), ...cells];
  });
  return table(head, rows, "ratio");
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

const CSS = `
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:1.5rem;color:#222;max-width:1400px}
h1{font-size:1.4rem}h2{font-size:1.15rem;margin-top:2rem;border-bottom:1px solid #ddd}h3{font-size:1rem}
table{border-collapse:collapse;margin:.5rem 0;font-size:.85rem}th,td{border:1px solid #ccc;padding:.25rem .5rem;text-align:left;vertical-align:top}
table.ratio td{text-align:right;white-space:nowrap}table.ratio td:first-child{text-align:left}
.cell{display:inline-block;padding:.1rem .3rem;border-radius:3px}.cell small{color:#555}
.direction-faster{background:#c8f0c8}.direction-slower{background:#f6c6c6}.verdict-faster-within{background:#e6f6e6}.verdict-slower-within{background:#fbe3e3}
.verdict-equivalent{background:#dde8f6}.verdict-inconclusive{background:#eee}.verdict-unknown{background:#fff2b3}.fdr-fails{outline:1px dashed #888}
.status-failed{background:#7a1010;color:#fff}.status-missing,.status-skipped{color:#888}
.partial{background:#fff2b3;padding:.5rem;border:1px solid #e0c000}.bad{color:#b00;font-weight:bold}
.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(420px,1fr));gap:1rem}
.chart{position:relative;height:260px;border:1px solid #eee;padding:.25rem}
.forest-wrap{overflow-x:auto}svg.forest{font-family:system-ui,sans-serif;max-width:100%;height:auto}
pre{white-space:pre-wrap;font-size:.8rem}td{white-space:pre-wrap}
`;

/** The client-side script: reads the embedded data, creates the charts, then flags `chartsReady`. */
const SCRIPT = `
(function () {
  var body = document.body;
  try {
    var data = JSON.parse(document.getElementById("twinbench-data").textContent);
    var palette = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"];
    var color = function (server) { var i = data.servers.indexOf(server); return palette[(i < 0 ? 0 : i) % palette.length]; };
    Chart.defaults.animation = false;
    Chart.defaults.responsive = true;
    Chart.defaults.maintainAspectRatio = false;
    var count = 0;
    var charts = [];
    var make = function (id, config) {
      var el = document.getElementById(id);
      if (!el) return;
      charts.push(new Chart(el, config));
      count++;
    };
    // One legend entry per server: only the dataset marked legend: true is listed, and a click on it shows or
    // hides every dataset of that server (its repeats, its warm-up).
    var serverLegend = {
      labels: { filter: function (item, cd) { return cd.datasets[item.datasetIndex].legend === true; } },
      onClick: function (e, item, lg) {
        var ch = lg.chart;
        var server = ch.data.datasets[item.datasetIndex].server;
        var show = !ch.isDatasetVisible(item.datasetIndex);
        ch.data.datasets.forEach(function (d, j) { if (d.server === server) ch.setDatasetVisibility(j, show); });
        ch.update();
      }
    };
    // The warm-up (t <= 0 on the per-second charts) is a shaded span, not a legend entry.
    var warmupShade = {
      id: "warmupShade",
      beforeDatasetsDraw: function (ch) {
        if (!ch.options.plugins.warmupShade || !ch.options.plugins.warmupShade.on) return;
        var x = ch.scales.x, a = ch.chartArea, zero = x.getPixelForValue(0);
        if (!(zero > a.left)) return;
        var c = ch.ctx;
        c.save();
        c.fillStyle = "rgba(120,120,120,0.12)";
        c.fillRect(a.left, a.top, Math.min(zero, a.right) - a.left, a.bottom - a.top);
        c.fillStyle = "#666";
        c.font = "11px sans-serif";
        c.fillText("warm-up", a.left + 4, a.top + 12);
        c.restore();
      }
    };
    Chart.register(warmupShade);
    var firstOf = function (seen, server) { if (seen[server]) return false; seen[server] = true; return true; };
    data.metricCharts.forEach(function (mc, i) {
      var datasets = [];
      mc.series.forEach(function (s) {
        datasets.push({ type: "line", label: s.server, server: s.server, legend: true, data: s.medians, borderColor: color(s.server), backgroundColor: color(s.server), spanGaps: true });
        datasets.push({ type: "line", label: s.server + " repeats", server: s.server, data: s.points, showLine: false, pointRadius: 3, borderColor: color(s.server), backgroundColor: color(s.server) + "66" });
      });
      make("metric-" + i, {
        type: "line",
        data: { labels: mc.threads.map(String), datasets: datasets },
        options: { plugins: { legend: serverLegend, title: { display: true, text: mc.test + ": " + mc.metric + " vs threads (line: median; dots: repeats)" } },
          scales: { x: { title: { display: true, text: "threads" } }, y: { title: { display: true, text: mc.metric } } } }
      });
    });
    data.timeSeries.forEach(function (ts, i) {
      var seen = {}, measured = {};
      ts.series.forEach(function (s) { if (!s.warmup) measured[s.server] = true; });
      make("ts-" + i, {
        type: "line",
        data: { datasets: ts.series.map(function (s) {
          // A server's entry is its first repeat, or its warm-up when no repeat of it has a series.
          var listed = (!s.warmup || !measured[s.server]) && firstOf(seen, s.server);
          return { label: s.warmup && !listed ? s.server + " warm-up (" + s.threads + " threads)" : s.server, server: s.server, legend: listed,
            data: s.points.map(function (p) { return { x: p[0], y: p[1] }; }),
            borderColor: color(s.server) + (s.warmup ? "88" : ""), backgroundColor: color(s.server), borderWidth: s.warmup ? 1 : 1.25,
            pointRadius: 0 };
        }) },
        options: { plugins: { legend: serverLegend, warmupShade: { on: true },
            title: { display: true, text: ts.test + " @ " + ts.threads + " threads: " + ts.field + " per second, one line a repeat (warm-up shaded, t <= 0)" } },
          scales: { x: { type: "linear", title: { display: true, text: "seconds" } }, y: { title: { display: true, text: ts.field } } } }
      });
    });
    data.histograms.forEach(function (h, i) {
      var seen = {};
      make("hist-" + i, {
        type: "line",
        data: { datasets: h.series.map(function (s) {
          return { label: s.server, server: s.server, legend: firstOf(seen, s.server), data: s.points.map(function (p) { return { x: p[0], y: p[1] }; }),
            borderColor: color(s.server), backgroundColor: color(s.server), borderWidth: 1, stepped: true, pointRadius: 0 };
        }) },
        options: { plugins: { legend: serverLegend, title: { display: true, text: h.test + " @ " + h.threads + " threads: latency histogram, one line a repeat" } },
          scales: { x: { type: "logarithmic", title: { display: true, text: "latency (ms)" } }, y: { title: { display: true, text: "count" } } } }
      });
    });
    if (data.costChart) {
      make("costs-0", {
        type: "bar",
        data: { labels: data.costChart.labels, datasets: data.costChart.datasets.map(function (d, j) {
          return { label: d.label, data: d.data, backgroundColor: palette[j % palette.length] + "99", borderColor: palette[j % palette.length], borderWidth: 1 };
        }) },
        options: { plugins: { title: { display: true, text: data.costChart.title } },
          scales: { y: { title: { display: true, text: "numerator / denominator × 100" } } } }
      });
    }
    // What each chart gives its legend and its plot, in pixels, for the screenshot test.
    charts.forEach(function (ch) {
      var a = ch.chartArea, lg = ch.legend, el = ch.canvas;
      el.dataset.plotWidth = String(Math.round(a.right - a.left));
      el.dataset.plotHeight = String(Math.round(a.bottom - a.top));
      el.dataset.legendWidth = String(Math.round(lg && lg.options.display !== false ? lg.width : 0));
      el.dataset.legendHeight = String(Math.round(lg && lg.options.display !== false ? lg.height : 0));
      el.dataset.legendItems = String(lg && lg.legendItems ? lg.legendItems.length : 0);
    });
    body.dataset.chartsReady = String(count);
  } catch (e) {
    body.dataset.chartsError = String(e && e.message || e);
  }
})();
`;

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
  };
  const partial = partialLine(r);
  const body: string[] = [
    `<h1>${escapeHtml(data.title)}</h1>`,
    partial ? `<p class="partial">${escapeHtml(partial)}</p>` : "",
    `<p>${escapeHtml(runLine(r))}</p>`,
    `<p>${escapeHtml(r.durationText)}</p>`,
  ];
  if (r.ladder) body.push(...ladderHtml(r.ladder, TABLE_TEXT));
  else if (t) {
    body.push(
      "<h2>Every cell at a glance</h2>",
      `<p>${escapeHtml(legend(t))}: each cell's estimate (dot) and ${Math.round(t.confidence * 100)}% interval (bar), against the line at 100 and the equivalence band 100 ± ${t.marginPct}% (shaded), with its verdict.</p>`,
      `<div class="forest-wrap">${forestSvg(forestOf(t))}</div>`,
    );
    body.push(
      "<h2>Ratio table</h2>",
      `<p>${escapeHtml(legend(t))}</p>`,
      `<p>${escapeHtml(figuresLegend(t).replace(/^Above: .*?Below: /, "Each cell: "))}</p>`,
      ratioTableHtml(t),
      `<ul>${verdictLegend(t)
        .map((l) => `<li>${escapeHtml(l)}</li>`)
        .join("")}</ul>`,
    );
    const vr = verdictRows(t);
    if (vr.length) {
      body.push(
        "<h3>Verdicts</h3>",
        `<p>${escapeHtml(`Direction from the interval against 100, equivalence against 100 ± ${t.marginPct}%; BH q: Benjamini–Hochberg over the table's ${t.method.intervals} cells with an interval.`)}</p>`,
        table(
          [...VERDICT_HEAD].map(escapeHtml),
          vr.map((r) => r.map(escapeHtml)),
          "verdicts",
        ),
      );
    }
  }
  if (r.costs?.recorded) {
    body.push(
      "<h2>Cost per query</h2>",
      `<p>${escapeHtml(costLines(r.costs)[0]!)}</p>`,
      costTableHtml(r.costs),
      clientData.costChart ? `<div class="charts"><div class="chart"><canvas id="costs-0"></canvas></div></div>` : "",
      `<p>${escapeHtml(r.costs.hardware)}</p>`,
    );
  }
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
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:">
<title>${escapeHtml(data.title)}</title>
<style>${CSS}</style>
</head>
<body>
${body.filter(Boolean).join("\n")}
<script type="application/json" id="twinbench-data">${scriptJson(clientData)}</script>
<script>${chartJsSource.replace(/<\/script/gi, "<\\/script")}</script>
<script>${SCRIPT}</script>
</body>
</html>
`;
}
