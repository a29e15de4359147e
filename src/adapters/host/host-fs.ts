/**
 * The host as doctor reads it: files, executables on PATH (with the sbin directories), free disk, and a process
 * started detached from us (dockerd), each behind an interface the tests replace.
 */
import { spawn } from "node:child_process";
import { constants, openSync, closeSync } from "node:fs";
import { access, readFile, statfs } from "node:fs/promises";
import path from "node:path";
import { TwinbenchError } from "../../core/base/errors.ts";
import type { DiskFacts } from "../../core/hosts/doctor.ts";
import { formatCommand } from "./runner.ts";

/** The file-system reads doctor needs, injectable for tests. */
export interface HostFs {
  readText(p: string): Promise<string | null>;
  exists(p: string): Promise<boolean>;
  /** Whether an executable of this name is on PATH (plus the sbin directories, which non-root PATHs lack). */
  which(name: string): Promise<boolean>;
  freeBytes(p: string): Promise<DiskFacts>;
}

/** A process started by spawnDetached: we can still see whether it died early. */
export interface DetachedProcess {
  /** null while running; else its exit code, or the signal that ended it. */
  exited(): number | string | null;
}

const SBIN = ["/usr/local/sbin", "/usr/sbin", "/sbin"];

export function createHostFs(env: Record<string, string | undefined> = process.env): HostFs {
  const exists = async (p: string) => {
    try {
      await access(p, constants.F_OK);
      return true;
    } catch {
      return false; // not there, or not reachable for us: either way the path does not exist for the checks
    }
  };
  return {
    async readText(p) {
      try {
        return await readFile(p, "utf8");
      } catch {
        return null; // unreadable counts as absent: each check says what it could not find
      }
    },
    exists,
    async which(name) {
      const dirs = [...(env.PATH ?? "").split(":").filter(Boolean), ...SBIN];
      for (const d of dirs) {
        try {
          await access(path.join(d, name), constants.X_OK);
          return true;
        } catch {
          /* next */
        }
      }
      return false;
    },
    async freeBytes(p) {
      // The directory may not exist yet (results/ before the first run): ask about its nearest existing ancestor.
      let dir = path.resolve(p);
      while (!(await exists(dir)) && path.dirname(dir) !== dir) dir = path.dirname(dir);
      try {
        const s = await statfs(dir);
        const free = Number(s.bavail) * Number(s.bsize);
        return dir === path.resolve(p) ? { path: p, freeBytes: free } : { path: p, freeBytes: free, measuredAt: dir };
      } catch (e) {
        return { path: p, freeBytes: null, error: (e as NodeJS.ErrnoException).code ?? (e as Error).message };
      }
    },
  };
}

export async function spawnDetachedDefault(cmd: string, args: string[], logFile: string): Promise<DetachedProcess> {
  const fd = openSync(logFile, "a");
  try {
    // dockerd finds containerd, runc and iptables on PATH; non-login root shells may lack the sbin directories.
    const PATH = [
      ...(process.env.PATH ?? "").split(":").filter(Boolean),
      ...SBIN.filter((d) => !(process.env.PATH ?? "").split(":").includes(d)),
    ].join(":");
    const child = spawn(cmd, args, { detached: true, stdio: ["ignore", fd, fd], env: { ...process.env, PATH } });
    await new Promise<void>((resolve, reject) => {
      child.once("spawn", () => resolve());
      child.once("error", (e) =>
        reject(
          new TwinbenchError(`could not start \`${formatCommand(cmd, args)}\`: ${e.message}`, {
            code: "ENGINE_START_FAILED",
            hint: `see ${logFile}`,
            cause: e,
          }),
        ),
      );
    });
    let ended: number | string | null = null;
    child.once("exit", (code, signal) => {
      ended = code ?? signal ?? "unknown";
    });
    child.unref();
    return { exited: () => ended };
  } finally {
    closeSync(fd);
  }
}
