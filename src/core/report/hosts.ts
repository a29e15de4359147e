/**
 * The host-vs-host report (pure): `compare: hosts` runs the same servers and workload on every host; this puts
 * host A / host B * 100 per server (seed 002 in one command), the host facts side by side with the ones that
 * differ, and the server facts (storage, mount options, versions, images) that differ. Also the summary of a
 * sharded run: which host ran what, mixed hosts, lost hosts.
 */
import type { CellRecord, HostFacts, RunManifest } from "../model/results.ts";
import { axes, ratioTableFromSides } from "../stats/ratio.ts";
import { type RatioTable } from "../stats/ratio-model.ts";
import { type Metric } from "../stats/metric.ts";
import { factDifferences, runDifferences } from "../stats/run-differences.ts";
import { renderRatioText } from "./text.ts";
import { textTable } from "../base/text-table.ts";
import { escapeHtml as h, escapeMarkdownCell as esc } from "./escape.ts";
import { markdownRatioTable } from "./markdown.ts";
import { buildRunsSummary, type ExecutionSummary } from "./summary.ts";
import { renderSummaryHtml, renderSummaryMarkdown, renderSummaryText } from "./summary-render.ts";
import { hostFactRows, type FactRow } from "../hosts/facts.ts";
import { shardSummary } from "../hosts/shard.ts";

export interface HostRun {
  id: string;
  engine?: string;
  status: RunManifest["status"] | "unreachable";
  /** Why the host failed (by id in every message). */
  error?: string;
  /** The host's results folder (relative to the run folder). */
  dir?: string;
  manifest?: RunManifest;
  cells?: CellRecord[];
}

export interface HostTable {
  server: string;
  numeratorHost: string;
  denominatorHost: string;
  table: RatioTable;
}

export interface HostsComparison {
  hosts: HostRun[];
  tables: HostTable[];
  facts: FactRow[];
  /** Server and sysbench facts that differ between the first host and another (storage, mount options, images). */
  serverFacts: Array<{ scope: string; field: string; values: Record<string, string | null> }>;
  /** Scenario / pin / config differences between host runs (there should be none: one scenario). */
  differences: string[];
  notes: string[];
  /** The execution summaries side by side, per other host: A = that host, B = the first (as in the ratio tables). */
  summaries: ExecutionSummary[];
}

/** Host A (the first with results) / every other host, per server present on both. */
export function compareHosts(
  runs: readonly HostRun[],
  opts: { metric?: Metric; marginPct?: number; notes?: string[] } = {},
): HostsComparison {
  const withData = runs.filter((r) => r.manifest && r.cells);
  const tables: HostTable[] = [];
  const serverFacts: HostsComparison["serverFacts"] = [];
  const differences: string[] = [];
  const summaries: ExecutionSummary[] = [];
  const base = withData[0];
  if (base) {
    for (const other of withData.slice(1)) {
      const a = base.manifest!;
      const b = other.manifest!;
      const ids = a.scenario.servers.map((s) => s.id).filter((id) => b.scenario.servers.some((s) => s.id === id));
      differences.push(...runDifferences(a, b, ids).map((d) => `${base.id} vs ${other.id}: ${d}`));
      const ax = axes(a, base.cells!);
      const bx = axes(b, other.cells!);
      const tests = [...ax.tests, ...bx.tests.filter((t) => !ax.tests.includes(t))];
      const threads = [...ax.threads, ...bx.threads.filter((t) => !ax.threads.includes(t))];
      for (const server of ids) {
        const table = ratioTableFromSides(
          { id: server, label: `${server}@${base.id}`, records: base.cells!.filter((c) => c.server === server) },
          { id: server, label: `${server}@${other.id}`, records: other.cells!.filter((c) => c.server === server) },
          tests,
          threads,
          {
            metric: opts.metric,
            marginPct: opts.marginPct,
            pairing: "unpaired",
            percentile: a.scenario.workload.percentile ?? 95,
          },
        );
        tables.push({ server, numeratorHost: base.id, denominatorHost: other.id, table });
      }
      summaries.push(
        buildRunsSummary(
          { label: other.id, manifest: b, cells: other.cells! },
          { label: base.id, manifest: a, cells: base.cells! },
          ids,
          [`${other.id} = host ${other.id} (${other.dir ?? "?"}), ${base.id} = host ${base.id} (${base.dir ?? "?"})`],
        ),
      );
      for (const d of factDifferences(a, b, ids)) {
        if (d.scope.startsWith("host ")) continue; // host facts: the side-by-side table below has them all
        if (d.field === "storage details") {
          const diff = storageDetailsDiff(d.base, d.new);
          if (diff)
            serverFacts.push({ scope: d.scope, field: d.field, values: { [base.id]: diff[0], [other.id]: diff[1] } });
          continue;
        }
        serverFacts.push({ scope: d.scope, field: d.field, values: { [base.id]: d.base, [other.id]: d.new } });
      }
    }
  }
  const facts = hostFactRows(withData.map((r) => hostFactsOf(r)).filter((h): h is HostFacts => h !== undefined));
  return { hosts: [...runs], tables, facts, serverFacts, differences, notes: opts.notes ?? [], summaries };
}

