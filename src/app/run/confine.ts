/**
 * resources.confineDaemons: while the cells run, dockerd, containerd, its shims and twinbench itself are moved to
 * the load CPUs (resources.load.cpuset), so that their work does not land on the server's CPUs; their own CPU
 * lists are put back afterwards, after errors and Ctrl-C too. Local engine only: a remote engine's daemons are on
 * another machine (a warning says so).
 */
import { CONFINED_DAEMONS } from "../../core/measure/levers.ts";
import { createRunner } from "../../adapters/host/runner.ts";
import { tasksetAffinity, type Affinity } from "../../adapters/host/affinity.ts";
import type { RunContext } from "./context.ts";
import type { ResultsSession } from "./session.ts";

/** Run `fn` with the daemons confined when the scenario asks for it; restores every CPU list it changed. */
export async function withConfinedDaemons<T>(
  ctx: RunContext,
  session: ResultsSession,
  fn: () => Promise<T>,
  affinity: Affinity = tasksetAffinity(createRunner()),
): Promise<T> {
  const { resources } = ctx.scenario;
  if (!resources.confineDaemons) return fn();
  if (ctx.engine.hostId !== "local") {
    ctx.warn(
      `resources.confineDaemons: the engine of host ${ctx.engine.hostId} is not on this machine; its daemons are left where they are`,
    );
    return fn();
  }
  const cpus = resources.load.cpuset!; // validation refuses confineDaemons without a load cpuset
  const pids = [...new Set([...(await affinity.pids(CONFINED_DAEMONS)), process.pid])];
  const moved: Array<{ pid: number; before: string }> = [];
  const skipped: string[] = [];
  try {
    for (const pid of pids) {
      let before: string;
      try {
        before = await affinity.get(pid);
      } catch (e) {
        skipped.push(`${pid} (${(e as Error).message})`); // a shim that ended between pgrep and taskset: nothing to move
        continue;
      }
      try {
        await affinity.set(pid, cpus);
        moved.push({ pid, before });
      } catch (e) {
        skipped.push(`${pid} (${(e as Error).message})`); // e.g. a process whose own cpuset excludes the load CPUs
      }
    }
    if (skipped.length) ctx.warn(`resources.confineDaemons: not moved: ${skipped.join("; ")}`);
    session.action(
      "confine",
      undefined,
      `dockerd, containerd, its shims and twinbench (pids ${moved.map((m) => m.pid).join(", ")}) moved to CPUs ${cpus} while cells run${skipped.length ? `; not moved: ${skipped.join("; ")}` : ""}`,
    );
    return await fn();
  } finally {
    const failed: string[] = [];
    for (const { pid, before } of moved.reverse()) {
      // A process that ended meanwhile (a shim of a removed container) has nothing to restore: record, carry on.
      await affinity.set(pid, before).catch((e: Error) => failed.push(`${pid}: ${e.message}`));
    }
    session.action(
      "unconfine",
      undefined,
      failed.length
        ? `CPU lists restored except ${failed.join("; ")}`
        : `CPU lists of pids ${moved.map((m) => m.pid).join(", ")} restored`,
    );
  }
}
