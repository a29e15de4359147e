/**
 * Shared set-up for integration tests: a running engine (doctor --fix if needed), the pinned images, a way to run
 * the real CLI, and a check that nothing labelled twinbench is left.
 */
import { execa, type ResultPromise } from "execa";
import Docker from "dockerode";
import { DockerEngine } from "../../../src/adapters/docker/engine.ts";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { stringify } from "yaml";
import { ensureHost } from "../../../src/cli/commands/doctor.ts";
import { ensureImages, loadLock } from "../../../src/adapters/images/index.ts";
import type { CellRecord } from "../../../src/core/model/results.ts";

export const ROOT = resolve(new URL("../../..", import.meta.url).pathname);
export const BIN = join(ROOT, "bin", "twinbench.js");
export const docker = new Docker();

let ready: Promise<void> | undefined;
/** Engine up and the four pinned images present (built once, cache hits after). */
export function ensureLab(): Promise<void> {
  ready ??= (async () => {
    await ensureHost({ out: (l) => console.log(l), fix: true });
    const lock = await loadLock();
    await ensureImages(new DockerEngine().images, Object.keys(lock.images), { lock, mode: "debian" });
  })();
  return ready;
}

/** A tiny scenario written to a temp file. */
export async function tinyScenario(
  over: Record<string, unknown> = {},
  workload: Record<string, unknown> = {},
): Promise<{ file: string; dir: string }> {
  const dir = await mkdtemp(join(tmpdir(), "tb-it-"));
  const scenario = {
    name: "it",
    description: "integration test",
    servers: [
      { id: "mariadb", image: "mariadb-11.8" },
      { id: "mysql", image: "mysql-9.7" },
    ],
    config: { base: join(ROOT, "lab/my.cnf"), set: { innodb_buffer_pool_size: "128M" } },
    storage: { kind: "tmpfs", size: "1g" },
    load: { transport: "socket" },
    resources: { server: { cpuset: "1", memory: "2g" }, load: { cpuset: "0" } },
    // rerunDisturbed off: these tests count cells, and on a shared machine outside work would add re-run attempts
    // (interference.test.ts turns it on).
    workload: {
      engine: "innodb",
      tables: 2,
      tableSize: 1000,
      tests: ["oltp_point_select"],
      threads: [1],
      duration: "2s",
      warmup: "0s",
      repeats: 1,
      rerunDisturbed: false,
      ...workload,
    },
    order: "interleaved",
    ...over,
  };
  const file = join(dir, "scenario.yaml");
  await writeFile(file, stringify(scenario));
  return { file, dir };
}

export function twinbench(
  args: string[],
  opts: { reject?: boolean } = {},
): ResultPromise<{ cwd: string; reject: boolean; all: true; env: Record<string, string> }> {
  return execa("node", [BIN, ...args], {
    cwd: ROOT,
    reject: opts.reject ?? false,
    all: true,
    env: { TESTCONTAINERS_RYUK_DISABLED: "true", NO_COLOR: "1" },
  });
}

/** Everything labelled by twinbench runs (run-owned: carries twinbench.run). */
export async function leftovers(
  runId?: string,
): Promise<{ containers: string[]; networks: string[]; volumes: string[] }> {
  const label = runId ? [`twinbench.run=${runId}`] : ["twinbench.run"];
  const f = JSON.stringify({ label });
  const [cs, ns, vs] = await Promise.all([
    docker.listContainers({ all: true, filters: f }),
    docker.listNetworks({ filters: f }),
    docker.listVolumes({ filters: f }),
  ]);
  return {
    containers: cs.map((c) => c.Names[0] ?? c.Id),
    networks: ns.map((n) => n.Name),
    volumes: (vs.Volumes ?? []).map((v) => v.Name),
  };
}

/** Parse --json-events output. */
export function events(stdout: string): Array<Record<string, unknown> & { type: string }> {
  return stdout
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as Record<string, unknown> & { type: string });
}

/** The CLI as a child process, output buffered (for killing it or signalling it mid-run). */
export function start(args: string[]) {
  return execa("node", [BIN, ...args], {
    cwd: ROOT,
    reject: false,
    all: true,
    buffer: true,
    env: { NO_COLOR: "1", TESTCONTAINERS_RYUK_DISABLED: "true" },
  });
}

/** Resolve when a line of the child's NDJSON stdout (from now on) satisfies `pred`. */
export function waitForEvent(
  child: ReturnType<typeof start>,
  pred: (e: Record<string, unknown>) => boolean,
): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    let buf = "";
    child.stdout!.on("data", (d: Buffer) => {
      buf += d.toString();
      const lines = buf.split("\n");
      buf = lines.pop() ?? "";
      for (const l of lines) {
        if (!l.startsWith("{")) continue;
        const e = JSON.parse(l) as Record<string, unknown>;
        if (pred(e)) resolve(e);
      }
    });
    child.on("exit", () => reject(new Error("twinbench exited before the awaited event")));
  });
}

/** Every line of a results folder's cells.jsonl, parsed (a line that does not parse throws). */
export const readCells = async (dir: string): Promise<CellRecord[]> =>
  (await readFile(join(dir, "cells.jsonl"), "utf8").catch(() => ""))
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as CellRecord);

/**
 * Mounts and loop devices on this host that name a run (twinbench's carry the run id in their paths). The mounts are
 * read from /proc/mounts, or from TWINBENCH_TEST_HOST_MOUNTS: scripts/test-faults.sh runs a group in a mount namespace
 * of its own and points it at dockerd's mount table (the engine's volume mounts are made there, after the namespace).
 */
export async function hostState(runId: string): Promise<{ mounts: string[]; loops: string[] }> {
  const mounts = await readFile(process.env.TWINBENCH_TEST_HOST_MOUNTS || "/proc/mounts", "utf8");
  const loops = (await execa("losetup", ["-a"], { reject: false })).stdout;
  return {
    mounts: mounts.split("\n").filter((l) => l.includes(runId)),
    loops: loops.split("\n").filter((l) => l.includes(runId)),
  };
}
