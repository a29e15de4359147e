/**
 * Sharding (pure). The planner gives group k (one test × threads × repeat, every server back to back in ABBA
 * order) to host k mod h. When a host is lost, its cells that have no result yet go to the other hosts, whole
 * groups at a time (a group's servers stay together on one host, so each ratio still compares neighbours), in the
 * plan's order, group g of the missing ones to survivor g mod s.
 */
import type { Cell, CellRecord } from "../model/results.ts";

/** The group a cell belongs to: its test, threads and repeat. */
export function groupKey(c: Pick<Cell, "test" | "threads" | "repeat">): string {
  return `${c.test}/${c.threads}/${c.repeat}`;
}

/** Planned cells per host id (cells without a host under ""), in plan order. */
export function cellsByHost(cells: readonly Cell[]): Map<string, Cell[]> {
  const m = new Map<string, Cell[]>();
  for (const c of cells) {
    const k = c.host ?? "";
    m.set(k, [...(m.get(k) ?? []), c]);
  }
  return m;
}

/** Plan keys that have an ok measure record. */
export function doneKeys(records: readonly CellRecord[]): Set<string> {
  return new Set(records.filter((r) => r.phase === "measure" && r.status === "ok").map((r) => r.key));
}

/** Planned cells that have no ok measure record (by key). */
export function missingCells(planned: readonly Cell[], records: readonly CellRecord[]): Cell[] {
  const done = doneKeys(records);
  return planned.filter((c) => !done.has(c.key));
}

/** Spread `missing` over `survivors` by whole groups, in order. Survivor id → its extra cells (plan order kept). */
export function redistribute(missing: readonly Cell[], survivors: readonly string[]): Map<string, Cell[]> {
  const out = new Map<string, Cell[]>(survivors.map((s) => [s, []]));
  if (survivors.length === 0) return out;
  const groupIndex = new Map<string, number>();
  for (const c of [...missing].sort((a, b) => a.index - b.index)) {
    const g = `${c.host ?? ""}|${groupKey(c)}`;
    if (!groupIndex.has(g)) groupIndex.set(g, groupIndex.size);
    out.get(survivors[groupIndex.get(g)! % survivors.length]!)!.push(c);
  }
  return out;
}

export interface ShardSummary {
  host: string;
  groups: number;
  cells: number;
}

/** How many groups and cells each host got, for the plan line. */
export function shardSummary(cells: readonly Cell[]): ShardSummary[] {
  return [...cellsByHost(cells)].map(([host, cs]) => ({
    host,
    groups: new Set(cs.map(groupKey)).size,
    cells: cs.length,
  }));
}