/** Storage details name each host's own volume and mount point: those differ by construction, so they are dropped. */
export const PER_HOST_DETAILS = new Set(["volume", "mountpoint", "measuredBy", "dir", "source"]);

function storageDetailsDiff(a: string | null, b: string | null): [string, string] | undefined {
  const parse = (s: string | null): Record<string, unknown> => {
    try {
      return s ? (JSON.parse(s) as Record<string, unknown>) : {};
    } catch {
      return { value: s }; // details that are not JSON: compared as one plain value
    }
  };
  const pa = parse(a);
  const pb = parse(b);
  const keys = [...new Set([...Object.keys(pa), ...Object.keys(pb)])].filter((k) => !PER_HOST_DETAILS.has(k)).sort();
  const differ = keys.filter((k) => JSON.stringify(pa[k]) !== JSON.stringify(pb[k]));
  if (differ.length === 0) return undefined;
  const show = (o: Record<string, unknown>) =>
    differ.map((k) => `${k}=${o[k] === undefined ? "(unset)" : String(o[k])}`).join(", ");
  return [show(pa), show(pb)];
}

function hostFactsOf(r: HostRun): HostFacts | undefined {
  const h = r.manifest?.hosts.find((x) => x.id === r.id) ?? r.manifest?.hosts[0];
  return h ? { ...h, id: r.id } : undefined;
}

function statusLine(r: HostRun): string {
  return `host ${r.id}${r.engine ? ` (${r.engine})` : ""}: ${r.status}${r.dir ? `, results ${r.dir}` : ""}${r.error ? ` - ${r.error}` : ""}`;
}

function factLines(c: HostsComparison): string[] {
  if (c.facts.length === 0) return ["Host facts: none recorded."];
  const ids = Object.keys(c.facts[0]!.values);
  const differ = c.facts.filter((f) => !f.equal && f.field !== "engine");
  const rows = c.facts.map((f) => [
    !f.equal && f.field !== "engine" ? "*" : " ",
    f.field,
    ...ids.map((id) => f.values[id] ?? "?"),
  ]);
  return [
    differ.length ? `Host facts (${differ.length} differ, marked *):` : "Host facts: no differences.",
    ...textTable(rows, { head: [[" ", "", ...ids]], columns: [{}, { gap: " " }] }),
  ];
}

function serverFactLines(c: HostsComparison): string[] {
  if (c.serverFacts.length === 0) return ["Server facts (storage, mount options, versions, images): no differences."];
  return [
    "Server facts that differ:",
    ...c.serverFacts.map(
      (d) =>
        `  ${d.scope} ${d.field}: ${Object.entries(d.values)
          .map(([h, v]) => `${h}=${v ?? "(unset)"}`)
          .join("  ")}`,
    ),
  ];
}

export function renderHostsText(c: HostsComparison): string {
  const lines: string[] = [`Host comparison: ${c.hosts.map((h) => h.id).join(" vs ")}`, ""];
  lines.push(...c.hosts.map(statusLine), "");
  if (c.hosts.some((h) => h.status !== "ok"))
    lines.push("PARTIAL: not every host finished its run; missing cells show as --.", "");
  for (const t of c.tables)
    lines.push(
      `Server ${t.server}: host ${t.numeratorHost} / host ${t.denominatorHost}`,
      "",
      ...renderRatioText(t.table),
      "",
    );
  if (c.tables.length === 0) lines.push("No host-vs-host table: fewer than two hosts have results.", "");
  for (const s of c.summaries) lines.push(renderSummaryText(s));
  lines.push(...factLines(c), "", ...serverFactLines(c));
  if (c.differences.length)
    lines.push("", "The host runs differ in scenario, pins or config:", ...c.differences.map((d) => `  ${d}`));
  if (c.notes.length) lines.push("", ...c.notes.map((n) => `note: ${n}`));
  return lines.join("\n") + "\n";
}

