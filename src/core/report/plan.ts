/**
 * `twinbench plan FILE` as printable lines (pure): the cells in order with warm-ups and restores, the estimate,
 * the resolved sysbench argv per test (password redacted), image pins, storage and the config translation summary.
 * Pins and translations come from other modules (the image lock, the config renderer) and are passed in.
 */
import { MAX_LINE, wrap } from "./answer.ts";
import type { Scenario, Storage } from "../model/scenario/schema.ts";
import type { TranslationEntry } from "../model/results.ts";
import { own } from "../model/sysbench/options.ts";
import {
  adaptiveRepeats,
  parseDuration,
  parsePercent,
  plannedInstances,
  plannedRepeats,
} from "../model/scenario/schema.ts";
import { redactArgv, sysbenchArgv, type SysbenchConnection } from "../model/scenario/argv.ts";
import { planRun, type Plan } from "../plan/plan.ts";
import { formatSeconds } from "../base/units.ts";
import { LEGACY_TESTS, resolveTest, testWrites } from "../model/scenario/legacy.ts";
import { textTable } from "../base/text-table.ts";
import { loadBoundWarnings } from "../plan/loadbound.ts";
import { comparisonPairs } from "../model/scenario/pairs.ts";

/** One image lock entry, printed as `name  key=value …`. */
export type ImagePin = { name: string } & Record<string, unknown>;

export interface DescribeExtras {
  file?: string;
  pins?: ImagePin[];
  /** Which Debian mirror image builds use and where it came from (mirror.ts: describeMirrors). */
  mirrors?: string;
  /** Per server id, the config renderer's translation report. */
  translations?: Record<string, TranslationEntry[]>;
  /** Show at most this many cells (default: all). */
  maxCells?: number;
  /** Everything: the time per phase, each test's script, the sysbench argv, the config translation, every cell.
   *  Without it, a summary of at most about 30 lines, none over 120 characters. */
  details?: boolean;
}

/** The connection `plan` shows; the run engine fills in the real one (and a random password). */
export function planConnection(s: Scenario): SysbenchConnection {
  const base = { user: "sbtest", password: "<random>", db: "sbtest" };
  if (s.load.transport === "socket") return { ...base, socket: "/run/mysqld/mysqld.sock" };
  if (s.load.transport === "loopback") return { ...base, host: "127.0.0.1", port: 3306 };
  return { ...base, host: "<server>", port: 3306 };
}

export function describeStorage(st: Storage): string {
  switch (st.kind) {
    case "tmpfs":
      return `tmpfs, ${st.size}`;
    case "volume":
      return `Docker volume${st.keep ? " (kept after the run)" : ""}`;
    case "bind":
      return `bind mount of ${st.path}`;
    case "raid0": {
      const members = st.devices
        ? `devices ${st.devices.join(", ")}`
        : st.loop
          ? `${st.loop.members} loop-backed members of ${st.loop.size}${st.loop.dir ? ` in ${st.loop.dir}` : ""}`
          : "no members";
      // Which builder runs is the host's business (md where /proc/mdstat exists, else btrfs raid0): say both.
      const fs =
        st.fs === "btrfs"
          ? "btrfs raid0"
          : st.fs
            ? `${st.fs} on mdadm (needs the md driver)`
            : "mdadm + xfs where the kernel has md, else btrfs raid0";
      return `RAID 0 over ${members}: ${fs}${st.chunk ? `, chunk ${st.chunk}` : ""}`;
    }
  }
}

export function describePlan(plan: Plan, scenario: Scenario, extras: DescribeExtras = {}): string[] {
  if (!extras.details) return planSummaryLines(plan, scenario, extras);
  return [
    ...planHeaderLines(plan, scenario, extras),
    ...storageLines(plan, scenario),
    ...pinLines(scenario, extras),
    ...testLines(scenario),
    ...argvLines(plan, scenario),
    ...translationLines(scenario, extras),
    ...cellLines(plan, scenario, extras),
  ];
}

/** The first screen of `plan`: the header without the time per phase, storage and resources, the images in one line. */
function planSummaryLines(plan: Plan, scenario: Scenario, extras: DescribeExtras): string[] {
  const clip = (l: string) => (l.length > MAX_LINE ? `${l.slice(0, MAX_LINE - 1)}…` : l);
  const head = planHeaderLines(plan, scenario, extras).filter((l) => !l.startsWith("  ") || l.startsWith("  note:"));
  const wanted = new Set(scenario.servers.map((x) => x.image));
  const pins = (extras.pins ?? []).filter((p) => wanted.has(p.name) || /^sysbench/.test(p.name));
  const images = pins.length
    ? `Images: ${pins.map((p) => `${p.name}${typeof p.version === "string" ? ` (${p.version})` : ""}`).join(", ")}`
    : "Images: (no image lock given)";
  return [
    ...head.flatMap((l) => (/^(Server instances|Order):/.test(l) ? [clip(l)] : wrap(l))),
    ...storageLines(plan, scenario).flatMap((l) => wrap(l)),
    images,
    `Each test's script, the sysbench argv, the config translation and the ${plan.cells.length} cells: plan --details.`,
  ];
}

