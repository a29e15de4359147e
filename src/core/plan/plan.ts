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
import type { Cell } from "../model/results.ts";
import { seedFromString } from "../base/random.ts";
import {
  adaptiveRepeats,
  parseDuration,
  plannedInstances,
  plannedRepeats,
  type Scenario,
} from "../model/scenario/schema.ts";
import { resolveTest, testWrites } from "../model/scenario/legacy.ts";
import { DEFAULT_SETUP_COSTS, type SetupCosts } from "../model/setup-costs.ts";
import { type PlanEstimate, estimatePlan } from "./estimate.ts";
import { type PlanGroup, orderedCells } from "./order.ts";
import { instanceOf, cellKey } from "./cells.ts";

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
  const groups: PlanGroup[] = [];
  for (const test of w.tests) {
    const script = resolveTest(test, w.scripts)?.script ?? test;
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
  const perHost: Array<{ host?: string; groups: PlanGroup[] }> = [];
  if (hostIds.length === 0) perHost.push({ groups });
  else if (scenario.shard)
    hostIds.forEach((host, h) => perHost.push({ host, groups: groups.filter((_, k) => k % hostIds.length === h) }));
  else for (const host of hostIds) perHost.push({ host, groups });

  const cells: Cell[] = [];
  const warmups: WarmupStep[] = [];
  const restores: RestoreStep[] = [];
  const restarts: RestartStep[] = [];
  const freshPerTest = w.fresh === "per-test";
  const anyWrite = w.tests.some((t) => testWrites(t, w.scripts));
  const warmupSeconds = parseDuration(w.warmup) ?? 0;
  const maxThreads = Math.max(...w.threads);

  for (const { host, groups: hg } of perHost) {
    const ordered = orderedCells(scenario, hg, { host, servers, instances, repeats, orderSeed });
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
        if (freshPerTest && testWrites(c.test, w.scripts) && !freshAlready)
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
