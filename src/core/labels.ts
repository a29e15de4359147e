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