/** The scenario, its servers and hosts, the workload, the order and the estimate. */
function planHeaderLines(plan: Plan, scenario: Scenario, extras: DescribeExtras): string[] {
  const s = scenario;
  const w = s.workload;
  const e = plan.estimate;
  const out: string[] = [];
  out.push(`Scenario ${s.name}${extras.file ? ` (${extras.file})` : ""}${s.description ? `: ${s.description}` : ""}`);
  const pairs = comparisonPairs(s);
  const ratio =
    typeof s.compare === "object" && "base" in s.compare
      ? `ladder against ${s.compare.base}: ${pairs.map((p) => `${p.numerator} / ${p.denominator}`).join(", ")}`
      : typeof s.compare === "object"
        ? `ratio ${s.compare.numerator} / ${s.compare.denominator}`
        : s.compare
          ? `compare: ${s.compare}`
          : pairs.length
            ? `ratio ${pairs[0].numerator} / ${pairs[0].denominator}`
            : "";
  out.push(`Servers: ${s.servers.map((x) => `${x.id} (${x.image})`).join(", ")}${ratio ? `; ${ratio}` : ""}`);
  if (s.hosts?.length)
    out.push(
      `Hosts: ${s.hosts.map((h) => `${h.id} (${h.engine})`).join(", ")}${s.shard ? "; cells sharded across them" : ""}`,
    );
  const dur =
    w.duration !== undefined && (parseDuration(w.duration) ?? 0) > 0
      ? `${w.duration} per cell`
      : `${w.events} events per cell`;
  const adaptive = adaptiveRepeats(w);
  const reps = plannedRepeats(w);
  out.push(
    `Workload: ${w.tests.length} tests × threads [${w.threads.join(", ")}] × ${reps} repeat${reps === 1 ? "" : "s"}${adaptive ? " (the adaptive minimum)" : ""} × ${s.servers.length} servers = ${plan.cells.length} cells, ${dur}`,
  );
  out.push(...instanceLines(plan, s));
  out.push(`Order: ${orderNote(s, plan.orderSeed)}`);
  out.push(
    `Estimated duration: ${e.approximate ? "about " : ""}${formatSeconds(e.totalSeconds)} (measure ${formatSeconds(e.measureSeconds)}, warm-up ${formatSeconds(e.warmupSeconds)}, set-up ${formatSeconds(e.setupSeconds)})`,
  );
  for (const b of e.breakdown) out.push(`  ${b.host ? `[${b.host}] ` : ""}${b.label}: ${formatSeconds(b.seconds)}`);
  for (const n of e.notes) out.push(`  note: ${n}`);
  return out;
}

/** Storage per server, resources, and the load-bound warnings. */
function storageLines(plan: Plan, scenario: Scenario): string[] {
  const s = scenario;
  const w = s.workload;
  const out: string[] = [];
  out.push("", "Storage:");
  const perServer = s.servers.filter((x) => x.storage);
  if (perServer.length < s.servers.length)
    out.push(`  ${describeStorage(s.storage)}, one per server${perServer.length ? " (except below)" : ""}`);
  for (const x of perServer) out.push(`  ${x.id}: ${describeStorage(x.storage!)}`);
  if (w.fresh === "per-test" && plan.snapshots.length)
    out.push(
      `  fresh: per-test: snapshot after prepare, ${plan.restores.length} restore${plan.restores.length === 1 ? "" : "s"} before write tests`,
    );
  const r = s.resources;
  out.push(
    `Resources: server cpuset ${r.server.cpuset ?? "(any)"}, memory ${r.server.memory ?? "(no limit)"}; load cpuset ${r.load.cpuset ?? "(any)"}${r.load.cpus !== undefined ? `, CPU quota ${r.load.cpus} cores` : ""}${r.load.memory ? `, memory ${r.load.memory}` : ""}; transport ${s.load.transport}`,
  );
  for (const w of loadBoundWarnings(s)) out.push(`  warning: ${w}`);
  return out;
}

