/**
 * When twinbench runs inside a container of the same engine (compose), its own container id: probes then join
 * each private network. /.dockerenv alone is not proof (some VMs have it), so the engine must know the container.
 */
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import type { Engine } from "../../core/model/engine/engine.ts";

export async function selfContainerId(engine: Engine): Promise<string | undefined> {
  if (!existsSync("/.dockerenv")) return undefined;
  try {
    const host = (await readFile("/etc/hostname", "utf8")).trim();
    if (!host) return undefined;
    return await engine.containers.idOf(host);
  } catch {
    return undefined; // no readable hostname or no answer: not inside a container of this engine, as far as we can tell
  }
}
