/**
 * The fake engine of the unit tests: the engine port (src/core/model/engine/) held in memory, no Docker. It keeps
 * what was created (containers, networks, volumes), every spec given to `containers.run`, and a log of file copies
 * and pauses; tests seed what the label listings answer, make the engine unreachable, and choose what a run prints.
 * Every method of its resources can be replaced by a test (`engine.containers.logs = async () => …`).
 */
import type { ContainerPort, ContainerSpec, RunOpts, RunResult } from "../../src/core/model/engine/containers.ts";
import type { Engine, EngineLocation } from "../../src/core/model/engine/engine.ts";
import type { ExecPort } from "../../src/core/model/engine/exec.ts";
import type { ImagePort } from "../../src/core/model/engine/images.ts";
import type { NetworkPort } from "../../src/core/model/engine/networks.ts";
import type { VolumePort } from "../../src/core/model/engine/volumes.ts";
import type { HostFacts } from "../../src/core/model/results.ts";
import { LABEL } from "../../src/core/base/labels.ts";

export interface FakeContainer {
  spec: ContainerSpec;
  running: boolean;
  paused: boolean;
  /** Set by a test: the container was ended by the OOM killer (inspect says so). */
  oomKilled?: boolean;
}

/** A resource the label listings answer (seeded by the test: the listings do not show what the fake created). */
export interface ListedResource {
  kind: "container" | "network" | "volume";
  /** Its id, and its name for volumes. */
  id: string;
  name: string;
  labels: Record<string, string>;
}

/** Whether labels match every filter, `key=value` or a bare `key`, as Docker's label filter does. */
export function matchesLabels(labels: Record<string, string>, filters: readonly string[]): boolean {
  return filters.every((f) =>
    f.includes("=") ? labels[f.split("=")[0]!] === f.slice(f.indexOf("=") + 1) : f in labels,
  );
}

const ok = (output: string): RunResult => ({ exitCode: 0, output, timedOut: false, cancelled: false });

export class FakeEngine implements Engine {
  /** False: ping, facts, containers.run and containers.kill fail like a dead engine's connection (ECONNREFUSED). */
  alive = true;
  /** What facts() answers besides the host id. */
  info: Partial<HostFacts>;
  images: ImagePort = {} as ImagePort; // tests that reach images give their own
  location: () => EngineLocation = () => ({ local: true });

  /** Containers created and not removed, by id. */
  readonly created = new Map<string, FakeContainer>();
  readonly networkNames = new Set<string>();
  readonly volumeNames = new Set<string>();
  /** Every spec given to containers.run, in order. */
  readonly runs: ContainerSpec[] = [];
  /** "put <container name> <path>" for each file copied in, "pause <container name>" for each pause. */
  readonly log: string[] = [];
  /** Ids (volume names) of everything removed, in order. */
  readonly removed: string[] = [];
  /** What the label listings answer, less what was removed since. */
  listed: ListedResource[] = [];
  /** Set: every label listing rejects with it. */
  listFailure: Error | undefined;
  /** Called with each spec given to containers.run, before it answers. */
  onRun: (spec: ContainerSpec) => void = () => undefined;
  /** What containers.run answers (default: exit 0, "ok"). */
  answerRun: (spec: ContainerSpec, opts: RunOpts) => RunResult | Promise<RunResult> = () => ok("ok\n");
  private n = 0;

  constructor(
    readonly hostId = "local",
    info: Partial<HostFacts> = { kernel: "6.18", cpus: 2, dockerVersion: "20.10", storageDriver: "overlay2" },
  ) {
    this.info = info;
  }

  async ping(): Promise<void> {
    if (!this.alive) throw Object.assign(new Error(`connect ECONNREFUSED (${this.hostId})`), { code: "ECONNREFUSED" });
  }
  async facts(): Promise<HostFacts> {
    await this.ping();
    return { id: this.hostId, ...this.info };
  }

