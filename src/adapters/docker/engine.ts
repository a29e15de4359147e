/**
 * The engine port: everything the app layer needs from a container engine, and its dockerode implementation.
 * app/ talks only to `Engine`; a Kubernetes backend would implement the same interface.
 */
import Docker from "dockerode";
import { PassThrough } from "node:stream";
import { pack } from "tar-stream";
import { TwinbenchError } from "../../core/base/errors.ts";
import { withDeadline } from "../../core/base/deadline.ts";
import type { HostFacts } from "../../core/model/results.ts";
import { DockerImages, type ImagePort } from "./images.ts";

/** A Docker mount, in the Engine API's HostConfig.Mounts shape. */
export interface DataMount {
  Type: "volume" | "bind" | "tmpfs";
  Source?: string;
  Target: string;
  ReadOnly?: boolean;
  VolumeOptions?: {
    /** Do not copy the image's /var/lib/mysql into a new volume: every kind starts with an empty data dir. */
    NoCopy?: boolean;
    Labels?: Record<string, string>;
    DriverConfig?: { Name: string; Options: Record<string, string> };
  };
  TmpfsOptions?: { SizeBytes?: number; Mode?: number };
}

export interface ContainerSpec {
  name: string;
  image: string;
  cmd?: string[];
  entrypoint?: string[];
  env?: Record<string, string>;
  labels: Record<string, string>;
  mounts?: DataMount[];
  /** "bridge network name" | "container:<id>" | "none" */
  networkMode?: string;
  cpuset?: string;
  /** CPU quota in cores (HostConfig.NanoCpus, docker --cpus). */
  cpus?: number;
  memoryBytes?: number;
  user?: string;
  workingDir?: string;
}

/** Options of {@link Engine.run}. */
export interface RunOpts {
  onLine?: (line: string) => void;
  /** Called with the container's full id once it is created, before it starts. */
  onCreated?: (id: string) => void;
  signal?: AbortSignal;
  timeoutMs?: number;
}

export interface ContainerState {
  running: boolean;
  paused: boolean;
  exitCode: number | null;
  oomKilled: boolean;
  ips: Record<string, string>;
}

export interface RunResult {
  exitCode: number | null;
  output: string;
  timedOut: boolean;
  cancelled: boolean;
}

export interface LabelledResources {
  containers: Array<{ id: string; name: string; labels: Record<string, string>; state: string }>;
  networks: Array<{ id: string; name: string; labels: Record<string, string> }>;
  volumes: Array<{ name: string; labels: Record<string, string> }>;
}

export interface VolumeInfo {
  name: string;
  /** Where the engine keeps the volume on its host (visible here only when the engine is local). */
  mountpoint?: string;
  labels: Record<string, string>;
}

/** Where the engine runs: on this machine (a local socket: its host paths are ours) or elsewhere. */
export interface EngineLocation {
  local: boolean;
  /** The remote host, when not local. */
  host?: string;
}