/** The image lock's pins, marking those the scenario does not use. */
function pinLines(scenario: Scenario, extras: DescribeExtras): string[] {
  const s = scenario;
  const out: string[] = [];
  out.push("", "Image pins:");
  const wanted = new Set(s.servers.map((x) => x.image));
  const pins = extras.pins ?? [];
  if (!pins.length) out.push("  (no image lock given)");
  for (const p of pins) {
    const rest = Object.entries(p)
      .filter(([k]) => k !== "name")
      .map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`)
      .join(" ");
    out.push(
      `  ${p.name}${wanted.has(p.name) || /^sysbench/.test(p.name) ? "" : " (unused)"}${rest ? `  ${rest}` : ""}`,
    );
  }
  if (extras.mirrors) out.push(`  mirror for image builds: ${extras.mirrors}`);
  return out;
}

/** Each test and the sysbench script it runs. */
function testLines(scenario: Scenario): string[] {
  const s = scenario;
  const w = s.workload;
  const out: string[] = [];
  out.push("", "Tests (sysbench 1.0.20):");
  for (const t of w.tests) {
    const l = own(LEGACY_TESTS, t);
    const writes = testWrites(t, w.scripts) ? ", writes" : "";
    out.push(
      l
        ? `  ${t} → ${l.script} (legacy${l.exact ? "" : ", not exact"}${writes}): ${l.note}`
        : `  ${t}${writes ? ` (${writes.slice(2)})` : ""}`,
    );
  }
  return out;
}

/** The sysbench argv per test (password redacted). */
function argvLines(plan: Plan, scenario: Scenario): string[] {
  const s = scenario;
  const w = s.workload;
  const out: string[] = [];
  out.push("", "sysbench argv per test (password redacted):");
  const conn = planConnection(s);
  const duration = w.duration === undefined ? undefined : parseDuration(w.duration);
  const maxThreads = Math.max(...w.threads);
  const argv = (script: string, command: "prepare" | "run", threads: number) =>
    `sysbench ${redactArgv(
      sysbenchArgv({
        script,
        command,
        workload: w,
        threads,
        durationSeconds: duration,
        events: w.events,
        connection: conn,
        percentile: w.percentile,
        histogram: false,
      }),
    ).join(" ")}`;
  out.push(`  prepare: ${argv("oltp_common", "prepare", Math.min(w.tables, 4))}`);
  // The scenario's own scripts prepare after the stock tables, each when it defines prepare.
  for (const [test, custom] of Object.entries(w.scripts ?? {}))
    if (w.tests.includes(test))
      out.push(
        `  prepare ${test} (if it defines one): ${argv(resolveTest(test, w.scripts)?.script ?? custom.path, "prepare", 1)}`,
      );
  const seen = new Set<string>();
  for (const c of plan.cells) {
    if (seen.has(c.test)) continue;
    seen.add(c.test);
    out.push(`  ${c.test}: ${argv(c.script, "run", maxThreads)}`);
  }
  if (w.threads.length > 1) out.push(`  (--threads is each of ${w.threads.join(", ")})`);
  return out;
}

/** Each server's config translation. */
function translationLines(scenario: Scenario, extras: DescribeExtras): string[] {
  const s = scenario;
  const out: string[] = [];
  out.push("", "Config translation:");
  const tr = extras.translations;
  if (!tr) out.push("  (not rendered)");
  else
    for (const srv of s.servers) {
      const entries = tr[srv.id] ?? [];
      out.push(`  ${srv.id} (${srv.image}):`);
      for (const t of entries) {
        const rendered = t.rendered.length ? t.rendered.join(", ") : "(nothing)";
        out.push(`    ${t.option}: ${t.fate} → ${rendered}${t.reason ? ` — ${t.reason}` : ""}`);
      }
      if (!entries.length) out.push("    (no entries)");
    }
  return out;
}

/** The cells in run order, with what runs before each. */
function cellLines(plan: Plan, scenario: Scenario, extras: DescribeExtras): string[] {
  const s = scenario;
  const out: string[] = [];
  out.push("", `Cells (${plan.cells.length}, in run order):`);
  const rows: string[][] = [
    [
      "#",
      ...(s.hosts?.length ? ["host"] : []),
      "server",
      "test",
      "threads",
      "repeat",
      ...(plan.restarts.length ? ["instance"] : []),
      "before it",
    ],
  ];
  const limit = extras.maxCells ?? plan.cells.length;
  for (const c of plan.cells.slice(0, limit)) {
    const before = [
      ...plan.restarts
        .filter((x) => x.beforeCell === c.index)
        .map((x) => `restart all servers (instance ${x.instance})`),
      ...plan.restores.filter((x) => x.beforeCell === c.index).map(() => "restore snapshot"),
      ...plan.warmups
        .filter((x) => x.beforeCell === c.index)
        .map((x) => `warm-up ${x.seconds}s at ${x.threads} threads`),
    ].join(", ");
    rows.push([
      String(c.index + 1),
      ...(s.hosts?.length ? [c.host ?? ""] : []),
      c.server,
      c.test,
      String(c.threads),
      String(c.repeat),
      ...(plan.restarts.length ? [String(c.instance ?? 0)] : []),
      before,
    ]);
  }
  out.push(...textTable(rows, { indent: "  " }));
  if (limit < plan.cells.length) out.push(`  … ${plan.cells.length - limit} more`);
  return out;
}

/** Adaptive rounds and server instances: how the rounds stop and when instances restart. */
function instanceLines(plan: Plan, scenario: Scenario): string[] {
  const s = scenario;
  const w = s.workload;
  const e = plan.estimate;
  const adaptive = adaptiveRepeats(w);
  const out: string[] = [];
  if (adaptive) {
    const budget = w.budget === undefined ? "no budget" : `a budget of ${w.budget}`;
    const n = plannedInstances(w);
    const per = Math.ceil(adaptive.min / n);
    out.push(
      `Adaptive repeats: rounds of every open cell once per server, ${adaptive.min} to ${adaptive.max} rounds per cell, a cell stops when its interval is within ±${parsePercent(adaptive.precision)}% (after ${adaptive.min} rounds), at ${adaptive.max} rounds, or when the next round would not fit ${budget}.`,
    );
    if (n > 1)
      out.push(
        `Server instances: a fresh instance of every server (restart from the post-prepare snapshot) every ${per} round${per === 1 ? "" : "s"}: ${n} in the first ${adaptive.min} rounds, up to ${Math.ceil(adaptive.max / per)} by round ${adaptive.max} (more rounds also add instances: the level between instances is where the variance is).`,
      );
    // Every cell at max rounds: the same layout with min = max (instances keep their rounds each).
    const most = planRun({
      ...s,
      workload: {
        ...w,
        repeats: { ...adaptive, min: adaptive.max },
        instances: Math.max(1, Math.ceil(adaptive.max / per)),
      },
    });
    out.push(
      `The cells and estimate below are the first ${adaptive.min} rounds (${formatSeconds(e.totalSeconds)}); if every cell needs all ${adaptive.max} rounds: about ${formatSeconds(most.estimate.totalSeconds)}${w.budget !== undefined && most.estimate.totalSeconds > (parseDuration(w.budget) ?? Infinity) ? `, more than the budget: the budget stops the run at ${w.budget}` : ""}.`,
    );
  } else if (plan.restarts.length)
    out.push(
      `Server instances: ${plannedInstances(w)}; every server restarts fresh from the post-prepare snapshot before cell${plan.restarts.length === 1 ? "" : "s"} ${plan.restarts.map((r) => `#${r.beforeCell + 1}${r.host ? ` (${r.host})` : ""}`).join(", ")}, then warms up again`,
    );
  return out;
}

/** What `plan` says about the order of the pairs in a cell. */
export function orderNote(scenario: Pick<Scenario, "order" | "servers" | "workload">, orderSeed?: number): string {
  const n = plannedRepeats(scenario.workload);
  if (scenario.order === "grouped")
    return "grouped (all cells of one server, then the next): drift between servers is not cancelled";
  if (scenario.order === "randomized")
    return `randomized (seed ${orderSeed ?? "?"}): within each test the thread counts and repeats run in a random order, and in each cell a random half of the pairs start with ${scenario.servers[0]?.id ?? "the first server"}`;
  if (scenario.servers.length !== 2)
    return `interleaved (servers back to back per ${adaptiveRepeats(scenario.workload) ? "cell and round" : "test × threads × repeat"}, in the rows of a balanced Latin square: each server in each position once every ${scenario.servers.length} ${adaptiveRepeats(scenario.workload) ? "rounds" : "groups"}, and after each other server equally often)`;
  if (adaptiveRepeats(scenario.workload))
    return "interleaved in rounds: the first server alternates by round in every cell (ABBA over rounds) and by cell within a round, so an order effect cancels over each two rounds";
  if (n % 2 === 0)
    return `interleaved, ABBA inside each cell (${n} repeats: ${Array.from({ length: n }, (_, i) => (i % 2 === 0 ? "AB" : "BA")).join(" ")}): an order effect cancels in every cell`;
  const seq = (start: number) => Array.from({ length: n }, (_, i) => ((i + start) % 2 === 0 ? "AB" : "BA")).join(" ");
  return `interleaved; ${n} repeat${n === 1 ? "" : "s"} is odd, so a cell cannot balance: cells alternate ${seq(0)} and ${seq(1)}, and an order effect cancels only over pairs of cells (use an even count)`;
}
