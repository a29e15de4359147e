/**
 * A planned cell's identity (pure): its key, the server instance of its repeat, and the cells a resumed run still
 * has to run.
 */
import type { Cell, CellRecord } from "../model/results.ts";
import { type Scenario, plannedInstances, adaptiveRepeats, plannedRepeats } from "../model/scenario/schema.ts";

export function cellKey(c: Pick<Cell, "server" | "test" | "threads" | "repeat" | "host">): string {
  return `${c.host ? `${c.host}/` : ""}${c.server}/${c.test}/${c.threads}/${c.repeat}`;
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
