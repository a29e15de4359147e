/**
 * The one fake container engine of the unit tests: an in-memory Engine that keeps its containers, networks and
 * volumes, logs the calls a test checks (files put, pauses), and answers sysbench runs with a recorded log (a
 * failed one when `failRun` says so). Tests replace `run`, `failRun` or `onRun` to script a case.
 */
import { readFileSync } from "node:fs";
import type {
  ContainerSpec,
  ContainerState,
  Engine,
  LabelledResources,
  RunResult,
} from "../../src/adapters/docker/engine.ts";
import type { ImagePort } from "../../src/adapters/docker/images.ts";

/** A recorded sysbench 1.0 run that succeeded, and one whose server was killed. */
export const okLog = readFileSync(
  new URL("../fixtures/sysbench/1.0/oltp_point_select-t1.log", import.meta.url),
  "utf8",
);
export const failLog = readFileSync(
  new URL("../fixtures/sysbench/1.0/fail-server-killed.log", import.meta.url),
  "utf8",
);

export class FakeEngine implements Engine {
  readonly hostId = "local";
  readonly images = {} as ImagePort; // the fake ensureImage never reaches the engine's images
  location() {
    return { local: true };
  }
  async inspectVolume(name: string) {
    return this.volumes.has(name) ? { name, labels: {} } : undefined;
  }
  containers = new Map<string, { spec: ContainerSpec; running: boolean; paused: boolean }>();
  networks = new Set<string>();
  volumes = new Set<string>();
  runs: ContainerSpec[] = [];
  log: string[] = [];
  failRun: (spec: ContainerSpec) => boolean = () => false;
  onRun: (spec: ContainerSpec) => void = () => undefined;
  private n = 0;
  async ping() {}
  async facts() {
    return { id: "local", kernel: "6.18", cpus: 2, dockerVersion: "20.10", storageDriver: "overlay2" };
  }
  async createNetwork(name: string) {
    this.networks.add(name);
    return name;
  }
  async removeNetwork(id: string) {
    this.networks.delete(id);
  }
  async createVolume(name: string) {
    this.volumes.add(name);
    return name;
  }
  async removeVolume(name: string) {
    this.volumes.delete(name);
  }
  async createContainer(spec: ContainerSpec) {
    const id = `c${++this.n}`;
    this.containers.set(id, { spec, running: false, paused: false });
    return id;
  }
  async putFile(id: string, path: string) {
    this.log.push(`put ${this.containers.get(id)!.spec.name} ${path}`);
  }
  async start(id: string) {
    this.containers.get(id)!.running = true;
  }
  async stop(id: string) {
    const c = this.containers.get(id);
    if (c) c.running = false;
  }
  async kill(id: string) {
    const c = this.containers.get(id);
    if (c) c.running = false;
  }
  async remove(id: string) {
    this.containers.delete(id);
  }
  async pause(id: string) {
    const c = this.containers.get(id);
    if (c) {
      c.paused = true;
      this.log.push(`pause ${c.spec.name}`);
    }
  }
  async unpause(id: string) {
    const c = this.containers.get(id);
    if (c) c.paused = false;
  }
  async inspect(id: string): Promise<ContainerState> {
    const c = this.containers.get(id);
    return {
      running: c?.running ?? false,
      paused: c?.paused ?? false,
      exitCode: null,
      oomKilled: false,
      ips: c ? { [String(c.spec.networkMode)]: "10.0.0.2" } : {},
    };
  }
  async logs() {
    return "server log line\n";
  }
  async containerId(id: string) {
    return this.containers.has(id) ? id : undefined;
  }
  async connectNetwork() {}
  async disconnectNetwork() {}
  async exec() {
    return { exitCode: 0, stdout: "", stderr: "" };
  }
  async run(spec: ContainerSpec, opts: { onLine?: (l: string) => void; signal?: AbortSignal }): Promise<RunResult> {
    this.runs.push(spec);
    this.onRun(spec);
    const cmd = spec.cmd ?? [];
    if (opts.signal?.aborted) return { exitCode: 137, output: "", timedOut: false, cancelled: true };
    if (cmd.includes("run") && cmd.some((a) => a.includes("tb_conninfo")))
      return { exitCode: 0, output: "twinbench.ssl_cipher=\n", timedOut: false, cancelled: false };
    if (cmd.includes("run")) {
      const out = this.failRun(spec) ? failLog : okLog;
      for (const l of out.split("\n")) opts.onLine?.(l);
      return { exitCode: this.failRun(spec) ? 1 : 0, output: out, timedOut: false, cancelled: false };
    }
    return { exitCode: 0, output: "ok\n", timedOut: false, cancelled: false };
  }
  async listLabelled(): Promise<LabelledResources> {
    return { containers: [], networks: [], volumes: [] };
  }
}
