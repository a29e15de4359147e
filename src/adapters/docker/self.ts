/**
 * When twinbench runs inside a container of the same engine (compose), its own container id: probes then join
 * each private network. /.dockerenv alone is not proof (some VMs have it), so the engine must know the container.
 */
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { TwinbenchError } from "../../core/base/errors.ts";
import type { Engine } from "../../core/model/engine/engine.ts";
import { engineError } from "./engine-errors.ts";

/** Where {@link selfContainerId} looks: the container marker file and the hostname (tests stand in for them). */
export interface SelfFiles {
  exists(path: string): boolean;
  read(path: string): Promise<string>;
}
const files: SelfFiles = { exists: existsSync, read: (p) => readFile(p, "utf8") };

export async function selfContainerId(engine: Engine, fs: SelfFiles = files): Promise<string | undefined> {
  if (!fs.exists("/.dockerenv")) return undefined;
  let host: string;
  try {
    host = (await fs.read("/etc/hostname")).trim();
  } catch (e) {
    // No hostname file: nothing to ask the engine about, so not inside one of its containers as far as we can tell.
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw e;
  }
  if (!host) return undefined;
  try {
    // undefined when the engine has no such container (its 404); any other failure is the engine's, not an answer.
    return await engine.containers.idOf(host);
  } catch (e) {
    throw e instanceof TwinbenchError
      ? e
      : engineError(`cannot tell whether twinbench runs inside container ${host} of the engine`, e);
  }
}