/** The container-engine port the run engine uses: containers, networks, volumes, exec, logs, labels. One implementation, {@link DockerEngine}; inject another for another backend. */
export interface Engine {
  readonly hostId: string;
  /** Images: build, inspect, list, remove, save and load (src/adapters/docker/images.ts). */
  readonly images: ImagePort;
  /** Whether the engine's host is this machine. */
  location(): EngineLocation;
  ping(): Promise<void>;
  facts(): Promise<HostFacts>;
  createNetwork(name: string, labels: Record<string, string>): Promise<string>;
  removeNetwork(id: string): Promise<void>;
  createVolume(name: string, labels: Record<string, string>, driverOpts?: Record<string, string>): Promise<string>;
  removeVolume(name: string): Promise<void>;
  /** The volume, or undefined when the engine has none such. */
  inspectVolume(name: string): Promise<VolumeInfo | undefined>;
  createContainer(spec: ContainerSpec): Promise<string>;
  putFile(id: string, path: string, content: string, mode?: number): Promise<void>;
  start(id: string): Promise<void>;
  stop(id: string, timeoutSeconds: number): Promise<void>;
  kill(id: string, signal?: string): Promise<void>;
  remove(id: string): Promise<void>;
  pause(id: string): Promise<void>;
  unpause(id: string): Promise<void>;
  inspect(id: string): Promise<ContainerState>;
  /** The full id of a container by name or id, or undefined when the engine has none such. */
  containerId(nameOrId: string): Promise<string | undefined>;
  /** Attach a container to a network (compose: twinbench joins each private network to probe its servers). */
  connectNetwork(networkId: string, containerId: string): Promise<void>;
  disconnectNetwork(networkId: string, containerId: string): Promise<void>;
  logs(id: string, tail?: number): Promise<string>;
  /** Run `cmd` in a container; `env` is added to the process's environment (secrets go there, never in `cmd`). */
  exec(
    id: string,
    cmd: string[],
    opts?: { user?: string; env?: Record<string, string>; timeoutMs?: number },
  ): Promise<{ exitCode: number; stdout: string; stderr: string }>;
  /**
   * Create, attach, start and wait for a container; stream its output lines. Removes it afterwards. `onCreated`
   * gets the container's full id before it starts (e.g. to read its cgroup while it runs).
   */
  run(spec: ContainerSpec, opts: RunOpts): Promise<RunResult>;
  listLabelled(filters: string[]): Promise<LabelledResources>;
}

/** The HTTP status of an engine's answer, or undefined when the error is not an answer (a cut connection, a bug). */
export function statusCode(e: unknown): number | undefined {
  return typeof e === "object" && e !== null && "statusCode" in e
    ? (e as { statusCode: number }).statusCode
    : undefined;
}

/** True for docker-modem's "no such container/volume/network" answer (HTTP 404). */
export function isNotFound(e: unknown): boolean {
  return statusCode(e) === 404;
}

/**
 * The engine refused to start a container's command (HTTP 400 on start: its executable is not in the image or
 * cannot be run), as opposed to an engine that failed.
 */
export function isCommandNotRunnable(e: unknown): boolean {
  return statusCode(e) === 400;
}

/** Ignore "not found" (404) and "already in that state" (304/409 where harmless): disposal must be idempotent. */
async function tolerate(p: Promise<unknown>, codes: number[] = [404, 304], harmless?: RegExp): Promise<void> {
  try {
    await p;
  } catch (e) {
    if (codes.includes(statusCode(e) ?? -1)) return;
    // The engine answers 500 for some no-op state changes (unpause of a running container): match its words.
    if (harmless && harmless.test((e as Error).message)) return;
    throw e;
  }
}

export function engineError(what: string, e: unknown, hint?: string): TwinbenchError {
  const msg = e instanceof Error ? e.message : String(e);
  return new TwinbenchError(`${what}: ${msg}`, {
    code: "ENGINE",
    hint: hint ?? "check that the Docker engine answers (`twinbench doctor`)",
    cause: e,
  });
}

/** An error on a container's output stream: what was read so far may be only part of the output. */
export function outputCutShort(what: string, e: Error): TwinbenchError {
  return new TwinbenchError(`the output stream of ${what} failed, so its output may be cut short: ${e.message}`, {
    code: "ENGINE_STREAM",
    hint: "check that the Docker engine answers (`twinbench doctor`), then run again (or `--resume`)",
    cause: e,
  });
}

/**
 * Every container's log: json-file, rotated at 10 MiB and at most 3 files, so a server that logs without end (a
 * crash loop, a warning per query) cannot fill the engine's disk.
 */
export const LOG_CONFIG = { Type: "json-file", Config: { "max-size": "10m", "max-file": "3" } } as const;

/** The deadline of an exec (its SQL probes, copies and tools are short; a stopped container never answers). */
export const EXEC_DEADLINE_MS = 300_000;

