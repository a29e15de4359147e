/**
 * HTML renderer: one self-contained report.html. Tables are static HTML; charts are drawn by Chart.js, whose
 * source the caller passes in (the adapter reads it from node_modules), so this module stays pure and the file
 * loads nothing from the network. After the charts are created the page sets `document.body.dataset.chartsReady`
 * to their number (or `chartsError` to the error message).
 */
import { replicationLines } from "./history.ts";
import { COST_FIGURES, type CostTable } from "../stats/costs.ts";
import { costLines, costValueText, factorText } from "./costs.ts";
import type { RunManifest } from "../model/results.ts";
import { type RatioTable } from "../stats/ratio-model.ts";
import type { RunReport } from "./model.ts";
import { formatBytes } from "../base/units.ts";
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
  // Thread counts come from a results folder like every other figure: escaped as text, never taken for markup.
  const head = ["sysbench test", ...t.threads.map(String)].map(escapeHtml);
  const rows = t.rows.map((r) => {
    const cells = r.cells.map((c) => {
      const st = statusText(c);
      if (st !== null || c.estimate === null) {
        return `<span class="cell status-${escapeHtml(c.status)}" data-verdict="${escapeHtml(c.status)}">${escapeHtml(st ?? STATE_MARKS.missing)}</span>`;
      }
      const ci = intervalText(c) ?? "no interval";
      const title = `${verdictSentence(c, t.marginPct)}; n=${c.n}; median/median ${c.ratio?.toFixed(2) ?? "n/a"}${c.reason ? `; ${c.reason}` : ""}${c.unstable.length ? `; unstable: ${c.unstable.join("; ")}` : ""}`;
      const cls = `cell verdict-${c.verdict} direction-${c.direction} equivalence-${c.equivalence}${c.fdr === "fails" ? " fdr-fails" : ""}`;
      return `<span class="${escapeHtml(cls)}" data-verdict="${escapeHtml(c.verdict)}" data-direction="${escapeHtml(c.direction)}" data-equivalence="${escapeHtml(c.equivalence)}" title="${escapeHtml(title)}"><b>${c.estimate.toFixed(1)}</b> <small>${escapeHtml(ci)}</small> ${escapeHtml(cellMark(c))}</span>`;
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
  const second = replicationLines(r);
  if (second.length)
    body.push("<h2>A second run on this host</h2>", `<pre class="second-run">${escapeHtml(second.join("\n"))}</pre>`);
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
