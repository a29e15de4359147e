/**
 * How a finished sysbench invocation is read: a clean run, a failed cell (with its last fatal line), or a cell whose
 * server was lost; and which errors of a status read mean the figure is absent rather than failed.
 */
import type { CellRecord } from "../../core/model/results.ts";
import type { SysbenchResult } from "../../core/model/sysbench/result.ts";
import { parseSysbench } from "../../core/model/sysbench/parse.ts";
import type { RunResult } from "../../core/model/engine/containers.ts";
import type { Storage } from "../../core/model/scenario/schema.ts";

/** Whether a sampler's error means the accounting is not there (no /proc, no cgroup file), not that it failed. */
export function isAbsence(e: unknown): boolean {
  const code = (e as NodeJS.ErrnoException | null)?.code;
  return code === "ENOENT" || code === "ENOTDIR";
}

/**
 * A cell's outcome from its sysbench container: ok, failed (cancelled by the user, past its limit, a FATAL, an
 * unparseable log or a non-zero exit) or skipped (the user skipped this cell only).
 */
export function classifyCell(
  r: RunResult,
  o: { userCancelled: boolean; timeoutMs: number },
): { status: CellRecord["status"]; error?: string; metrics: SysbenchResult | null } {
  let metrics: SysbenchResult | null = null;
  let error: string | undefined;
  try {
    metrics = parseSysbench(r.output);
  } catch (e) {
    error = `unparseable sysbench output: ${(e as Error).message}`;
  }
  if (r.cancelled)
    return {
      status: o.userCancelled ? "failed" : "skipped",
      error: o.userCancelled ? "cancelled by the user" : "skipped by the user",
      metrics,
    };
  if (r.timedOut)
    return {
      status: "failed",
      error: `${PAST_LIMIT} ${Math.round(o.timeoutMs / 1000)} s and was stopped`,
      metrics,
    };
  if (!metrics || metrics.status !== "ok" || r.exitCode !== 0)
    return {
      status: "failed",
      error: error ?? (metrics?.fatal.length ? metrics.fatal.join(" | ") : `sysbench exited with code ${r.exitCode}`),
      metrics,
    };
  return { status: "ok", metrics };
}

const PAST_LIMIT = "cell ran past its limit of";

/** Whether a failed cell was stopped at its limit (its server may hang). */
export function pastLimit(rec: Pick<CellRecord, "status" | "error">): boolean {
  return rec.status === "failed" && (rec.error ?? "").startsWith(PAST_LIMIT);
}

/**
 * Whether a failed cell's sysbench lost its server: MySQL client errors 2002/2003 (cannot connect), 2006 (gone
 * away) or 2013 (lost connection). The server then died even when its container still shows as running.
 */
export function serverLost(rec: Pick<CellRecord, "status" | "error" | "metrics">): boolean {
  if (rec.status !== "failed") return false;
  const text = [rec.error ?? "", ...(rec.metrics?.fatal ?? [])].join("\n");
  return (
    /\b(?:error|errno\s*=)\s*(?:2002|2003|2006|2013)\b/i.test(text) ||
    /Lost connection to (?:MySQL )?server|server has gone away|Can't connect to (?:local )?MySQL server/i.test(text)
  );
}

export function lastFatal(out: string): string {
  const lines = out.split("\n").filter((l) => l.startsWith("FATAL:"));
  return lines.length ? lines.slice(-3).join(" | ") : out.trim().split("\n").slice(-3).join(" | ");
}

/**
 * Whether a failed cell's server ran out of room in its data dir: MySQL/MariaDB errors 1114 ("The table '…' is
 * full", not an internal #sql temporary table at its memory limit), 1021 ("Disk full") or errno 28 (ENOSPC, "Got error 28 from storage engine"). Not
 * transient: the same cell would fill the same data dir again.
 */
export function dataDirFull(rec: Pick<CellRecord, "status" | "error" | "metrics">): boolean {
  if (rec.status !== "failed") return false;
  const text = [rec.error ?? "", ...(rec.metrics?.fatal ?? [])].join("\n");
  return (
    /The table '(?![^']*#sql)[^']*' is full/i.test(text) ||
    /\b(?:error|errno\s*=)\s*1021\b|Disk full|errno: 28\b|Got error 28\b|No space left on device/i.test(text)
  );
}

/** A full data dir in words: which one (its storage, as the scenario gave it) and what gives it room. */
export function dataDirFullText(server: string, storage: Storage): { where: string; hint: string } {
  const less = "or less data (workload.tables, workload.tableSize; a write test's duration)";
  switch (storage.kind) {
    case "tmpfs":
      return {
        where: `server ${server}'s data dir (a tmpfs of ${storage.size}) is full`,
        hint: `enlarge the tmpfs (storage.size, now ${storage.size}; it counts against the server's memory) ${less}`,
      };
    case "bind":
      return {
        where: `server ${server}'s data dir (bind ${storage.path}) is full`,
        hint: `free space on the filesystem of ${storage.path}, or bind a larger one, ${less}`,
      };
    case "volume":
      return {
        where: `server ${server}'s data dir (a Docker volume) is full`,
        hint: `free space on the filesystem of the engine's volumes (docker system df), ${less}`,
      };
    case "raid0":
      return {
        where: `server ${server}'s data dir (a RAID 0 array${storage.loop ? ` of ${storage.loop.members} loop files of ${storage.loop.size}` : ""}) is full`,
        hint: `${storage.loop ? "enlarge the members (storage.loop.size)" : "use larger devices"} ${less}`,
      };
  }
}
