/**
 * Transport overhead: ONE MariaDB server with a run's pins (LabServer + the real adapters), then sysbench over
 * every way the lab can reach it, interleaved round by round:
 *   socket      sidecar, the server's socket volume mounted            (scenario default)
 *   loopback    sidecar in the server's network namespace, 127.0.0.1
 *   bridge      sidecar on the server's private network, by name
 *   host-socket the host's own sysbench through the socket in the volume (its Mountpoint on the host)
 *   host-tcp    the host's own sysbench to the container's address
 * Host sysbench is pinned with taskset to the load cpuset, like the sidecar.
 */
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { TwinbenchError, CancelledError } from "../src/core/base/errors.ts";
import { resourceLabels, resourceName, LABEL } from "../src/core/base/labels.ts";
import type { Scenario, Transport } from "../src/core/model/scenario/schema.ts";
import { parseSize } from "../src/core/model/scenario/schema.ts";
import { sysbenchArgv, type SysbenchConnection } from "../src/core/model/scenario/argv.ts";
import { parseSysbench } from "../src/core/model/sysbench/parse.ts";
import type { TransportSample } from "./lib/figures.ts";
import type { RunDeps } from "../src/app/run.ts";
import { LabServer, SOCKET, labServerInit } from "../src/app/lab-server.ts";
import { DisposableStack } from "../src/app/disposables.ts";
import { mysql2Probe } from "../src/adapters/mysql/probe.ts";

export const CONTAINER_TRANSPORTS: readonly Transport[] = ["socket", "loopback", "bridge"];
export const ALL_TRANSPORTS = [...CONTAINER_TRANSPORTS, "host-socket", "host-tcp"] as const;
export type BenchTransport = (typeof ALL_TRANSPORTS)[number];

export interface TransportBenchOptions {
  scenario: Scenario;
  neutralCnf: string;
  /** The server of the scenario to measure (its image and config). */
  serverId: string;
  rounds: number;
  seconds: number;
  tests: string[];
  threads: number[];
  runId: string;
  /** Folder for the storage state of this server (a scratch folder of the bench). */
  workDir: string;
  signal: AbortSignal;
  log: (line: string) => void;
}

export interface TransportBenchResult {
  samples: TransportSample[];
  image: string;
  serverVersion: string;
  sysbench: { image: string; host: string };
  pins: { serverCpuset?: string; loadCpuset?: string; serverMemory?: string | number };
  order: string;
  teardownFailures: string[];
}

const BENCH_USER = "sbtest";
const BENCH_DB = "sbtest";

/** Install Debian's sysbench on the host when it is missing (root, apt). Returns `sysbench --version`. */
export async function ensureHostSysbench(log: (l: string) => void): Promise<string> {
  const probe = await execa("sysbench", ["--version"], { reject: false });
  if (probe.exitCode === 0) return String(probe.stdout).trim();
  log("host: sysbench missing, installing Debian's sysbench with apt-get");
  const apt = ["-o", "Acquire::Check-Valid-Until=false"];
  let r = await execa("apt-get", [...apt, "install", "-y", "sysbench"], {
    reject: false,
    all: true,
    env: { DEBIAN_FRONTEND: "noninteractive" },
  });
  if (r.exitCode !== 0) {
    await execa("apt-get", [...apt, "update"], { reject: false });
    r = await execa("apt-get", [...apt, "install", "-y", "sysbench"], {
      reject: false,
      all: true,
      env: { DEBIAN_FRONTEND: "noninteractive" },
    });
  }
  const again = await execa("sysbench", ["--version"], { reject: false });
  if (again.exitCode !== 0)
    throw new TwinbenchError(`cannot install sysbench on the host (apt-get exit ${r.exitCode})`, {
      code: "BENCH_HOST_SYSBENCH",
      hint: "run `apt-get install sysbench` as root, then npm run bench again",
      details: String(r.all ?? "")
        .split("\n")
        .slice(-5),
    });
  return String(again.stdout).trim();
}

