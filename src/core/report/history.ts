/**
 * The history's printed form: one line saying what was read, then each cell of the host with its runs, the pooled
 * estimate over runs, the level between runs (τ, I²) and where the next run will land; then the runs that fell
 * outside. Ratios read as in the run's table (numerator / denominator × 100).
 */
import { textTable } from "../base/text-table.ts";
import { MIN_HOSTS_FOR_LEVEL, type HistoryView, type HostLevelView } from "../stats/history-view.ts";
import type { RunReport } from "./model.ts";

/** The one sentence a host with too little history gets, in every front end. */
export const NO_LEVEL_YET =
  "No level between runs has been measured on this host yet: a run on another day may differ by more than its own interval.";

const pct = (logRatio: number) => (Math.exp(logRatio) * 100).toFixed(1);
const range = (lo: number | null, hi: number | null) => (lo === null || hi === null ? "-" : `[${pct(lo)}–${pct(hi)}]`);
const sdPct = (x: number | null) => (x === null ? "-" : `${((Math.exp(x) - 1) * 100).toFixed(1)}%`);

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/**
 * The history view as text lines (no line over 120 characters for names up to 40). `runs: false` leaves out each
 * cell's list of runs (the HTML page draws them instead).
 */
export function renderHistory(v: HistoryView, opts: { runs?: boolean } = {}): string[] {
  const lines: string[] = [];
  const host = v.hosts.find((h) => h.hostKey === v.host);
  const runs = host?.runs ?? 0;
  lines.push(
    host
      ? `History on ${host.cpuModel ?? host.hostKey}: ${runs} run${runs === 1 ? "" : "s"}, ${v.cells.length} cell${v.cells.length === 1 ? "" : "s"}.`
      : v.host && v.hosts.length > 0
        ? "No runs of this host in the history."
        : "No runs in the history.",
  );
  const others = v.hosts.filter((h) => h.hostKey !== v.host);
  const [o] = [...others].sort((a, b) => b.runs - a.runs);
  if (!host && o) {
    const n = others.length;
    lines.push(
      `Runs of ${n} other host${n === 1 ? "" : "s"} are here; the most: ${clip(o.cpuModel ?? o.hostKey, 40)}, ${o.runs} run${o.runs === 1 ? "" : "s"}:`,
      `  twinbench history --host ${clip(o.hostKey, 90)}`,
    );
  }
  const measured = v.cells.filter((c) => c.level.k >= 2);
  if (measured.length === 0) {
    lines.push(NO_LEVEL_YET);
  } else {
    lines.push("");
    const rows = v.cells.map((c) => [
      c.name,
      String(c.level.k),
      c.level.k >= 2 ? `${pct(c.level.pooled)} ${range(c.level.pooledLow, c.level.pooledHigh)}` : "-",
      c.level.tau === null ? "-" : `${sdPct(c.level.tau)} [${sdPct(c.level.tauLow)}–${sdPct(c.level.tauHigh)}]`,
      c.level.i2 === null ? "-" : `${Math.round(c.level.i2 * 100)}%`,
      range(c.level.replicationLow, c.level.replicationHigh),
    ]);
    lines.push(
      ...textTable(rows, {
        head: [["cell", "runs", "over runs (95%)", "between runs", "I²", "next run lands in (95%)"]],
        rule: "-",
        columns: [{}, { align: "right" }],
      }),
    );
    lines.push("");
    lines.push("between runs: the sd of the level that moves from run to run here, beyond each run's own noise.");
    lines.push("I²: its share of the spread between runs.");
    if (v.cells.some((c) => / \(key [0-9a-f]{6}\)$/.test(c.name)))
      lines.push("(key …): runs of one test whose images, config, storage or data differ are kept apart.");
  }
  for (const c of opts.runs === false ? [] : v.cells) {
    lines.push("");
    lines.push(`${c.name}:`);
    const left = new Set(c.level.leftOut ?? []);
    for (const r of c.runs)
      lines.push(
        `  ${r.startedAt.slice(0, 16).replace("T", " ")}  ${r.estimate.toFixed(1)} ${range(Math.log(r.low / 100), Math.log(r.high / 100))}  ${r.runId}${left.has(r.runId) ? "  (left out)" : ""}`,
      );
  }
  if (v.cells.some((c) => c.level.leftOut?.length))
    lines.push(
      "",
      "(left out): a run whose own interval is far wider than the cell's other runs' says little about the level",
      "between runs, and is not counted in it.",
    );
  if (v.outside.length > 0) {
    lines.push("");
    lines.push(`Outside the interval the other runs give them: ${v.outside.join(", ")}.`);
  }
  if (v.byHost) lines.push("", ...hostLevelLines(v.byHost, v.host));
  for (const s of v.skipped) lines.push(`skipped line ${s.line} of ${s.file}:`, `  ${clip(s.problem, 116)}`);
  return lines;
}

