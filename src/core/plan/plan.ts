/**
 * The run planner (pure): a validated scenario → the ordered cells, the warm-ups and snapshot restores the run
 * engine performs between them, and an estimate of the run's duration.
 *
 * Order `interleaved` (default). The measured cells form groups, one per (test, threads, repeat), enumerated
 * test-major: for each test, for each thread count, for each repeat. Each group runs every server back to back.
 * With two servers A, B the order is set inside each cell (test × threads), by repeat: repeat 1 runs A then B,
 * repeat 2 B then A, and so on (AB BA = ABBA), so with an even count both servers go first equally often in every
 * cell and a linear drift (thermal, page cache, background work) or an order effect cancels out of the cell's
 * ratio. An odd count (1 included) cannot balance inside a cell: its extra pair starts with A in even cells and
 * with B in odd cells (cells counted per host), so the imbalance cancels over pairs of cells instead. With n > 2
 * servers, group k (counted per host) runs row k of a balanced Latin square (serverOrder: each server in each
 * position once every n groups, after each other server equally often); adaptive rounds do the same per cell.
 * Order `randomized`: within each test, the (threads, repeat) groups run in a seeded random order, and in each
 * cell a seeded random half of the pairs start with A (for an odd count the extra pair is random too). The seed is
 * `orderSeed`, else one derived from the scenario name; the plan carries it.
 * Order `grouped`: every cell of the first server (test, threads, repeat), then the next server.
 *
 * Server instances (`workload.instances` N > 1, default 2 for adaptive repeats): the repeats split into N contiguous
 * blocks and the plan runs instance-block-major (every cell of instance 0, then instance 1, …; the order rules
 * above apply within). Before the first cell of each later instance every server is restarted fresh from the
 * post-prepare snapshot (so the snapshot is taken whenever N > 1), then warmed up again.
 *
 * Adaptive repeats (`repeats: { min, max, precision }`): the plan lays out the first `min` rounds (each round every
 * cell once per server, see adaptiveRoundCells); the adaptive scheduler (adaptive.ts) decides the rest.
 *
 * Warm-up policy: before a server's first measured cell of each test, the engine runs one warm-up of
 * `workload.warmup` seconds at that test's highest thread count (none when warmup is 0). Its result is kept and
 * marked `phase: warmup`.
 *
 * `fresh: per-test`: right after prepare each server's data dir is snapshotted; before each server's first cell of
 * every write test (see WRITE_SCRIPTS) the engine restores it (then warms up, as above).
 *
 * Hosts: with `hosts` and no `shard`, every host runs the whole plan (hosts run in parallel). With `shard: true`,
 * group k goes to host k mod h, and each host keeps the interleaved order among its own groups.
 */
import { InputError } from "../base/errors.ts";
import type { Cell, CellRecord } from "../model/results.ts";
import { seededRandom, seedFromString, shuffled } from "../base/random.ts";
import {
  adaptiveRepeats,
  parseDuration,
  plannedInstances,
  plannedRepeats,
  trimSeconds,
  type Scenario,
} from "../model/scenario/schema.ts";
import { resolveTest, testWrites } from "../model/scenario/legacy.ts";
import { isWriteTest } from "../model/sysbench/options.ts";
import { DEFAULT_SETUP_COSTS, type SetupCosts } from "../model/setup-costs.ts";

/** A data-moving cost for a server holding `rows` rows: its fixed part plus its part per million rows. */
export function sizedSeconds(fixed: number, perMillionRows: number, rows: number): number {
  return fixed + perMillionRows * (Math.max(0, rows) / 1e6);
}

export interface WarmupStep {
  server: string;
  test: string;
  script: string;
  threads: number;
  seconds: number;
  /** Index of the measured cell it precedes. */
  beforeCell: number;
  host?: string;
}

export interface RestoreStep {
  server: string;
  test: string;
  beforeCell: number;
  host?: string;
}

/** Before cell `beforeCell`, every server is restarted fresh from the post-prepare snapshot (a new instance). */
export interface RestartStep {
  instance: number;
  beforeCell: number;
  host?: string;
}

export interface EstimateItem {
  label: string;
  seconds: number;
  host?: string;
}

export interface PlanEstimate {
  /** Wall time: hosts run in parallel, so the longest host's total. */
  totalSeconds: number;
  measureSeconds: number;
  warmupSeconds: number;
  setupSeconds: number;
  breakdown: EstimateItem[];
  /** True when some cells are bounded by events, timed at a rough rate (eventsPerSecond). */
  approximate: boolean;
  notes: string[];
}