/** The most of each exec stream (stdout, stderr) kept in memory; the rest is counted and dropped. */
export const MAX_EXEC_OUTPUT_BYTES = 16 * 2 ** 20;

/**
 * A bounded sink for a stream: keeps the first `max` bytes, counts the rest. The output of a program that prints
 * without end never grows past `max` here.
 */
export class BoundedOutput {
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  dropped = 0;
  constructor(private readonly max = MAX_EXEC_OUTPUT_BYTES) {}
  push(d: Buffer): void {
    const room = this.max - this.kept;
    if (room <= 0) {
      this.dropped += d.length;
      return;
    }
    const part = d.length <= room ? d : d.subarray(0, room);
    this.chunks.push(part);
    this.kept += part.length;
    this.dropped += d.length - part.length;
  }
  text(): string {
    return Buffer.concat(this.chunks).toString("utf8");
  }
}

/** The Engine on a Docker API (dockerode): `new DockerEngine("local")` is the local engine (DOCKER_HOST respected). */
export class DockerEngine implements Engine {
  private readonly docker: Docker;
  readonly images: ImagePort;
  constructor(
    readonly hostId: string = "local",
    opts?: Docker.DockerOptions,
  ) {
    this.docker = new Docker(opts);
    this.images = new DockerImages(this.docker);
  }

  location(): EngineLocation {
    const modem = this.docker.modem as unknown as { socketPath?: string; host?: string } | undefined;
    return !!modem?.socketPath || !modem?.host ? { local: true } : { local: false, host: modem.host };
  }

  async ping(): Promise<void> {
    try {
      await this.docker.ping();
    } catch (e) {
      throw new TwinbenchError(`no Docker engine answers for host "${this.hostId}": ${(e as Error).message}`, {
        code: "ENGINE_UNREACHABLE",
        hint: "run `twinbench doctor --fix` to install and start the engine, or set DOCKER_HOST",
        cause: e,
      });
    }
  }

  async facts(): Promise<HostFacts> {
    let info: Awaited<ReturnType<Docker["info"]>>;
    let version: Awaited<ReturnType<Docker["version"]>>;
    try {
      [info, version] = await Promise.all([this.docker.info(), this.docker.version()]);
    } catch (e) {
      // No engine (`calibrate --show` or `plan` before `doctor --fix`, 2026-12-06): a typed error, not an internal one.
      if (!isEngineConnectionError(e)) throw e;
      throw new TwinbenchError(`no Docker engine answers for host "${this.hostId}": ${(e as Error).message}`, {
        code: "ENGINE_UNREACHABLE",
        hint: "run `twinbench doctor --fix` to install and start the engine, or set DOCKER_HOST",
        cause: e,
      });
    }
    return {
      id: this.hostId,
      kernel: info.KernelVersion,
      os: info.OperatingSystem,
      cpuModel: undefined,
      cpus: info.NCPU,
      memoryBytes: info.MemTotal,
      dockerVersion: version.Version,
      apiVersion: version.ApiVersion,
      storageDriver: info.Driver,
      cgroupVersion: (info as { CgroupVersion?: string }).CgroupVersion,
    };
  }