/**
 * The report's lines on a second run: where it lands on this host, per cell, from the host's history; or the plain
 * sentence that no level between runs has been measured here. Empty when the report was not given the history.
 */
export function replicationLines(report: Pick<RunReport, "replication" | "table" | "level">): string[] {
  if (report.replication === undefined) return [];
  const level = levelLine(report);
  if (report.replication === null) return [NO_LEVEL_YET, ...level];
  const r = report.replication;
  const rows = (report.table?.rows ?? []).flatMap((row) =>
    row.cells.flatMap((c) => {
      const x = r.cells.get(`${row.test}|${c.threads}`);
      return x
        ? [
            [
              `${row.test} @ ${c.threads}`,
              `[${x.low.toFixed(1)}–${x.high.toFixed(1)}]`,
              `${x.tauPct.toFixed(1)}%`,
              String(x.k),
            ],
          ]
        : [];
    }),
  );
  return [
    ...level,
    `A second run on this host lands here (95%), from ${r.runs} comparable runs of this scenario:`,
    ...textTable(rows, {
      head: [["cell", "next run", "between runs", "runs"]],
      indent: "  ",
      columns: [{}, {}, { align: "right" }, { align: "right" }],
    }),
  ];
}

/** The sentence naming which runs the verdicts speak for, in every front end; empty without a level. */
export function levelLine(report: Pick<RunReport, "level">): string[] {
  const l = report.level;
  if (!l) return [];
  if (l.level === "host")
    return [
      `Verdicts are for runs on this host: intervals include the level between runs (up to ${l.runs} runs; --level run: this run).`,
    ];
  if (l.asked === "host") return ["Verdicts are for this run alone: no level between runs is known for its cells yet."];
  return ["Verdicts are for this run alone (--level run)."];
}

/**
 * The host as a level: each cell on each host (pooled over its runs), then the sd between hosts and where a run on
 * another host lands, or one sentence saying the hosts are too few.
 */
export function hostLevelLines(h: HostLevelView, shown?: string): string[] {
  const label = (x: HostLevelView["hosts"][number]) =>
    `${x.cpuModel ?? x.hostKey}${x.hostKey === shown ? " (above)" : ""}`;
  const rows = h.cells.flatMap((c) =>
    c.perHost.flatMap((p, i) =>
      p
        ? [
            [
              i === c.perHost.findIndex((q) => q) ? c.name : "",
              clip(label(h.hosts[i]), 40),
              String(p.runs),
              `${p.estimate.toFixed(1)} [${p.low.toFixed(1)}–${p.high.toFixed(1)}]`,
            ],
          ]
        : [],
    ),
  );
  const lines = [
    `By host: ${h.hosts.length} hosts read; each cell pooled over each host's runs (95%). --host KEY shows one above.`,
    ...textTable(rows, {
      head: [["cell", "host", "runs", "over its runs"]],
      indent: "  ",
      columns: [{}, {}, { align: "right" }],
    }),
  ];
  const measured = h.cells.filter((c) => c.tau !== null);
  if (measured.length === 0) {
    lines.push(
      `Hosts are too few to estimate a level between hosts (at most ${h.most} have a cell; it needs ${MIN_HOSTS_FOR_LEVEL} or more).`,
    );
    return lines;
  }
  lines.push(
    "",
    "Between hosts (the sd of the level that moves from host to host, beyond each host's own runs):",
    ...textTable(
      measured.map((c) => [
        c.name,
        `${sdPct(c.tau)} [${sdPct(c.tauLow)}–${sdPct(c.tauHigh)}]`,
        c.nextLow === null || c.nextHigh === null ? "-" : `[${c.nextLow.toFixed(1)}–${c.nextHigh.toFixed(1)}]`,
      ]),
      { head: [["cell", "between hosts", "a run on another host lands in (95%)"]], indent: "  " },
    ),
  );
  return lines;
}
