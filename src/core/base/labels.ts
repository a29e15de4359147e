/** Labels on every Docker resource twinbench creates: ownership for teardown, the start-up sweep and `clean`. */
export const LABEL = {
  session: "twinbench.session",
  run: "twinbench.run",
  host: "twinbench.host",
  pid: "twinbench.pid",
  hostname: "twinbench.hostname",
  /** Inode of the owning process's pid namespace (`/proc/self/ns/pid`): a pid means something only inside it. */
  pidNs: "twinbench.pidns",
  /** The kernel's boot id when the owner started: a pid of another boot names another process. */
  boot: "twinbench.boot",
  /** Start time of the owning process (field 22 of /proc/<pid>/stat): tells it apart from a reused pid. */
  start: "twinbench.start",
  role: "twinbench.role",
  server: "twinbench.server",
} as const;

/**
 * Who owns a resource, a state record or a lock: a process, named so that a pid is never read outside the pid
 * namespace and the boot it belongs to. `pidNs` and `bootId` are undefined where they cannot be read.
 */
export interface Owner {
  pid: number;
  hostname: string;
  pidNs?: string;
  bootId?: string;
  /** Start time of the process (clock ticks since boot), to tell it apart from a later process with its pid. */
  startTime?: string;
}

/** What /proc says about a pid: running (with its start time), gone (ENOENT), or unreadable (any other error). */
export type ProcessProbe =
  { state: "running"; startTime?: string } | { state: "gone" } | { state: "unreadable"; reason: string };

/** alive: its process runs; dead: provably gone; unknown: it cannot be told from here (another host, namespace, boot). */
export type OwnerStatus = "alive" | "dead" | "unknown";

/**
 * Whether the owner of a resource still runs, judged by the caller `self`. Only a process of the same host, the same
 * pid namespace and the same boot can be judged; of those, only a pid whose /proc entry is gone (ENOENT), or now
 * belongs to a process started at another time, is dead. Anything else (a record without namespace or boot, an
 * unreadable /proc entry) is unknown: a sweep leaves it alone.
 */
export function ownerStatus(
  owner: Owner,
  self: Pick<Owner, "hostname" | "pidNs" | "bootId">,
  probe: (pid: number) => ProcessProbe,
): OwnerStatus {
  if (owner.hostname !== self.hostname) return "unknown";
  if (owner.pidNs === undefined || self.pidNs === undefined || owner.pidNs !== self.pidNs) return "unknown";
  if (owner.bootId === undefined || self.bootId === undefined || owner.bootId !== self.bootId) return "unknown";
  const p = probe(owner.pid);
  if (p.state === "gone") return "dead";
  if (p.state === "unreadable") return "unknown";
  if (owner.startTime !== undefined && p.startTime !== undefined && owner.startTime !== p.startTime) return "dead";
  return "alive";
}

/** The owner a resource's labels name; undefined when it has none (made by tests or tools, not by a run). */
export function labelOwner(labels: Record<string, string>): Owner | undefined {
  const pid = Number(labels[LABEL.pid]);
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  return {
    pid,
    hostname: labels[LABEL.hostname] ?? "",
    pidNs: labels[LABEL.pidNs],
    bootId: labels[LABEL.boot],
    startTime: labels[LABEL.start],
  };
}

/** A plain-words name of an owner, for messages: "pid 42 on box (pid namespace 4026531836)". */
export function describeOwner(o: Owner): string {
  return `pid ${o.pid} on ${o.hostname || "an unnamed host"}${o.pidNs ? ` (pid namespace ${o.pidNs})` : ""}`;
}

export interface LabelContext {
  sessionId: string;
  runId: string;
  hostId: string;
  pid: number;
  hostname: string;
  pidNs?: string;
  bootId?: string;
  startTime?: string;
}

export function resourceLabels(ctx: LabelContext, extra: Record<string, string> = {}): Record<string, string> {
  return {
    [LABEL.session]: ctx.sessionId,
    [LABEL.run]: ctx.runId,
    [LABEL.host]: ctx.hostId,
    [LABEL.pid]: String(ctx.pid),
    [LABEL.hostname]: ctx.hostname,
    ...(ctx.pidNs === undefined ? {} : { [LABEL.pidNs]: ctx.pidNs }),
    ...(ctx.bootId === undefined ? {} : { [LABEL.boot]: ctx.bootId }),
    ...(ctx.startTime === undefined ? {} : { [LABEL.start]: ctx.startTime }),
    ...extra,
  };
}

/** Docker names: [a-zA-Z0-9][a-zA-Z0-9_.-]+ */
export function resourceName(runId: string, ...parts: string[]): string {
  return ["tb", runId, ...parts].join("-").replace(/[^a-zA-Z0-9_.-]/g, "_");
}

/**
 * Whether a labelled resource is an orphan: its run's process is provably gone (see {@link ownerStatus}). A resource
 * without an owner (tests, tools), of another host, pid namespace or boot, or whose process cannot be probed, is not:
 * only an explicit `clean` removes it.
 */
export function isOrphan(
  labels: Record<string, string>,
  self: Pick<Owner, "hostname" | "pidNs" | "bootId">,
  probe: (pid: number) => ProcessProbe,
): boolean {
  const owner = labelOwner(labels);
  return owner !== undefined && ownerStatus(owner, self, probe) === "dead";
}

/**
 * Whether a resource belongs to run `runId`: the run itself, or, in a multi-host run, the run of the host its
 * `twinbench.host` label names (`<run>-<host>`) and any later pass of it (`<run>-<host>-p<N>`, whatever N).
 */
export function inRun(labels: Record<string, string>, runId: string): boolean {
  const run = labels[LABEL.run];
  if (run === undefined) return false;
  if (run === runId) return true;
  const host = labels[LABEL.host];
  if (!host) return false;
  const own = `${runId}-${host}`;
  return run === own || (run.startsWith(`${own}-p`) && /^\d+$/.test(run.slice(own.length + 2)));
}

/**
 * Whether run id `id` is run `runId` or one of its hosts' runs (`<run>-<host>`, `<run>-<host>-p<N>`), for records
 * that carry no host label (storage state files). Looser than {@link inRun}: given a host's run id, it also takes
 * the runs of a host whose id extends it (`<run>-a` takes `<run>-a-b`).
 */
export function runIdInRun(id: string, runId: string): boolean {
  return id === runId || (id.startsWith(`${runId}-`) && /^[a-z0-9][a-z0-9_-]*$/.test(id.slice(runId.length + 1)));
}