export function renderHostsMarkdown(c: HostsComparison): string {
  const lines: string[] = [`# Host comparison: ${c.hosts.map((h) => `\`${h.id}\``).join(" vs ")}`, ""];
  lines.push(...c.hosts.map((h) => `- ${esc(statusLine(h))}`), "");
  if (c.hosts.some((h) => h.status !== "ok"))
    lines.push("> **PARTIAL**: not every host finished its run; missing cells show as --.", "");
  for (const t of c.tables)
    lines.push(
      `## ${t.server}: host ${t.numeratorHost} / host ${t.denominatorHost}`,
      "",
      ...markdownRatioTable(t.table),
      "",
    );
  if (c.tables.length === 0) lines.push("No host-vs-host table: fewer than two hosts have results.", "");
  for (const s of c.summaries) lines.push(renderSummaryMarkdown(s, { level: 3 }));
  lines.push("## Host facts", "");
  if (c.facts.length) {
    const ids = Object.keys(c.facts[0]!.values);
    lines.push(`| fact | ${ids.join(" | ")} | differs |`, `|:--|${ids.map(() => ":--").join("|")}|:-:|`);
    for (const f of c.facts)
      lines.push(
        `| ${esc(f.field)} | ${ids.map((id) => esc(f.values[id] ?? "?")).join(" | ")} | ${!f.equal && f.field !== "engine" ? "**yes**" : ""} |`,
      );
  } else lines.push("None recorded.");
  lines.push("", "## Server facts that differ", "");
  if (c.serverFacts.length) {
    const ids = [...new Set(c.serverFacts.flatMap((d) => Object.keys(d.values)))];
    lines.push(`| scope | fact | ${ids.join(" | ")} |`, `|:--|:--|${ids.map(() => ":--").join("|")}|`);
    for (const d of c.serverFacts)
      lines.push(`| ${esc(d.scope)} | ${esc(d.field)} | ${ids.map((id) => esc(d.values[id] ?? "")).join(" | ")} |`);
  } else lines.push("None (storage, mount options, versions and images are the same).");
  if (c.differences.length) lines.push("", "## Scenario differences", "", ...c.differences.map((d) => `- ${esc(d)}`));
  if (c.notes.length) lines.push("", "## Notes", "", ...c.notes.map((n) => `- ${esc(n)}`));
  return lines.join("\n") + "\n";
}

