/** Labels on every Docker resource twinbench creates: ownership for teardown, the start-up sweep and `clean`. */
export const LABEL = {
  session: "twinbench.session",
  run: "twinbench.run",
  host: "twinbench.host",
  pid: "twinbench.pid",
  hostname: "twinbench.hostname",
  role: "twinbench.role",
  server: "twinbench.server",
} as const;

export interface LabelContext {
  sessionId: string;
  runId: string;
  hostId: string;
  pid: number;
  hostname: string;
}

export function resourceLabels(ctx: LabelContext, extra: Record<string, string> = {}): Record<string, string> {
  return {
    [LABEL.session]: ctx.sessionId,
    [LABEL.run]: ctx.runId,
    [LABEL.host]: ctx.hostId,
    [LABEL.pid]: String(ctx.pid),
    [LABEL.hostname]: ctx.hostname,
    ...extra,
  };
}

/** Docker names: [a-zA-Z0-9][a-zA-Z0-9_.-]+ */
export function resourceName(runId: string, ...parts: string[]): string {
  return ["tb", runId, ...parts].join("-").replace(/[^a-zA-Z0-9_.-]/g, "_");
}

/**
 * Whether a labelled resource is an orphan: its run's process is gone. `alive` answers for a pid on this hostname.
 */
export function isOrphan(labels: Record<string, string>, hostname: string, alive: (pid: number) => boolean): boolean {
  const pid = Number(labels[LABEL.pid]);
  if (!Number.isInteger(pid) || pid <= 0) return false; // not made by a run (tests, tools): only `clean` removes it
  if (labels[LABEL.hostname] !== hostname) return false; // another machine's run: leave it to `clean`
  return !alive(pid);
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