  private listing(kind: ListedResource["kind"], filters: string[]): ListedResource[] {
    if (this.listFailure) throw this.listFailure;
    return this.listed.filter(
      (r) => r.kind === kind && !this.removed.includes(r.id) && matchesLabels(r.labels, filters),
    );
  }

  readonly containers: ContainerPort = {
    create: async (spec) => {
      const id = `c${++this.n}`;
      this.created.set(id, { spec, running: false, paused: false });
      return id;
    },
    putFile: async (id, path) => void this.log.push(`put ${this.created.get(id)!.spec.name} ${path}`),
    start: async (id) => void (this.created.get(id)!.running = true),
    stop: async (id) => {
      const c = this.created.get(id);
      if (c) c.running = false;
    },
    kill: async (id) => {
      await this.ping();
      const c = this.created.get(id);
      if (c) c.running = false;
    },
    remove: async (id) => {
      this.created.delete(id);
      this.removed.push(id);
    },
    pause: async (id) => {
      const c = this.created.get(id);
      if (!c) return;
      c.paused = true;
      this.log.push(`pause ${c.spec.name}`);
    },
    unpause: async (id) => {
      const c = this.created.get(id);
      if (c) c.paused = false;
    },
    inspect: async (id) => {
      const c = this.created.get(id);
      const net = c?.spec.network;
      return {
        running: c?.running ?? false,
        paused: c?.paused ?? false,
        exitCode: null,
        oomKilled: c?.oomKilled ?? false,
        ips: c ? { [net?.kind === "network" ? net.name : String(net?.kind)]: "10.0.0.2" } : {},
      };
    },
    idOf: async (nameOrId) => (this.created.has(nameOrId) ? nameOrId : undefined),
    logs: async () => "server log line\n",
    run: async (spec, opts) => {
      await this.ping();
      this.runs.push(spec);
      this.onRun(spec);
      return this.answerRun(spec, opts);
    },
    list: async (filters) =>
      this.listing("container", filters).map((r) => ({ id: r.id, name: r.name, labels: r.labels, state: "running" })),
  };

  readonly networks: NetworkPort = {
    create: async (name) => {
      this.networkNames.add(name);
      return name;
    },
    remove: async (id) => {
      this.networkNames.delete(id);
      this.removed.push(id);
    },
    connect: async () => undefined,
    disconnect: async () => undefined,
    list: async (filters) =>
      this.listing("network", filters).map((r) => ({ id: r.id, name: r.name, labels: r.labels })),
  };

  readonly volumes: VolumePort = {
    create: async (name) => {
      this.volumeNames.add(name);
      return name;
    },
    remove: async (name) => {
      this.volumeNames.delete(name);
      this.removed.push(name);
    },
    inspect: async (name) => (this.volumeNames.has(name) ? { name, labels: {} } : undefined),
    list: async (filters) => this.listing("volume", filters).map((r) => ({ name: r.name, labels: r.labels })),
  };

  readonly exec: ExecPort = {
    run: async () => ({ exitCode: 0, stdout: "", stderr: "" }),
  };
}

/** A resource a run left on an engine: its kind, its id (and name), and the session and run its labels name. */
export interface LabelledItem {
  kind: ListedResource["kind"];
  name: string;
  session: string;
  run: string;
}

/**
 * The engine of host `hostId` whose label listings answer `items`, labelled as twinbench labels them (session, run,
 * host); `down`: every listing fails as an unreachable engine's does.
 */
export function labelledEngine(hostId: string, items: readonly LabelledItem[], down = false): FakeEngine {
  const engine = new FakeEngine(hostId);
  engine.listed = items.map((i) => ({
    kind: i.kind,
    id: i.name,
    name: i.name,
    labels: { [LABEL.session]: i.session, [LABEL.run]: i.run, [LABEL.host]: hostId },
  }));
  if (down) engine.listFailure = new Error(`connect ECONNREFUSED (${hostId})`);
  return engine;
}
