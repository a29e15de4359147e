/**
 * The engine host's memory and cores for the fit check (src/core/plan/fit.ts): the engine's facts (`docker info`
 * MemTotal and NCPU). When a local engine does not answer, this machine's own figures stand in (it is the same
 * machine); a remote engine that does not answer leaves them unknown, and the check is skipped with a note.
 */
import { availableParallelism, totalmem } from "node:os";
import type { Engine } from "../../core/model/engine/engine.ts";
import type { HostResources } from "../../core/plan/fit.ts";

export async function hostResources(
  engine: Pick<Engine, "facts" | "location" | "hostId"> | undefined,
): Promise<{ host: HostResources; note?: string }> {
  const local = (why: string) => ({
    host: { id: engine?.hostId ?? "local", memoryBytes: totalmem(), cpus: availableParallelism() },
    note: `${why}: the memory and CPU check uses this machine's figures`,
  });
  if (!engine) return local("no engine");
  try {
    const f = await engine.facts();
    return { host: { id: f.id, memoryBytes: f.memoryBytes, cpus: f.cpus } };
  } catch (e) {
    const why = `the engine gave no facts (${(e as Error).message})`;
    if (engine.location().local) return local(why);
    return { host: { id: engine.hostId }, note: `${why}: memory and CPUs not checked` };
  }
}
