/**
 * resources.confineDaemons: while the cells run, dockerd, containerd, its shims and twinbench itself are moved to
 * the load CPUs (resources.load.cpuset), so that their work does not land on the server's CPUs; their own CPU
 * lists are put back afterwards, after errors and Ctrl-C too. Local engine only: a remote engine's daemons are on
 * another machine (a warning says so).
 */
import {
  CONFINED_DAEMONS,
  confinedByOther,
  originalAffinity,
  type AffinityRecord,
  type ConfinedPid,
} from "../../core/measure/levers.ts";
import { describeOwner, ownerStatus, runIdInRun, type Owner, type ProcessProbe } from "../../core/base/labels.ts";
import { createRunner } from "../../adapters/host/runner.ts";
import { tasksetAffinity, type Affinity } from "../../adapters/host/affinity.ts";
import { affinityLedger, type AffinityLedger } from "../../adapters/host/affinity-ledger.ts";
import { probeProcess, selfOwner } from "../../adapters/host/process-identity.ts";
import type { RunContext } from "./context.ts";
import type { ResultsSession } from "./session.ts";

/** What confining needs from the host (tests replace them). */
export interface ConfineDeps {
  affinity: Affinity;
  ledger: AffinityLedger;
  self: Owner;
  probe: (pid: number) => ProcessProbe;
}

function defaultDeps(): ConfineDeps {
  return {
    affinity: tasksetAffinity(createRunner()),
    ledger: affinityLedger(),
    self: selfOwner(),
    probe: (pid) => probeProcess(pid),
  };
}

/**
 * Run `fn` with the daemons confined when the scenario asks for it; restores every CPU list it changed. Each change
 * is recorded in the affinity ledger before it is made, with the process's original list (the one another run's
 * record kept, when another run confines it too), so a killed run's changes are put back by `clean`; and a process
 * another live run still confines is left to that run.
 */
export async function withConfinedDaemons<T>(
  ctx: RunContext,
  session: ResultsSession,
  fn: () => Promise<T>,
  deps: Partial<ConfineDeps> = {},
): Promise<T> {
  const { resources } = ctx.scenario;
  if (!resources.confineDaemons) return fn();
  if (ctx.engine.hostId !== "local") {
    ctx.warn(
      `resources.confineDaemons: the engine of host ${ctx.engine.hostId} is not on this machine; its daemons are left where they are`,
    );
    return fn();
  }
  const d = { ...defaultDeps(), ...deps };
  const { affinity, ledger } = d;
  const cpus = resources.load.cpuset!; // validation refuses confineDaemons without a load cpuset
  const pids = [...new Set([...(await affinity.pids(CONFINED_DAEMONS)), process.pid])];
  const record: AffinityRecord = { version: 1, runId: ctx.runId, owner: d.self, cpus, pids: [] };
  const file = ledger.fileOf(record);
  const others = (await ledger.readAll()).filter((x) => x.file !== file).map((x) => x.rec);
  const skipped: string[] = [];
  try {
    for (const pid of pids) {
      let now: string;
      try {
        now = await affinity.get(pid);
      } catch (e) {
        skipped.push(`${pid} (${(e as Error).message})`); // a shim that ended between pgrep and taskset: nothing to move
        continue;
      }
      const probe = d.probe(pid);
      const startTime = probe.state === "running" ? probe.startTime : undefined;
      // Recorded before the move: a kill -9 right after it still leaves the way back in the ledger.
      record.pids.push({
        pid,
        ...(startTime ? { startTime } : {}),
        original: originalAffinity(pid, startTime, now, others),
      });
      await ledger.write(record);
      try {
        await affinity.set(pid, cpus);
      } catch (e) {
        record.pids.pop();
        skipped.push(`${pid} (${(e as Error).message})`); // e.g. a process whose own cpuset excludes the load CPUs
      }
    }
    if (skipped.length) ctx.warn(`resources.confineDaemons: not moved: ${skipped.join("; ")}`);
    session.action(
      "confine",
      undefined,
      `dockerd, containerd, its shims and twinbench (pids ${record.pids.map((m) => m.pid).join(", ")}) moved to CPUs ${cpus} while cells run${skipped.length ? `; not moved: ${skipped.join("; ")}` : ""}`,
    );
    return await fn();
  } finally {
    await unconfine(ctx, session, record, file, d);
  }
}