  async createNetwork(name: string, labels: Record<string, string>): Promise<string> {
    // Serialised across every engine of this process: two engines on one machine (a second engine for tests, or
    // rootless + rootful) pick bridge subnets independently and skip only subnets that already have a host route,
    // so two creations at the same moment can get the same subnet and probes would reach the wrong server.
    const create = DockerEngine.networkCreation.then(() =>
      this.docker.createNetwork({ Name: name, Driver: "bridge", Labels: labels, CheckDuplicate: true }),
    );
    DockerEngine.networkCreation = create.then(
      () => undefined,
      () => undefined, // the queue only orders creations: this caller gets the failure from `create` below
    );
    return (await create).id;
  }
  private static networkCreation: Promise<void> = Promise.resolve();
  async removeNetwork(id: string): Promise<void> {
    await tolerate(this.docker.getNetwork(id).remove());
  }
  async createVolume(
    name: string,
    labels: Record<string, string>,
    driverOpts?: Record<string, string>,
  ): Promise<string> {
    const v = await this.docker.createVolume({
      Name: name,
      Labels: labels,
      Driver: "local",
      DriverOpts: driverOpts ?? {},
    });
    return (v as unknown as { name?: string; Name?: string }).Name ?? name;
  }
  async removeVolume(name: string): Promise<void> {
    await tolerate(this.docker.getVolume(name).remove({ force: true }));
  }
  async inspectVolume(name: string): Promise<VolumeInfo | undefined> {
    try {
      const v = (await this.docker.getVolume(name).inspect()) as {
        Name?: string;
        Mountpoint?: string;
        Labels?: Record<string, string> | null;
      };
      return { name: v.Name ?? name, mountpoint: v.Mountpoint, labels: v.Labels ?? {} };
    } catch (e) {
      if (statusCode(e) === 404) return undefined;
      throw e;
    }
  }

  async createContainer(spec: ContainerSpec): Promise<string> {
    const c = await this.docker.createContainer({
      name: spec.name,
      Image: spec.image,
      Cmd: spec.cmd,
      Entrypoint: spec.entrypoint,
      Env: spec.env ? Object.entries(spec.env).map(([k, v]) => `${k}=${v}`) : undefined,
      Labels: spec.labels,
      User: spec.user,
      WorkingDir: spec.workingDir,
      Tty: false,
      AttachStdout: true,
      AttachStderr: true,
      HostConfig: {
        Mounts: spec.mounts as Docker.MountSettings[] | undefined,
        NetworkMode: spec.networkMode,
        CpusetCpus: spec.cpuset,
        NanoCpus: spec.cpus === undefined ? undefined : Math.round(spec.cpus * 1e9),
        Memory: spec.memoryBytes,
        MemorySwap: spec.memoryBytes, // no swap beyond the limit: identical for every server
        Init: false,
        // Never publish ports on the host.
        PublishAllPorts: false,
        LogConfig: LOG_CONFIG,
      },
    });
    return c.id;
  }

  async putFile(id: string, path: string, content: string, mode = 0o644): Promise<void> {
    const slash = path.lastIndexOf("/");
    const dir = path.slice(0, slash) || "/";
    const base = path.slice(slash + 1);
    const p = pack();
    p.entry({ name: base, mode, mtime: new Date(0) }, content);
    p.finalize();
    const chunks: Buffer[] = [];
    for await (const c of p) chunks.push(c as Buffer);
    await this.docker.getContainer(id).putArchive(Buffer.concat(chunks), { path: dir });
  }

