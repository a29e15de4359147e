/**
 * Which servers a run compares (pure), the one answer every consumer reads: the report's tables, the adaptive stop
 * rule, the forecast and the library's helpers.
 * - `compare: { base: ID }` (a version ladder): every other server, in `servers` order, over the base;
 * - `compare: { numerator, denominator }`: that one pair;
 * - no `compare` (or `hosts` / `runs`): the first two servers, as before the ladder existed; none with one server.
 */
import type { Scenario } from "./schema.ts";

/** One compared pair: numerator / denominator × 100. */
export interface ServerPair {
  numerator: string;
  denominator: string;
}

/** The pairs a scenario compares, in report order (the first is the primary pair, the one `table` shows). */
export function comparisonPairs(s: Pick<Scenario, "servers" | "compare">): ServerPair[] {
  const ids = s.servers.map((x) => x.id);
  const c = s.compare;
  if (c && typeof c === "object") {
    if ("base" in c) return ids.filter((id) => id !== c.base).map((numerator) => ({ numerator, denominator: c.base }));
    return [{ numerator: c.numerator, denominator: c.denominator }];
  }
  return ids.length >= 2 ? [{ numerator: ids[0], denominator: ids[1] }] : [];
}

/** The ladder's base server, or undefined when the scenario does not use `compare: { base }`. */
export function ladderBase(s: Pick<Scenario, "compare">): string | undefined {
  return s.compare && typeof s.compare === "object" && "base" in s.compare ? s.compare.base : undefined;
}

/** The primary pair as [numerator, denominator], or null with fewer than two servers. */
export function primaryPair(s: Pick<Scenario, "servers" | "compare">): [string, string] | null {
  const p = comparisonPairs(s)[0];
  return p ? [p.numerator, p.denominator] : null;
}