/** Put back what `record` moved, except processes another live run still confines; then drop the record. */
async function unconfine(
  ctx: RunContext,
  session: ResultsSession,
  record: AffinityRecord,
  file: string,
  d: ConfineDeps,
): Promise<void> {
  const out = await restoreRecord(record, file, d);
  if (out.left.length === 0) await d.ledger.remove(file);
  else await d.ledger.write({ ...record, pids: out.left }); // `twinbench clean` retries these
  session.action(
    "unconfine",
    undefined,
    `${out.failed.length ? `CPU lists restored except ${out.failed.join("; ")}` : `CPU lists of pids ${out.restored.join(", ") || "none"} restored`}${out.kept.length ? `; left to the runs that still confine them: ${out.kept.join("; ")}` : ""}`,
  );
  if (out.left.length) ctx.warn(`resources.confineDaemons: ${out.failed.join("; ")}: \`twinbench clean\` tries again`);
}

/**
 * Put back the CPU lists of one ledger record (a run's own at its end, or a killed run's in `clean`): processes
 * that ended or whose pid now names another process are done; those another live run confines are kept for it.
 * `left`: the entries whose restore failed (they stay recorded).
 */
export async function restoreRecord(
  record: AffinityRecord,
  file: string,
  d: Pick<ConfineDeps, "affinity" | "ledger" | "self" | "probe">,
): Promise<{ restored: number[]; kept: string[]; failed: string[]; left: ConfinedPid[] }> {
  const live = (await d.ledger.readAll())
    .filter((x) => x.file !== file && ownerStatus(x.rec.owner, d.self, d.probe) !== "dead")
    .map((x) => x.rec);
  const out = { restored: [] as number[], kept: [] as string[], failed: [] as string[], left: [] as ConfinedPid[] };
  for (const e of [...record.pids].reverse()) {
    const p = d.probe(e.pid);
    if (p.state === "gone") continue; // ended meanwhile (a shim of a removed container): nothing to put back
    if (p.state === "running" && e.startTime && p.startTime && p.startTime !== e.startTime) continue; // pid reused: not ours
    const other = confinedByOther(e.pid, e.startTime, live);
    if (other) {
      out.kept.push(`${e.pid} (run ${other.runId})`);
      continue;
    }
    try {
      await d.affinity.set(e.pid, e.original);
      out.restored.push(e.pid);
    } catch (err) {
      out.failed.push(`${e.pid}: ${(err as Error).message}`);
      out.left.push(e);
    }
  }
  return out;
}

/**
 * `clean` and the start-up sweep: put back the CPU lists that killed runs left confined (their ledger records).
 * Records of live runs are left; of runs that cannot be judged from here (another namespace or boot) too, unless
 * `force`. Returns one line per record.
 */
export async function restoreLeftAffinity(
  o: { force?: boolean; runId?: string } = {},
  deps: Partial<ConfineDeps> = {},
): Promise<{ lines: string[]; failures: string[] }> {
  const d = { ...defaultDeps(), ...deps };
  const lines: string[] = [];
  const failures: string[] = [];
  for (const { file, rec } of await d.ledger.readAll()) {
    if (o.runId !== undefined && !runIdInRun(rec.runId, o.runId)) continue;
    const status = ownerStatus(rec.owner, d.self, d.probe);
    if (status === "alive") continue; // its run puts them back itself
    if (status === "unknown" && !o.force) {
      lines.push(
        `CPU lists confined by run ${rec.runId}: skipped, its ${describeOwner(rec.owner)} cannot be checked from here (use --force if it is gone)`,
      );
      continue;
    }
    const out = await restoreRecord(rec, file, d);
    if (out.left.length === 0) await d.ledger.remove(file);
    else await d.ledger.write({ ...rec, pids: out.left });
    if (out.restored.length)
      lines.push(`put back the CPU lists of pids ${out.restored.join(", ")} that run ${rec.runId} confined`);
    if (out.kept.length) lines.push(`left to the runs that still confine them: ${out.kept.join("; ")}`);
    failures.push(...out.failed.map((f) => `CPU list of pid ${f}`));
  }
  return { lines, failures };
}
