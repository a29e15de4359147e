/**
 * CPU affinity of host processes (resources.confineDaemons), through util-linux `taskset` and procps `pgrep`, run
 * with argv arrays. taskset rather than a cgroup cpuset: dockerd and containerd live in the root (or a systemd)
 * cgroup that other services share, and moving them into a cgroup of our own would change their accounting and
 * outlive a crash of twinbench; an affinity mask touches only the named processes and is put back by the same tool.
 */
import { readFile } from "node:fs/promises";
import { TwinbenchError } from "../../core/base/errors.ts";
import { parseAffinityList } from "../../core/measure/levers.ts";
import type { Runner } from "./runner.ts";

/** The affinity port: find processes by name, read and set the CPU list of all their threads. */
export interface Affinity {
  /** Pids of the processes whose name (comm, 15 characters at most) is exactly one of `names`. */
  pids(names: readonly string[]): Promise<number[]>;
  /** The CPU list of `pid`, e.g. "0,1" or "0-1". */
  get(pid: number): Promise<string>;
  /** Set the CPU list of every thread of `pid`. */
  set(pid: number, cpus: string): Promise<void>;
}

export function tasksetAffinity(runner: Runner): Affinity {
  return {
    async pids(names) {
      const out: number[] = [];
      for (const name of names) {
        const r = await runner.run("pgrep", ["-x", name]);
        // pgrep exits 1 when nothing matches: not an error here, the daemon may simply not run.
        if (r.exitCode > 1)
          throw new TwinbenchError(`pgrep -x ${name} failed (exit ${r.exitCode}): ${r.stderr}`, {
            code: "HOST_TOOL_FAILED",
            hint: "install procps (pgrep)",
          });
        for (const l of r.stdout.split("\n")) if (/^\d+$/.test(l.trim())) out.push(Number(l.trim()));
      }
      // Leave out processes inside containers (a dockerd of a Docker-in-Docker test): not this host's daemons.
      const own: number[] = [];
      for (const pid of out) {
        const cg = await readFile(`/proc/${pid}/cgroup`, "utf8").catch(() => null); // gone meanwhile: leave it out
        if (cg !== null && !/\/docker[/-]|\/kubepods/.test(cg)) own.push(pid);
      }
      return own;
    },
    async get(pid) {
      const r = await runner.run("taskset", ["-c", "-p", String(pid)]);
      const list = r.exitCode === 0 ? parseAffinityList(r.stdout) : null;
      if (list === null)
        throw new TwinbenchError(`taskset -c -p ${pid} failed (exit ${r.exitCode}): ${r.stderr || r.stdout}`, {
          code: "HOST_TOOL_FAILED",
          hint: "install util-linux (taskset); twinbench must run as root to move other processes",
        });
      return list;
    },
    async set(pid, cpus) {
      const r = await runner.run("taskset", ["-a", "-c", "-p", cpus, String(pid)]);
      if (r.exitCode !== 0)
        throw new TwinbenchError(
          `taskset -a -c -p ${cpus} ${pid} failed (exit ${r.exitCode}): ${r.stderr || r.stdout}`,
          { code: "HOST_TOOL_FAILED", hint: "twinbench must run as root to move dockerd and containerd" },
        );
    },
  };
}
