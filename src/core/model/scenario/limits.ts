/**
 * What a scenario asks of the servers and of the host beyond its own fields: the connections it needs, the buffer
 * pool it assumes when unset, and the CPU lists of its cpusets.
 */
import type { Scenario } from "./schema.ts";

/** Connections twinbench keeps besides sysbench's (readiness probe, variables capture, monitoring). */
export const CONNECTION_HEADROOM = 10;
/**
 * The longest cell, warm-up or lead-in: its deadline (one and a half times its length plus a minute) must stay
 * below the 2^31 ms a Node timer can wait.
 */
export const MAX_CELL_SECONDS = 7 * 86400;
/** The longest budget of an adaptive run. */
export const MAX_BUDGET_SECONDS = 20 * 86400;
/**
 * What one sysbench row takes on disk at least (id, k, c CHAR(120), pad CHAR(60): 188 bytes of columns, plus the
 * row header and the index on k); a data dir smaller than rows × this cannot hold the tables.
 */
export const MIN_ROW_BYTES = 200;
/** innodb_buffer_pool_size in lab/my.cnf, used when the scenario does not set it. */
export const DEFAULT_BUFFER_POOL = "1024M";

/** max_connections the scenario needs: the most sysbench threads plus twinbench's own headroom. */
export function requiredMaxConnections(s: Pick<Scenario, "workload">): number {
  return Math.max(...s.workload.threads) + CONNECTION_HEADROOM;
}

/** The servers' own default, kept as a floor (as the config renderer does: src/core/config/dialect.ts). */
export const MIN_MAX_CONNECTIONS = 151;

/**
 * max_connections the lab writes for `serverId`: config.set's value, or (unset / "auto") the most threads + 10,
 * at least 151.
 */
export function plannedMaxConnections(s: Scenario, serverId?: string): number {
  const server = s.servers.find((x) => x.id === serverId);
  const set = server?.config?.set.max_connections ?? s.config.set.max_connections;
  const n = set === undefined ? NaN : Number(set);
  return Number.isInteger(n) ? n : Math.max(MIN_MAX_CONNECTIONS, requiredMaxConnections(s));
}

/** "0-2,5" → [0, 1, 2, 5], or undefined for a reversed range. */
export function parseCpuset(v: string): number[] | undefined {
  const out = new Set<number>();
  for (const part of v.split(",")) {
    const [a, b] = part.split("-").map(Number);
    const end = b ?? a;
    if (end < a) return undefined;
    for (let i = a; i <= end; i++) out.add(i);
  }
  return [...out].sort((x, y) => x - y);
}