/** report-hosts.html: the same content as report-hosts.md, self-contained (no script, nothing loaded). */
export function renderHostsHtml(c: HostsComparison): string {
  const title = `Host comparison: ${c.hosts.map((x) => x.id).join(" vs ")}`;
  const out: string[] = [
    "<!doctype html>",
    `<html lang="en"><head><meta charset="utf-8"><title>${h(title)}</title>`,
    "<style>body{font-family:system-ui,sans-serif;margin:2em;max-width:80em}table{border-collapse:collapse;margin:.5em 0 1em}" +
      "td,th{border:1px solid #ccc;padding:.2em .6em;text-align:left}td.num{text-align:right;font-variant-numeric:tabular-nums}" +
      "tr.derived{background:#f4f7ff}tr.differs{background:#fff4e0}.muted{color:#666}pre{background:#f8f8f8;padding:.6em;overflow-x:auto}</style>",
    "</head><body>",
    `<h1>${h(title)}</h1>`,
    `<ul>${c.hosts.map((x) => `<li>${h(statusLine(x))}</li>`).join("")}</ul>`,
  ];
  if (c.hosts.some((x) => x.status !== "ok"))
    out.push("<p><strong>PARTIAL</strong>: not every host finished its run; missing cells show as --.</p>");
  for (const t of c.tables)
    out.push(
      `<h2>${h(`${t.server}: host ${t.numeratorHost} / host ${t.denominatorHost}`)}</h2>`,
      `<pre>${h(renderRatioText(t.table).join("\n"))}</pre>`,
    );
  if (c.tables.length === 0) out.push("<p>No host-vs-host table: fewer than two hosts have results.</p>");
  for (const s of c.summaries) out.push(renderSummaryHtml(s));
  out.push("<h2>Host facts</h2>");
  if (c.facts.length) {
    const ids = Object.keys(c.facts[0]!.values);
    out.push(
      `<table><thead><tr><th>fact</th>${ids.map((id) => `<th>${h(id)}</th>`).join("")}<th>differs</th></tr></thead><tbody>`,
    );
    for (const f of c.facts) {
      const differs = !f.equal && f.field !== "engine";
      out.push(
        `<tr${differs ? ' class="differs"' : ""}><td>${h(f.field)}</td>${ids.map((id) => `<td>${h(f.values[id] ?? "?")}</td>`).join("")}<td>${differs ? "<strong>yes</strong>" : ""}</td></tr>`,
      );
    }
    out.push("</tbody></table>");
  } else out.push("<p>None recorded.</p>");
  out.push("<h2>Server facts that differ</h2>");
  if (c.serverFacts.length)
    out.push(
      `<ul>${c.serverFacts
        .map(
          (d) =>
            `<li>${h(
              `${d.scope} ${d.field}: ${Object.entries(d.values)
                .map(([k, v]) => `${k}=${v ?? "(unset)"}`)
                .join("  ")}`,
            )}</li>`,
        )
        .join("")}</ul>`,
    );
  else out.push("<p>None (storage, mount options, versions and images are the same).</p>");
  if (c.differences.length)
    out.push("<h2>Scenario differences</h2>", `<ul>${c.differences.map((d) => `<li>${h(d)}</li>`).join("")}</ul>`);
  if (c.notes.length) out.push("<h2>Notes</h2>", `<ul>${c.notes.map((n) => `<li>${h(n)}</li>`).join("")}</ul>`);
  out.push("</body></html>");
  return out.join("\n") + "\n";
}

export interface ShardReportInput {
  runId: string;
  hosts: HostRun[];
  manifest: RunManifest;
  cells: CellRecord[];
  notes?: string[];
}

/** A sharded run's host summary (report-hosts.md): who ran what, mixed hosts, lost hosts and moved cells. */
export function renderShardMarkdown(s: ShardReportInput): string {
  const ran = new Map<string, number>();
  for (const c of s.cells)
    if (c.phase === "measure" && c.status === "ok") ran.set(c.host ?? "?", (ran.get(c.host ?? "?") ?? 0) + 1);
  const lines = [`# Sharded run \`${s.runId}\` over ${s.hosts.length} hosts`, "", `Status: ${s.manifest.status}`, ""];
  if (s.manifest.hostsMixed?.length)
    lines.push(
      "> **MIXED HOSTS**: the hosts' facts differ and sharding was forced (--force); cells measured on different hosts are not strictly comparable:",
      "",
      ...s.manifest.hostsMixed.map((m) => `- ${esc(m)}`),
      "",
    );
  lines.push("| host | planned groups | planned cells | cells ok (ran here) | status |", "|:--|--:|--:|--:|:--|");
  const planned = new Map(shardSummary(s.manifest.cells).map((x) => [x.host, x]));
  for (const h of s.hosts)
    lines.push(
      `| ${h.id} | ${planned.get(h.id)?.groups ?? 0} | ${planned.get(h.id)?.cells ?? 0} | ${ran.get(h.id) ?? 0} | ${esc(h.status + (h.error ? `: ${h.error}` : ""))} |`,
    );
  for (const f of s.manifest.hostFailures ?? []) lines.push("", `- host ${f.host} was lost: ${esc(f.message)}`);
  const facts = hostFactRows(s.manifest.hosts);
  if (facts.length) {
    const ids = Object.keys(facts[0]!.values);
    lines.push(
      "",
      "## Host facts",
      "",
      `| fact | ${ids.join(" | ")} | differs |`,
      `|:--|${ids.map(() => ":--").join("|")}|:-:|`,
    );
    for (const f of facts)
      lines.push(
        `| ${esc(f.field)} | ${ids.map((id) => esc(f.values[id] ?? "?")).join(" | ")} | ${!f.equal && f.field !== "engine" ? "**yes**" : ""} |`,
      );
  }
  if (s.notes?.length) lines.push("", "## Notes", "", ...s.notes.map((n) => `- ${esc(n)}`));
  return lines.join("\n") + "\n";
}
