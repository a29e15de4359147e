/**
 * Before a run: is the layout likely to be load-bound? Pure: from the scenario's thread counts
 * and cpusets. The report decides per cell from the cgroups (src/core/measure/cellstate.ts); this only warns.
 */
import type { Scenario } from "../model/scenario/schema.ts";
import { containerCores, cpusetCores, SATURATED_SHARE } from "../measure/cellstate.ts";
import { parseCpuset } from "../model/scenario/limits.ts";

/**
 * sysbench's CPU per query as a share of the server's, for the lightest tests (point selects). Measured on this
 * project's 2-core VM (the run-engine integration test, 1 thread, socket, MariaDB 11.8.9 and MySQL
 * 9.7.4): client/server CPU per query 0.69-0.75 for oltp_point_select, 0.31-0.58 for oltp_update_non_index. The
 * heavier the server's work per query, the lower it is, so the lightest test sets the bound.
 */
export const CLIENT_SERVER_CPU_RATIO = 0.75;

/**
 * Warnings for a layout likely to be load-bound: with enough threads to keep the load's cores busy (more threads
 * than it has cores), the load saturates before the server once its cores are fewer than the server's times
 * CLIENT_SERVER_CPU_RATIO (the load at SATURATED_SHARE while the server is still below it). The load's cores are
 * its cpuset's, capped by its CPU quota (resources.load.cpus). A layout whose cpusets overlap makes the two compete
 * for the same cores: also warned. Nothing is said without the server's cpuset and the load's cpuset or quota (the
 * sizes are unknown here).
 */
export function loadBoundWarnings(s: Pick<Scenario, "resources" | "workload">): string[] {
  const { server, load } = s.resources;
  if (server.cpuset === undefined || (load.cpuset === undefined && load.cpus === undefined)) return [];
  const S = cpusetCores(server.cpuset);
  if (S === null || (load.cpuset !== undefined && cpusetCores(load.cpuset) === null)) return [];
  const L = containerCores(load.cpuset, load.cpus, Number.POSITIVE_INFINITY);
  const out: string[] = [];
  const maxThreads = Math.max(...s.workload.threads);
  const loadUtilAtServerCeiling = (CLIENT_SERVER_CPU_RATIO * S) / L;
  const what =
    load.cpus !== undefined && (load.cpuset === undefined || load.cpus < (cpusetCores(load.cpuset) ?? Infinity))
      ? `the load's CPU quota (resources.load.cpus) gives it ${L} core${L === 1 ? "" : "s"}`
      : `the load cpuset ${load.cpuset} has ${L} core${L === 1 ? "" : "s"}`;
  if (maxThreads > L && loadUtilAtServerCeiling >= SATURATED_SHARE)
    out.push(
      `likely load-bound: ${what} for up to ${maxThreads} sysbench threads, against ${S} server core${S === 1 ? "" : "s"}; ` +
        `sysbench needs about ${CLIENT_SERVER_CPU_RATIO} of the server's CPU per query on light tests, so it saturates first. Such cells get no verdict; give the load at least ${Math.ceil((CLIENT_SERVER_CPU_RATIO * S) / SATURATED_SHARE)} cores`,
    );
  if (load.cpuset === undefined) return out;
  const shared = overlap(server.cpuset, load.cpuset);
  if (shared.length)
    out.push(
      `the server and load cpusets share CPU${shared.length === 1 ? "" : "s"} ${shared.join(", ")}: sysbench and the server compete for ${shared.length === 1 ? "it" : "them"}, so a cell's bottleneck is hard to name`,
    );
  return out;
}

function overlap(a: string, b: string): number[] {
  const x = new Set(parseCpuset(a) ?? []);
  return (parseCpuset(b) ?? []).filter((c) => x.has(c));
}