export async function benchTransport(deps: RunDeps, o: TransportBenchOptions): Promise<TransportBenchResult> {
  const { engine } = deps;
  const { scenario } = o;
  const spec = scenario.servers.find((s) => s.id === o.serverId);
  if (!spec)
    throw new TwinbenchError(`no server "${o.serverId}" in scenario ${scenario.name}`, {
      code: "BENCH_SERVER",
      hint: `use one of ${scenario.servers.map((s) => s.id).join(", ")}`,
    });
  const hostSysbench = await ensureHostSysbench(o.log);
  const img = await deps.ensureImage(spec.image, () => undefined, o.signal);
  const load = await deps.ensureImage("sysbench-1.0", () => undefined, o.signal);
  if (img.family === "sysbench")
    throw new TwinbenchError(`server image ${spec.image} is the load image`, {
      code: "BENCH_SERVER",
      hint: "pick a server image",
    });

  const sessionId = randomBytes(6).toString("hex");
  const labelCtx = { sessionId, runId: o.runId, hostId: engine.hostId, pid: process.pid, hostname: hostname() };
  const labels = (extra: Record<string, string>) => resourceLabels(labelCtx, extra);
  const { init } = labServerInit({
    scenario,
    spec,
    image: { family: img.family, version: img.version, tag: img.tag },
    neutralCnf: o.neutralCnf,
    runId: o.runId,
    sessionId,
    runDir: o.workDir,
    labels,
  });
  const storageSpec = init.storage;
  const loadCpuset = init.holderCpuset;
  const loadMemory =
    scenario.resources.load.memory !== undefined ? parseSize(scenario.resources.load.memory) : undefined;
  const stack = new DisposableStack();
  const server = new LabServer(init, engine, deps.storage, stack, mysql2Probe);
  const password = `tb${randomBytes(8).toString("hex")}`;
  const samples: TransportSample[] = [];
  const order: string[] = [];
  let serverVersion = "";
  let teardownFailures: string[] = [];
  try {
    await deps.storage.preflight(storageSpec);
    o.log(
      `transport: starting ${spec.image} (server cpuset ${scenario.resources.server.cpuset ?? "-"}, load cpuset ${loadCpuset ?? "-"})`,
    );
    await server.provision();
    await server.start(o.signal);
    await mysql2Probe.createBenchUser(server.rootEndpoint(), {
      user: BENCH_USER,
      password,
      db: BENCH_DB,
      charset: "utf8mb4",
      collation: "utf8mb4_general_ci",
    });
    serverVersion = (await mysql2Probe.readServerFacts(server.rootEndpoint())).version;
    const vol = await engine.volumes.inspect(server.sockVolume);
    if (!vol?.mountpoint)
      throw new TwinbenchError(`volume ${server.sockVolume} has no mountpoint on this host`, {
        code: "BENCH_SOCKET",
        hint: "the transport bench needs a local engine",
      });
    const hostSocket = join(vol.mountpoint, "mysqld.sock");

    const connectionFor = (t: BenchTransport): SysbenchConnection => {
      const base = { user: BENCH_USER, password, db: BENCH_DB };
      switch (t) {
        case "host-socket":
          return { ...base, socket: hostSocket };
        case "host-tcp":
          return { ...base, host: server.ip!, port: 3306 };
        default: {
          const c = server.sidecarConnection(t);
          return { ...base, socket: c.socket, host: c.host, port: c.host ? 3306 : undefined };
        }
      }
    };
    const sysbench = async (
      t: BenchTransport,
      script: string,
      command: "prepare" | "prewarm" | "run",
      threads: number,
      seconds?: number,
    ): Promise<string> => {
      if (o.signal.aborted) throw new CancelledError();
      const argv = sysbenchArgv({
        script,
        command,
        workload: scenario.workload,
        threads,
        durationSeconds: seconds,
        connection: connectionFor(t),
        percentile: scenario.workload.percentile ?? 95,
        histogram: false,
      });
      const limitMs = ((seconds ?? 300) * 1.5 + 60) * 1000;
      if (t === "host-socket" || t === "host-tcp") {
        const [cmd, args] = loadCpuset ? ["taskset", ["-c", loadCpuset, "sysbench", ...argv]] : ["sysbench", argv];
        const r = await execa(cmd as string, args as string[], {
          reject: false,
          all: true,
          cwd: "/usr/share/sysbench",
          timeout: limitMs,
          cancelSignal: o.signal,
        });
        if (o.signal.aborted) throw new CancelledError();
        if (r.exitCode !== 0) throw failed(t, command, r.exitCode ?? -1, String(r.all ?? ""));
        return String(r.all ?? "");
      }
      const c = server.sidecarConnection(t);
      const r = await engine.containers.run(
        {
          name: resourceName(o.runId, spec.id, "load", randomBytes(3).toString("hex")),
          image: load.tag,
          entrypoint: ["sysbench"],
          cmd: argv,
          labels: labels({ [LABEL.role]: "load", [LABEL.server]: spec.id }),
          mounts: c.mounts,
          network: c.network,
          limits: { cpuset: loadCpuset, memoryBytes: loadMemory },
          workingDir: "/usr/share/sysbench",
        },
        { signal: o.signal, timeoutMs: limitMs },
      );
      if (r.cancelled) throw new CancelledError();
      if (r.exitCode !== 0) throw failed(t, command, r.exitCode ?? -1, r.output);
      return r.output;
    };

    o.log(`transport: prepare ${scenario.workload.tables} × ${scenario.workload.tableSize} rows, prewarm`);
    await sysbench("socket", "oltp_common", "prepare", Math.max(1, Math.min(scenario.workload.tables, 4)));
    await sysbench("socket", "oltp_common", "prewarm", 1);
    // One short unmeasured run per test so no transport pays for the first statements (plan and statement caches).
    for (const test of o.tests) await sysbench("socket", test, "run", Math.max(...o.threads), Math.min(3, o.seconds));

    const transports = [...ALL_TRANSPORTS];
    for (let round = 1; round <= o.rounds; round++) {
      for (const test of o.tests) {
        for (const threads of o.threads) {
          // A B C D E, then B C D E A …: each transport takes each position once over 5 rounds.
          const k = (round - 1) % transports.length;
          const seq = [...transports.slice(k), ...transports.slice(0, k)];
          if (round === 1 && test === o.tests[0] && threads === o.threads[0]) order.push(seq.join(" "));
          for (const t of seq) {
            const out = await sysbench(t, test, "run", threads, o.seconds);
            const m = parseSysbench(out);
            if (m.status !== "ok" || m.qps === null) throw failed(t, "run", 0, out);
            samples.push({ transport: t, test, threads, round, qps: m.qps });
            o.log(
              `transport: round ${round}/${o.rounds} ${test} ${threads} thr ${t.padEnd(11)} ${m.qps.toFixed(0)} q/s`,
            );
          }
        }
      }
    }
  } finally {
    teardownFailures = await stack.dispose();
  }
  return {
    samples,
    image: `${spec.image} (${img.tag})`,
    serverVersion,
    sysbench: { image: `${load.tag} ${load.packageVersion ?? load.version}`, host: hostSysbench },
    pins: {
      serverCpuset: scenario.resources.server.cpuset,
      loadCpuset,
      serverMemory: scenario.resources.server.memory,
    },
    order: "round r starts at transport (r−1) mod 5 of: socket loopback bridge host-socket host-tcp",
    teardownFailures,
  };
}

function failed(t: string, command: string, exitCode: number, output: string): TwinbenchError {
  const tail = output
    .trim()
    .split("\n")
    .filter((l) => l.startsWith("FATAL") || l.includes("error"))
    .slice(-3);
  return new TwinbenchError(
    `sysbench ${command} over ${t} failed (exit ${exitCode}): ${tail.join(" | ") || output.trim().split("\n").slice(-2).join(" | ")}`,
    {
      code: "BENCH_SYSBENCH_FAILED",
      hint: "run the same scenario with `twinbench run` to see whether the lab works at all",
    },
  );
}
