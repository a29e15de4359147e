/**
 * The order of a plan's cells (pure): ABBA pairs, the rows of a balanced Latin square for more servers, seeded
 * random orders, and the cells of an adaptive round (see the run planner's module comment in plan.ts).
 */
import { type Scenario, adaptiveRepeats } from "../model/scenario/schema.ts";
import type { Cell } from "../model/results.ts";
import { seedFromString, seededRandom, shuffled } from "../base/random.ts";
import { instanceOf, cellKey } from "./cells.ts";
import { resolveTest } from "../model/scenario/legacy.ts";

/**
 * Does the first server go first in this pair? Repeat r (1-based) of the cell with index `cell` (0-based, per host)
 * out of `repeats`: alternating by repeat (ABBA), and for an odd count starting with the other server in odd cells.
 */
export function firstGoesFirst(cell: number, repeat: number, repeats: number): boolean {
  const shift = repeats % 2 === 1 ? cell : 0;
  return (repeat - 1 + shift) % 2 === 0;
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
    const script = resolveTest(c.test, w.scripts)?.script ?? c.test;
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

/** One (test, threads, repeat) group of the plan: every server runs it back to back. */
export interface PlanGroup {
  test: string;
  script: string;
  threads: number;
  repeat: number;
  instance?: number;
}

/**
 * One host's measured cells in run order (without index and key), from its groups: adaptive rounds, grouped,
 * randomized, ABBA for two servers, or the rows of a balanced Latin square for more (see the module comment).
 */
export function orderedCells(
  scenario: Scenario,
  hg: readonly PlanGroup[],
  o: {
    host?: string;
    servers: string[];
    instances: Array<number | undefined>;
    repeats: number;
    orderSeed?: number;
  },
): Array<Omit<Cell, "index" | "key">> {
  const w = scenario.workload;
  const { host, servers, instances, repeats, orderSeed } = o;
  const ordered: Array<Omit<Cell, "index" | "key">> = [];
  const mk = (server: string, g: PlanGroup) => ({
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
          const order = servers.length === 2 ? (aFirst ? servers : [servers[1], servers[0]]) : shuffled(servers, rand);
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
  return ordered;
}