/** A scenario's plan: the cells in run order, warm-ups, restores and the time estimate. */
export interface Plan {
  cells: Cell[];
  /** The seed of `order: randomized` (absent for the other orders). */
  orderSeed?: number;
  warmups: WarmupStep[];
  restores: RestoreStep[];
  /** Server instance restarts (workload.instances > 1), in run order. */
  restarts: RestartStep[];
  /** Servers whose data dir is snapshotted after prepare (fresh: per-test with a write test, or instances > 1). */
  snapshots: string[];
  estimate: PlanEstimate;
}

interface Group {
  test: string;
  script: string;
  threads: number;
  repeat: number;
  instance?: number;
}

/**
 * Does the first server go first in this pair? Repeat r (1-based) of the cell with index `cell` (0-based, per host)
 * out of `repeats`: alternating by repeat (ABBA), and for an odd count starting with the other server in odd cells.
 */
export function firstGoesFirst(cell: number, repeat: number, repeats: number): boolean {
  const shift = repeats % 2 === 1 ? cell : 0;
  return (repeat - 1 + shift) % 2 === 0;
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

/**
 * The rows of a Williams design (a balanced Latin square; E. J. Williams, 1949) for n servers, as index lists:
 * n rows for even n, 2n for odd n (the square and its mirror). Every n consecutive rows starting at 0 or n form a
 * Latin square, so each server runs in each position once; over all the rows each server also runs right after
 * each other server equally often, so a carry-over from the server before (its cache, I/O or heat) cancels too.
 * n = 2 gives AB, BA: ABBA.
 */
export function williamsRows(n: number): number[][] {
  if (n <= 0) return [[]];
  const first = Array.from({ length: n }, (_, j) => (j === 0 ? 0 : j % 2 === 1 ? (j + 1) / 2 : n - j / 2));
  const rows = Array.from({ length: n }, (_, i) => first.map((a) => (a + i) % n));
  return n % 2 === 0 ? rows : [...rows, ...rows.map((r) => [...r].reverse())];
}

/**
 * The servers' order in interleaved group (or round) k: ABBA for two; for n > 2, a row of a Williams design
 * (williamsRows) — the balanced form of the interleaving that randomized multiple interleaved trials use (A. Abedi
 * and T. Brecht, "Conducting Repeatable Experiments in Highly Variable Cloud Computing Environments", ICPE 2017).
 * Groups 0..n−1 take the rows of the first square, shifted by `shift` (a cell's index, so the cells of one round
 * start with different servers), groups n..2n−1 the mirror square's (odd n), and so on: every n groups from 0
 * put each server in each position once, and every 2n groups (n for even n) put each server right after each other
 * server equally often.
 */
export function serverOrder(servers: readonly string[], k: number, shift = 0): string[] {
  const n = servers.length;
  if (n === 2) return k % 2 === 0 ? [servers[0], servers[1]] : [servers[1], servers[0]];
  if (n === 0) return [];
  const rows = williamsRows(n);
  const square = Math.floor(k / n) % (rows.length / n);
  return rows[square * n + ((k + shift) % n)].map((i) => servers[i]);
}

export function cellKey(c: Pick<Cell, "server" | "test" | "threads" | "repeat" | "host">): string {
  return `${c.host ? `${c.host}/` : ""}${c.server}/${c.test}/${c.threads}/${c.repeat}`;
}

/**
 * Refuse what the run engine cannot run: adaptive repeats across several hosts (each host would decide its own
 * rounds). Called before anything is created (and by planRun).
 */
export function assertRunnable(scenario: Pick<Scenario, "workload" | "hosts">): void {
  const adaptive = adaptiveRepeats(scenario.workload);
  if (!adaptive || (scenario.hosts?.length ?? 0) <= 1) return;
  throw new InputError(
    `workload.repeats ${JSON.stringify(adaptive)} asks for adaptive repeats on ${scenario.hosts!.length} hosts, which twinbench cannot run`,
    {
      code: "ADAPTIVE_HOSTS",
      hint: `run the adaptive scenario on one host, or give a fixed count (workload.repeats: ${adaptive.min})`,
    },
  );
}

/**
 * The 0-based server instance of repeat (or round) `repeat`; undefined when the run has one instance.
 * Fixed repeats R over N instances: N contiguous blocks, repeat r in block floor((r − 1)·N / R).
 * Adaptive repeats: a new instance every ceil(min / N) rounds, for as many rounds as the run takes, so rounds
 * beyond `min` also add instances: the level between instances is where most of the variance is, and more pairs
 * inside one instance would not narrow it.
 */
export function instanceOf(w: Pick<Scenario["workload"], "repeats" | "instances">, repeat: number): number | undefined {
  const n = plannedInstances(w);
  if (n <= 1) return undefined;
  const adaptive = adaptiveRepeats(w);
  if (adaptive) return Math.floor((repeat - 1) / Math.ceil(adaptive.min / n));
  return Math.floor(((repeat - 1) * n) / plannedRepeats(w));
}

/** A cell of an adaptive run, as the scheduler tracks it: test × threads (× host). */
export interface CellId {
  test: string;
  threads: number;
}

/**
 * The cells of adaptive round `round` (1-based) over the open cells, in scenario order (test-major), each cell's
 * servers back to back. Two servers: the pair order alternates by round (ABBA over rounds), starting with the other
 * server in every other cell so that each round is balanced too; `order: randomized` draws the first server of
 * each pair of rounds per cell from the seed and swaps it in the second round of the pair, and shuffles the cells
 * of a round within each test. Keys carry the round as the repeat number.
 */
export function adaptiveRoundCells(scenario: Scenario, round: number, open: readonly CellId[], firstIndex = 0): Cell[] {
  const w = scenario.workload;
  const servers = scenario.servers.map((s) => s.id);
  const isOpen = (test: string, threads: number) => open.some((c) => c.test === test && c.threads === threads);
  const all: Array<CellId & { k: number }> = [];
  for (const test of w.tests) for (const threads of w.threads) all.push({ test, threads, k: all.length });
  let list = all.filter((c) => isOpen(c.test, c.threads));
  const seed = scenario.order === "randomized" ? (scenario.orderSeed ?? seedFromString(scenario.name)) : undefined;
  if (seed !== undefined) {
    const rand = seededRandom((seed + round * 7919) >>> 0);
    list = w.tests.flatMap((t) =>
      shuffled(
        list.filter((c) => c.test === t),
        rand,
      ),
    );
  }
  const instance = instanceOf(w, round);
  const cells: Cell[] = [];
  for (const c of list) {
    const script = resolveTest(c.test)?.script ?? c.test;
    let order: string[];
    if (servers.length !== 2 && seed !== undefined)
      order = shuffled(servers, seededRandom((seed + c.k * 104729 + round * 1299709) >>> 0));
    else if (servers.length !== 2) order = serverOrder(servers, round - 1, c.k);
    else if (seed !== undefined) {
      const aFirst = seededRandom((seed + c.k * 104729 + Math.floor((round - 1) / 2) * 1299709) >>> 0)() < 0.5;
      order = aFirst === ((round - 1) % 2 === 0) ? servers : [servers[1], servers[0]];
    } else order = (round - 1 + c.k) % 2 === 0 ? servers : [servers[1], servers[0]];
    for (const server of order) {
      const base = {
        server,
        test: c.test,
        script,
        threads: c.threads,
        repeat: round,
        ...(instance !== undefined ? { instance } : {}),
      };
      cells.push({ index: firstIndex + cells.length, key: cellKey(base), ...base });
    }
  }
  return cells;
}

/**
 * The cells a resumed run still has to run, from the plan and the records of the run so far. A cell is done when
 * its last attempt is ok. With server instances a pair runs whole on one instance: the resumed run's servers are
 * new processes, so a pair of which one side is done runs again entirely, and the remaining cells move to instance
 * numbers above every recorded one (the cut instance included), so no two processes share an instance index.
 */
export function resumeTodo(cells: readonly Cell[], previous: readonly CellRecord[]): Cell[] {
  const last = new Map<string, CellRecord["status"]>();
  for (const r of previous) if (r.phase === "measure") last.set(r.key, r.status);
  const done = (c: Cell) => last.get(c.key) === "ok";
  if (!cells.some((c) => c.instance !== undefined)) return cells.filter((c) => !done(c));
  const pairKey = (c: Cell) => `${c.host ?? ""}\u0000${c.test}\u0000${c.threads}\u0000${c.repeat}`;
  const open = new Set(cells.filter((c) => !done(c)).map(pairKey));
  const todo = cells.filter((c) => open.has(pairKey(c)));
  const recorded = previous.map((r) => r.instance).filter((i): i is number => i !== undefined);
  if (!recorded.length || !todo.length) return todo;
  const offset = Math.max(0, Math.max(...recorded) + 1 - Math.min(...todo.map((c) => c.instance ?? 0)));
  return todo.map((c) => (c.instance === undefined ? c : { ...c, instance: c.instance + offset }));
}

export interface PlanOptions {
  setupCosts?: Partial<SetupCosts>;
}

/**
 * The plan of a scenario, starting nothing: every cell in run order (servers interleaved ABBA per test × threads
 * × repeat, or grouped), the warm-ups, restores and instance restarts, and a time estimate. With server instances
 * the cells run instance-block-major: every cell of instance 0, then of instance 1, and so on. An adaptive
 * scenario's plan is its first `min` rounds. `setupCosts` replaces the default per-phase costs with measured ones.
 *
 * @example
 * ```ts
 * const plan = planRun(scenario);
 * console.log(plan.cells.length, plan.estimate.totalSeconds);
 * ```
 */
export function planRun(scenario: Scenario, opts: PlanOptions = {}): Plan {
  const costs: SetupCosts = { ...DEFAULT_SETUP_COSTS, ...opts.setupCosts };
  const w = scenario.workload;
  assertRunnable(scenario);
  const repeats = plannedRepeats(w);
  const servers = scenario.servers.map((s) => s.id);
  const groups: Group[] = [];
  for (const test of w.tests) {
    const script = resolveTest(test)?.script ?? test;
    for (const threads of w.threads)
      for (let repeat = 1; repeat <= repeats; repeat++)
        groups.push({ test, script, threads, repeat, instance: instanceOf(w, repeat) });
  }
  // Instance-block-major: a stable sort keeps the test-major order inside each instance.
  groups.sort((x, y) => (x.instance ?? 0) - (y.instance ?? 0));
  const instances = [...new Set(groups.map((g) => g.instance))];
  const orderSeed = scenario.order === "randomized" ? (scenario.orderSeed ?? seedFromString(scenario.name)) : undefined;

  // Which host runs which groups.
  const hostIds = (scenario.hosts ?? []).map((h) => h.id);
  const perHost: Array<{ host?: string; groups: Group[] }> = [];
  if (hostIds.length === 0) perHost.push({ groups });
  else if (scenario.shard)
    hostIds.forEach((host, h) => perHost.push({ host, groups: groups.filter((_, k) => k % hostIds.length === h) }));
  else for (const host of hostIds) perHost.push({ host, groups });

  const cells: Cell[] = [];
  const warmups: WarmupStep[] = [];
  const restores: RestoreStep[] = [];
  const restarts: RestartStep[] = [];
  const freshPerTest = w.fresh === "per-test";
  const anyWrite = w.tests.some(testWrites);
  const warmupSeconds = parseDuration(w.warmup) ?? 0;
  const maxThreads = Math.max(...w.threads);

  for (const { host, groups: hg } of perHost) {
    const ordered: Array<Omit<Cell, "index" | "key">> = [];
    const mk = (server: string, g: Group) => ({
      server,
      test: g.test,
      script: g.script,
      threads: g.threads,
      repeat: g.repeat,
      ...(g.instance !== undefined ? { instance: g.instance } : {}),
      ...(host ? { host } : {}),
    });
    if (adaptiveRepeats(w)) {
      const open = w.tests.flatMap((test) => w.threads.map((threads) => ({ test, threads })));
      for (let r = 1; r <= repeats; r++)
        for (const c of adaptiveRoundCells(scenario, r, open)) ordered.push({ ...c, ...(host ? { host } : {}) });
    } else if (scenario.order === "grouped") {
      for (const inst of instances)
        for (const server of servers) for (const g of hg) if (g.instance === inst) ordered.push(mk(server, g));
    } else if (scenario.order === "randomized") {
      const rand = seededRandom((orderSeed! + (host ? seedFromString(host) : 0)) >>> 0);
      // Per cell, a balanced random set of the repeats that start with the first server.
      const firsts = new Map<string, Set<number>>();
      for (const g of hg) {
        const k = `${g.test}\u0000${g.threads}`;
        if (firsts.has(k)) continue;
        const reps = hg.filter((x) => x.test === g.test && x.threads === g.threads).map((x) => x.repeat);
        const half = Math.floor(reps.length / 2) + (reps.length % 2 === 1 && rand() < 0.5 ? 1 : 0);
        firsts.set(k, new Set(shuffled(reps, rand).slice(0, half)));
      }
      for (const inst of instances) {
        for (const test of w.tests) {
          for (const g of shuffled(
            hg.filter((x) => x.test === test && x.instance === inst),
            rand,
          )) {
            const aFirst = firsts.get(`${g.test}\u0000${g.threads}`)!.has(g.repeat);
            const order =
              servers.length === 2 ? (aFirst ? servers : [servers[1], servers[0]]) : shuffled(servers, rand);
            for (const server of order) ordered.push(mk(server, g));
          }
        }
      }
    } else if (servers.length === 2) {
      const cellIndex = new Map<string, number>();
      for (const g of hg) {
        const k = `${g.test}\u0000${g.threads}`;
        if (!cellIndex.has(k)) cellIndex.set(k, cellIndex.size);
        const order = firstGoesFirst(cellIndex.get(k)!, g.repeat, repeats) ? servers : [servers[1], servers[0]];
        for (const server of order) ordered.push(mk(server, g));
      }
    } else {
      hg.forEach((g, k) => {
        for (const server of serverOrder(servers, k)) ordered.push(mk(server, g));
      });
    }
    const warmed = new Set<string>();
    const seenTest = new Set<string>();
    const seenServer = new Set<string>();
    let current: number | undefined = ordered[0]?.instance;
    for (const c of ordered) {
      const index = cells.length;
      // A new instance: every server restarts from the post-prepare snapshot, so its data is fresh and it is cold.
      if (c.instance !== current) {
        current = c.instance;
        restarts.push({ instance: c.instance ?? 0, beforeCell: index, ...(host ? { host } : {}) });
      }
      const st = `${c.server}\u0000${c.test}\u0000${c.instance ?? 0}`;
      const si = `${c.server}\u0000${c.instance ?? 0}`;
      const firstOfInstance = !seenServer.has(si);
      seenServer.add(si);
      if (!seenTest.has(st)) {
        seenTest.add(st);
        const freshAlready = (c.instance ?? 0) > 0 && firstOfInstance;
        if (freshPerTest && isWriteTest(c.script) && !freshAlready)
          restores.push({ server: c.server, test: c.test, beforeCell: index, ...(host ? { host } : {}) });
      }
      if (warmupSeconds > 0 && !warmed.has(st)) {
        warmed.add(st);
        warmups.push({
          server: c.server,
          test: c.test,
          script: c.script,
          threads: maxThreads,
          seconds: warmupSeconds,
          beforeCell: index,
          ...(host ? { host } : {}),
        });
      }
      cells.push({ index, key: cellKey(c), ...c });
    }
  }

  const snapshots = (freshPerTest && anyWrite) || plannedInstances(w) > 1 ? servers : [];
  const estimate = estimatePlan(
    scenario,
    costs,
    { cells, warmups, restores, restarts, snapshots },
    perHost.map((p) => p.host),
  );
  return { cells, ...(orderSeed !== undefined ? { orderSeed } : {}), warmups, restores, restarts, snapshots, estimate };
}

function estimatePlan(
  s: Scenario,
  costs: SetupCosts,
  plan: Pick<Plan, "cells" | "warmups" | "restores" | "restarts" | "snapshots">,
  hosts: Array<string | undefined>,
): PlanEstimate {
  const w = s.workload;
  // workload.trim: each measured cell runs that much longer.
  const duration = w.duration === undefined ? 0 : (parseDuration(w.duration) ?? 0) + trimSeconds(w);
  const byEvents = !(duration > 0) && w.events !== undefined;
  const cellSeconds = byEvents ? (w.events ?? 0) / costs.eventsPerSecond : duration;
  const nServers = s.servers.length;
  const images = new Set(s.servers.map((x) => x.image)).size + 1; // + the sysbench image
  const rows = w.tables * w.tableSize;
  const f = (n: number) => Math.round(n * 10) / 10;

  const breakdown: EstimateItem[] = [];
  const totals: number[] = [];
  let measureAll = 0;
  let warmAll = 0;
  let setupAll = 0;
  for (const host of hosts) {
    const on = <T extends { host?: string }>(xs: T[]) => xs.filter((x) => x.host === host);
    const cells = on(plan.cells).length;
    const warmups = on(plan.warmups);
    const restores = on(plan.restores).length;
    const restarts = on(plan.restarts).filter((x) => x.beforeCell > 0 || x.instance > 0).length;
    const h = host ? { host } : {};
    const items: EstimateItem[] = [
      {
        label: `image checks (${images} × ${costs.imageCheckSeconds} s)`,
        seconds: images * costs.imageCheckSeconds,
        ...h,
      },
      {
        label: `server start and readiness (${nServers} × ${costs.serverStartSeconds} s)`,
        seconds: nServers * costs.serverStartSeconds,
        ...h,
      },
      {
        label: `prepare (${nServers} × ${w.tables} tables × ${w.tableSize} rows at ${costs.prepareRowsPerSecond} rows/s)`,
        seconds: f((nServers * rows) / costs.prepareRowsPerSecond),
        ...h,
      },
    ];
    const raids = s.servers.filter((x) => (x.storage ?? s.storage).kind === "raid0").length;
    if (raids)
      items.push({
        label: `RAID 0 set-up (${raids} × ${costs.raidSetupSeconds} s)`,
        seconds: raids * costs.raidSetupSeconds,
        ...h,
      });
    const prewarm = f(sizedSeconds(costs.prewarmSeconds, costs.prewarmSecondsPerMillionRows, rows));
    if (w.prewarm) items.push({ label: `prewarm (${nServers} × ${prewarm} s)`, seconds: nServers * prewarm, ...h });
    const snapshot = f(sizedSeconds(costs.snapshotSeconds, costs.snapshotSecondsPerMillionRows, rows));
    if (plan.snapshots.length)
      items.push({
        label: `snapshots (${plan.snapshots.length} × ${snapshot} s)`,
        seconds: plan.snapshots.length * snapshot,
        ...h,
      });
    if (restores) {
      // Every restore is prewarmed like after prepare (src/app/run/servers.ts restartWarm).
      const each = f(
        sizedSeconds(costs.restoreSeconds, costs.restoreSecondsPerMillionRows, rows) + (w.prewarm ? prewarm : 0),
      );
      items.push({
        label: `snapshot restores (${restores} × ${each} s${w.prewarm ? ": restore, start, prewarm" : ""})`,
        seconds: restores * each,
        ...h,
      });
    }
    if (restarts) {
      const each = f(sizedSeconds(costs.instanceRestartSeconds, costs.instanceRestartSecondsPerMillionRows, rows));
      items.push({
        label: `instance restarts (${restarts} × ${nServers} servers × ${each} s: restore, start${w.prewarm ? ", prewarm" : ""})`,
        seconds: restarts * nServers * each,
        ...h,
      });
    }
    const runs = cells + warmups.length;
    items.push({
      label: `sysbench start-up (${runs} runs × ${Math.round(costs.cellOverheadSeconds * 100) / 100} s)`,
      seconds: runs * costs.cellOverheadSeconds,
      ...h,
    });
    items.push({
      label: `teardown (${nServers} × ${costs.teardownSeconds} s)`,
      seconds: nServers * costs.teardownSeconds,
      ...h,
    });
    const setup = items.reduce((a, b) => a + b.seconds, 0);
    const warm = warmups.reduce((a, b) => a + b.seconds, 0);
    const measure = f(cells * cellSeconds);
    if (warmups.length)
      items.push({ label: `warm-up (${warmups.length} × ${warmups[0].seconds} s)`, seconds: warm, ...h });
    items.push({
      label: byEvents
        ? `measure (${cells} cells × ${w.events} events at ~${costs.eventsPerSecond} events/s)`
        : `measure (${cells} cells × ${duration} s)`,
      seconds: measure,
      ...h,
    });
    breakdown.push(...items);
    totals.push(setup + warm + measure);
    measureAll = Math.max(measureAll, measure);
    warmAll = Math.max(warmAll, warm);
    setupAll = Math.max(setupAll, setup);
  }
  const notes: string[] = [];
  if (byEvents)
    notes.push(`cells end after ${w.events} events; their time is a guess at ~${costs.eventsPerSecond} events/s`);
  if (hosts.length > 1) notes.push(`${hosts.length} hosts run in parallel: the total is the longest host's`);
  return {
    totalSeconds: f(Math.max(0, ...totals)),
    measureSeconds: measureAll,
    warmupSeconds: warmAll,
    setupSeconds: f(setupAll),
    breakdown,
    approximate: byEvents,
    notes,
  };
}
