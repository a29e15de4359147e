/** bind: a fresh directory under a path the user mounted, bind-mounted into the server. Never creates the path itself. */
import { chmod, chown, mkdir, stat } from "node:fs/promises";
import type { Stats } from "node:fs";
import { TwinbenchError } from "../../../core/base/errors.ts";
import type { StorageFacts } from "../../../core/model/results.ts";
import { DATA_TARGET, type BindPlan } from "../../../core/storage/plan.ts";
import { findmnt } from "../host.ts";
import type { StorageMount } from "../../../core/model/engine/mounts.ts";
import type { Provisioner } from "./types.ts";

/** The path's stat, or undefined when it does not exist; a failed stat (EACCES, EIO) is raised. */
export async function statIfThere(path: string): Promise<Stats | undefined> {
  try {
    return await stat(path);
  } catch (e) {
    // Missing only (ENOENT, or a path through a non-directory) is absence; the caller says "does not exist".
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw e;
  }
}

export const bindProvisioner: Provisioner<BindPlan> = {
  hostRoot: "root is needed to chown the data dir to the server's uid",
  async problems(plan, host) {
    let st: Stats | undefined;
    try {
      st = await statIfThere(host.hp(plan.basePath));
    } catch (e) {
      return [{ what: `bind path ${plan.basePath} cannot be read: ${(e as Error).message}` }];
    }
    if (!st) return [{ what: `bind path ${plan.basePath} does not exist` }];
    if (!st.isDirectory()) return [{ what: `bind path ${plan.basePath} is not a directory` }];
    return [];
  },
  async provision(plan, { req, writer }, host) {
    let st: Stats | undefined;
    try {
      st = await statIfThere(host.hp(plan.basePath));
    } catch (e) {
      throw new TwinbenchError(`bind path ${plan.basePath} cannot be read: ${(e as Error).message}`, {
        code: "STORAGE_PROBE_FAILED",
        hint: "twinbench runs as root for bind storage; check the path's permissions and the filesystem under it",
        cause: e,
      });
    }
    if (!st || !st.isDirectory()) {
      throw new TwinbenchError(`bind path ${plan.basePath} ${st ? "is not a directory" : "does not exist"}`, {
        code: "STORAGE_BIND_MISSING",
        hint: "create it (or mount your array there) first; twinbench does not create it, so a missing mount never sends data to the root filesystem",
      });
    }
    const local = host.hp(plan.dir);
    try {
      await mkdir(local, { mode: 0o750 });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "EEXIST") {
        throw new TwinbenchError(`${plan.dir} already exists`, {
          code: "STORAGE_BIND_EXISTS",
          hint: "it is left from an earlier run with the same id; remove it (twinbench never deletes what it did not create in this run)",
        });
      }
      throw e;
    }
    // Only now is it certainly ours.
    await writer.add({ type: "dir", path: local, recursive: true });
    await chown(local, req.uid, req.gid);
    await chmod(local, 0o750);
    const f = await findmnt(host.runner, local);
    const facts: StorageFacts = {
      kind: "bind",
      ...(f
        ? { fsType: f.fsType, mountOptions: f.options, freeBytesBefore: f.availBytes, sizeBytes: f.sizeBytes }
        : {}),
      details: { path: plan.basePath, dir: plan.dir, ...(f ? { source: f.source, mountpoint: f.target } : {}) },
    };
    return {
      mount: { kind: "bind", source: plan.dir, target: DATA_TARGET } satisfies StorageMount,
      facts,
      needsHolder: false,
      refresh: async () => {
        await host.runner.run("sync", ["-f", local]);
        const a = await findmnt(host.runner, local);
        return a?.availBytes !== undefined ? { freeBytesAfter: a.availBytes } : {};
      },
    };
  },
};