  async start(id: string): Promise<void> {
    await tolerate(this.docker.getContainer(id).start(), [304]);
  }
  async stop(id: string, timeoutSeconds: number): Promise<void> {
    await tolerate(this.docker.getContainer(id).stop({ t: timeoutSeconds }), [304, 404]);
  }
  async kill(id: string, signal = "SIGKILL"): Promise<void> {
    await tolerate(this.docker.getContainer(id).kill({ signal }), [404, 409, 304]);
  }
  async remove(id: string): Promise<void> {
    await tolerate(this.docker.getContainer(id).remove({ force: true, v: true }), [404, 409]);
  }
  async pause(id: string): Promise<void> {
    await tolerate(this.docker.getContainer(id).pause(), [404, 409, 304], /already paused/);
  }
  async unpause(id: string): Promise<void> {
    await tolerate(this.docker.getContainer(id).unpause(), [404, 409, 304], /is not paused/);
  }
  async inspect(id: string): Promise<ContainerState> {
    const i = await this.docker.getContainer(id).inspect();
    const ips: Record<string, string> = {};
    for (const [name, n] of Object.entries(i.NetworkSettings.Networks ?? {})) if (n.IPAddress) ips[name] = n.IPAddress;
    return {
      running: i.State.Running,
      paused: i.State.Paused,
      exitCode: i.State.Running ? null : i.State.ExitCode,
      oomKilled: i.State.OOMKilled,
      ips,
    };
  }
  async containerId(nameOrId: string): Promise<string | undefined> {
    try {
      return (await this.docker.getContainer(nameOrId).inspect()).Id;
    } catch (e) {
      if (statusCode(e) === 404) return undefined;
      throw e;
    }
  }
  async connectNetwork(networkId: string, containerId: string): Promise<void> {
    await this.docker.getNetwork(networkId).connect({ Container: containerId });
  }
  async disconnectNetwork(networkId: string, containerId: string): Promise<void> {
    await tolerate(this.docker.getNetwork(networkId).disconnect({ Container: containerId, Force: true }));
  }
  async logs(id: string, tail = 200): Promise<string> {
    try {
      const buf = (await this.docker
        .getContainer(id)
        .logs({ stdout: true, stderr: true, tail, follow: false })) as unknown as Buffer;
      return demuxBuffer(buf);
    } catch (e) {
      if (statusCode(e) === 404) return "";
      throw e;
    }
  }
  async exec(id: string, cmd: string[], opts?: { user?: string; env?: Record<string, string>; timeoutMs?: number }) {
    const ms = opts?.timeoutMs ?? EXEC_DEADLINE_MS;
    // The program only in the message: its arguments may hold a secret.
    return withDeadline(
      this.execNow(id, cmd, opts),
      ms,
      () =>
        new TwinbenchError(`exec of ${cmd[0]} in container ${id} did not finish within ${ms / 1000} s`, {
          code: "DEADLINE_EXCEEDED",
          hint: "the container or the engine stopped answering; see the container's log",
        }),
    );
  }

  private async execNow(id: string, cmd: string[], opts?: { user?: string; env?: Record<string, string> }) {
    const ex = await this.docker.getContainer(id).exec({
      Cmd: cmd,
      AttachStdout: true,
      AttachStderr: true,
      User: opts?.user,
      Env: opts?.env ? Object.entries(opts.env).map(([k, v]) => `${k}=${v}`) : undefined,
    });
    const stream = await ex.start({ hijack: true, stdin: false });
    const out = new PassThrough();
    const err = new PassThrough();
    const so = new BoundedOutput();
    const se = new BoundedOutput();
    out.on("data", (d: Buffer) => so.push(d));
    err.on("data", (d: Buffer) => se.push(d));
    this.docker.modem.demuxStream(stream, out, err);
    await new Promise<void>((resolve, reject) => {
      stream.on("end", () => resolve());
      stream.on("close", () => resolve());
      // The program only: its arguments may hold a password.
      stream.on("error", (e: Error) => reject(outputCutShort(`exec of ${cmd[0]} in container ${id}`, e)));
    });
    const info = await ex.inspect();
    // Output past the bound is dropped: the caller gets a failure, never a silently shortened answer.
    if (so.dropped > 0 || se.dropped > 0)
      throw new TwinbenchError(
        `exec of ${cmd[0]} in container ${id} printed more than ${MAX_EXEC_OUTPUT_BYTES / 2 ** 20} MiB (${so.dropped + se.dropped} bytes dropped)`,
        { code: "ENGINE_STREAM", hint: "this is a twinbench bug: an exec's output is expected to be small" },
      );
    return { exitCode: info.ExitCode ?? -1, stdout: so.text(), stderr: se.text() };
  }

