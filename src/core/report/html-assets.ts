/**
 * The report page's own style sheet and client-side script (the charts it draws from the embedded data), as text
 * that renderHtml inlines.
 */

/** The page's style sheet. */
export const CSS = `
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
export const SCRIPT = `
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
    if (data.latencyChart) {
      // Floating bars: each reading's interval of the plain latency ratio; the line at 1 is "no difference".
      var one = {
        id: "oneLine",
        afterDatasetsDraw: function (ch) {
          if (!ch.options.plugins.oneLine || !ch.options.plugins.oneLine.on) return;
          var y = ch.scales.y.getPixelForValue(1), a = ch.chartArea, c = ch.ctx;
          if (!(y >= a.top && y <= a.bottom)) return;
          c.save();
          c.strokeStyle = "#444";
          c.setLineDash([4, 3]);
          c.beginPath();
          c.moveTo(a.left, y);
          c.lineTo(a.right, y);
          c.stroke();
          c.restore();
        }
      };
      make("latency-0", {
        type: "bar",
        plugins: [one],
        data: { labels: data.latencyChart.labels, datasets: data.latencyChart.datasets.map(function (d, j) {
          var c = palette[j % palette.length];
          return { label: d.label, data: d.data, backgroundColor: c + "99", borderColor: c, borderWidth: 1 };
        }) },
        options: { plugins: { oneLine: { on: true }, title: { display: true, text: data.latencyChart.title } },
          scales: { y: { beginAtZero: false,
            title: { display: true, text: "numerator latency / denominator latency" } } } }
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