  async run(spec: ContainerSpec, opts: RunOpts): Promise<RunResult> {
    const id = await this.createContainer(spec);
    opts.onCreated?.(id);
    const c = this.docker.getContainer(id);
    let output = "";
    let partial = { out: "", err: "" };
    const feed = (which: "out" | "err") => (d: Buffer) => {
      const text = d.toString("utf8");
      output += text;
      const buf = partial[which] + text;
      const lines = buf.split("\n");
      partial[which] = lines.pop() ?? "";
      for (const l of lines) opts.onLine?.(l);
    };
    let timedOut = false;
    let cancelled = false;
    let timer: NodeJS.Timeout | undefined;
    const onAbort = () => {
      cancelled = true;
      void this.kill(id, "SIGKILL");
    };
    try {
      const stream = await c.attach({ stream: true, stdout: true, stderr: true });
      const out = new PassThrough();
      const err = new PassThrough();
      out.on("data", feed("out"));
      err.on("data", feed("err"));
      this.docker.modem.demuxStream(stream, out, err);
      // A stream error is not an end: it is kept and raised once the container has stopped (below).
      let streamError: Error | undefined;
      const ended = new Promise<void>((resolve) => {
        stream.on("end", () => resolve());
        stream.on("close", () => resolve());
        stream.on("error", (e: Error) => {
          streamError = e;
          resolve();
        });
      });
      if (opts.signal?.aborted) onAbort();
      opts.signal?.addEventListener("abort", onAbort, { once: true });
      if (!cancelled) await c.start();
      if (opts.timeoutMs) {
        timer = setTimeout(() => {
          timedOut = true;
          void this.kill(id, "SIGKILL");
        }, opts.timeoutMs);
      }
      const res = (await c.wait()) as { StatusCode: number };
      await Promise.race([ended, new Promise((r) => setTimeout(r, 2000))]);
      for (const w of ["out", "err"] as const) if (partial[w]) opts.onLine?.(partial[w]);
      // Cancelled: the caller discards the output anyway, and the kill itself may break the stream.
      if (streamError && !cancelled) throw outputCutShort(`container ${spec.name} (image ${spec.image})`, streamError);
      return { exitCode: res.StatusCode, output, timedOut, cancelled };
    } finally {
      if (timer) clearTimeout(timer);
      opts.signal?.removeEventListener("abort", onAbort);
      await this.remove(id);
    }
  }

  async listLabelled(filters: string[]): Promise<LabelledResources> {
    const f = JSON.stringify({ label: filters });
    const [cs, ns, vs] = await Promise.all([
      this.docker.listContainers({ all: true, filters: f }),
      this.docker.listNetworks({ filters: f }),
      this.docker.listVolumes({ filters: f }),
    ]);
    return {
      containers: cs.map((c) => ({
        id: c.Id,
        name: (c.Names[0] ?? "").replace(/^\//, ""),
        labels: c.Labels ?? {},
        state: c.State,
      })),
      networks: ns.map((n) => ({ id: n.Id, name: n.Name, labels: n.Labels ?? {} })),
      volumes: (vs.Volumes ?? []).map((v) => ({ name: v.Name, labels: (v.Labels as Record<string, string>) ?? {} })),
    };
  }
}

/** Decode a non-TTY docker log buffer (8-byte frame headers) into text. */
export function demuxBuffer(buf: Buffer | string): string {
  if (typeof buf === "string") return buf;
  let out = "";
  let i = 0;
  while (i + 8 <= buf.length) {
    const type = buf[i];
    const len = buf.readUInt32BE(i + 4);
    if (type !== 0 && type !== 1 && type !== 2) return buf.toString("utf8");
    out += buf.subarray(i + 8, i + 8 + len).toString("utf8");
    i += 8 + len;
  }
  return out;
}

/**
 * The engine stopped answering (dockerd stopped or restarted, the socket gone, the connection cut): errors from the
 * connection itself, which carry no HTTP status.
 */
export function isEngineConnectionError(e: unknown): boolean {
  const x = e as NodeJS.ErrnoException & { statusCode?: number };
  if (!x || typeof x !== "object" || x.statusCode !== undefined) return false;
  return (
    ["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "EHOSTUNREACH"].includes(x.code ?? "") ||
    (x.code === "ENOENT" && x.syscall === "connect")
  );
}
