/**
 * One database server of a run and everything it owns: its private network, socket volume, data-dir storage,
 * a holder container that keeps the data mount alive (tmpfs volumes vanish when no container uses them) and
 * serves snapshot/restore, the snapshot volume, and the server container itself.
 *
 * Every resource is registered on the run's DisposableStack as soon as it exists.
 */
import { randomBytes } from "node:crypto";
import { TwinbenchError, CancelledError } from "../core/base/errors.ts";
import { resourceName, LABEL } from "../core/base/labels.ts";
import type { Transport } from "../core/model/scenario/schema.ts";
import type { StorageFacts } from "../core/model/results.ts";
import { engineError, isNotFound, statusCode } from "../adapters/docker/engine-errors.ts";
import type { Engine } from "../core/model/engine/engine.ts";
import type { ContainerSpec, NetworkAttachment } from "../core/model/engine/containers.ts";
import type { StorageMount } from "../core/model/engine/mounts.ts";
import type { ProvisionedStorage, StorageProvider } from "../adapters/storage/types.ts";
import type { Endpoint, Probe } from "../adapters/mysql/probe.ts";
import type { DisposableStack } from "./disposables.ts";
import { CNF_PATH, DATADIR, MYSQL_UID, SOCKET, SOCKET_DIR, type LabServerInit } from "./lab-server-init.ts";
import { startFailureTail } from "../core/config/startlog.ts";

/** How long a server that may hang gets to answer `SELECT 1` before the run ends. */
export const HUNG_CHECK_MS = 15_000;

export class LabServer {
  readonly rootPassword = randomBytes(12).toString("hex");
  /** The benchmark user's password: drawn on its own, so that it reveals nothing of root's. */
  readonly benchPassword = randomBytes(12).toString("hex");
  containerId: string | undefined;
  networkId: string | undefined;
  networkName: string;
  sockVolume: string;
  snapVolume: string | undefined;
  holderId: string | undefined;
  storage: ProvisionedStorage | undefined;
  ip: string | undefined;
  paused = false;
  containerName: string;

  constructor(
    readonly init: LabServerInit,
    private readonly engine: Engine,
    private readonly storageProvider: StorageProvider,
    private readonly stack: DisposableStack,
    private readonly probe: Probe,
  ) {
    this.networkName = resourceName(init.runId, init.id, "net");
    this.sockVolume = resourceName(init.runId, init.id, "sock");
    this.containerName = resourceName(init.runId, init.id);
  }

  get id(): string {
    return this.init.id;
  }

  private labels(role: string): Record<string, string> {
    return this.init.labels({ [LABEL.role]: role, [LABEL.server]: this.init.id });
  }

  /** Network, socket volume, storage and holder. Everything registered for teardown as it is made. */
  async provision(): Promise<void> {
    const { engine, stack } = this;
    this.networkId = await engine.networks.create(this.networkName, this.labels("network"));
    const netId = this.networkId;
    stack.defer(`network ${this.networkName}`, () => engine.networks.remove(netId));
    if (this.init.selfContainerId) {
      const self = this.init.selfContainerId;
      await engine.networks.connect(netId, self);
      // The network's removal right after fails loudly if the disconnect did not happen; this one stays quiet.
      stack.defer(
        `disconnect self from ${this.networkName}`,
        // quiet: the network's removal right after reports a disconnect that did not happen
        () => engine.networks.disconnect(netId, self).catch(() => undefined),
      );
    }
    await engine.volumes.create(this.sockVolume, this.labels("socket"));
    stack.defer(`volume ${this.sockVolume}`, () => engine.volumes.remove(this.sockVolume));

    this.storage = await this.storageProvider.provision({
      spec: this.init.storage,
      serverId: this.init.id,
      runId: this.init.runId,
      sessionId: this.init.sessionId,
      runDir: this.init.runDir,
      uid: MYSQL_UID,
      gid: MYSQL_UID,
      labels: this.labels("data"),
      wipeDevices: this.init.wipeDevices,
      memoryBytes: this.init.memoryBytes,
      bufferPoolBytes: this.init.bufferPoolBytes,
      probeImage: this.init.imageTag,
    });
    const st = this.storage;
    stack.defer(`storage of ${this.init.id}`, () => st.dispose());

    // The holder keeps the data mount alive across server restarts and runs snapshot/restore copies.
    this.holderId = await engine.containers.create({
      name: resourceName(this.init.runId, this.init.id, "holder"),
      image: this.init.imageTag,
      entrypoint: ["sleep", "infinity"],
      labels: this.labels("holder"),
      mounts: [{ ...this.dataMount(), target: "/data" }],
      network: { kind: "none" },
      limits: { cpuset: this.init.holderCpuset },
      user: "0",
    });
    const hid = this.holderId;
    stack.defer(`holder of ${this.init.id}`, () => engine.containers.remove(hid));
    await engine.containers.start(hid);
  }

  dataMount(): StorageMount {
    if (!this.storage) throw new Error("storage not provisioned");
    return { ...this.storage.mount, target: DATADIR };
  }

  get storageFacts(): StorageFacts | undefined {
    return this.storage?.facts;
  }

  private serverSpec(): ContainerSpec {
    const env: Record<string, string> =
      this.init.family === "mysql"
        ? { MYSQL_ROOT_PASSWORD: this.rootPassword }
        : { MARIADB_ROOT_PASSWORD: this.rootPassword };
    return {
      name: this.containerName,
      image: this.init.imageTag,
      cmd: [`--defaults-file=${CNF_PATH}`],
      env,
      labels: this.labels("server"),
      mounts: [this.dataMount(), { kind: "volume", source: this.sockVolume, target: SOCKET_DIR }],
      network: { kind: "network", name: this.networkName },
      limits: { cpuset: this.init.cpuset, memoryBytes: this.init.memoryBytes },
    };
  }

  /** Create and start the server container with the rendered config, then wait for SELECT 1. */
  async start(signal?: AbortSignal): Promise<number> {
    const { engine } = this;
    const id = await engine.containers.create(this.serverSpec());
    this.containerId = id;
    this.paused = false;
    this.stack.defer(`server ${this.containerName}`, async () => {
      await engine.containers.unpause(id);
      await engine.containers.remove(id);
    });
    await engine.containers.putFile(id, CNF_PATH, this.init.cnf);
    await engine.containers.start(id);
    const st = await engine.containers.inspect(id);
    this.ip = st.ips[this.networkName];
    if (!this.ip)
      throw new TwinbenchError(`server ${this.init.id} has no address on ${this.networkName}`, {
        code: "SERVER_NO_IP",
        hint: "check the Docker network driver",
      });
    try {
      return await this.probe.waitReady(this.rootEndpoint(), {
        deadlineMs: this.init.readyTimeoutMs,
        signal,
        alive: async () => (await engine.containers.inspect(id)).running,
      });
    } catch (e) {
      if (e instanceof CancelledError) throw e;
      const log = await engine.containers
        .logs(id, 400)
        .catch((le: unknown) => `(could not read the server's log: ${(le as Error).message})`);
      const tail = startFailureTail(log, 30);
      const opt = tail.refused?.option;
      throw new TwinbenchError(
        `server "${this.init.id}" (image ${this.init.imageTag}) failed to start: ${(e as Error).message}`,
        {
          code: "SERVER_START_FAILED",
          hint: opt
            ? `the server refused option "${opt}": fix or remove it in the scenario's config (see \`twinbench config render\`)`
            : "read the log tail above",
          details: ["last lines of the server's error log:", ...tail.lines],
          cause: e,
        },
      );
    }
  }

  /**
   * Raise SERVER_HUNG when the server does not answer `SELECT 1` within `deadlineMs` (`after` says when: "after its
   * cell ran past its limit"). A server that exited is left to the caller's restart.
   */
  async assertAnswers(after: string, deadlineMs = HUNG_CHECK_MS): Promise<void> {
    const id = this.containerId;
    if (!id) return;
    try {
      await this.probe.waitReady(this.rootEndpoint(), {
        deadlineMs,
        alive: async () => (await this.engine.containers.inspect(id)).running,
      });
    } catch (e) {
      if (e instanceof CancelledError || (e instanceof TwinbenchError && e.code === "SERVER_EXITED")) throw e;
      throw new TwinbenchError(
        `server "${this.init.id}" (container ${this.containerName}) did not answer SELECT 1 within ${deadlineMs / 1000} s ${after}: it hangs (${(e as Error).message})`,
        {
          code: "SERVER_HUNG",
          hint: "a stopped server process or a stalled data dir; the run was torn down, so `twinbench run --resume` starts it again",
          cause: e,
        },
      );
    }
  }

  rootEndpoint(): Endpoint {
    if (!this.ip) throw new Error("server not started");
    return { host: this.ip, port: 3306, user: "root", password: this.rootPassword };
  }

  /**
   * Whether the server's container runs. Only "no such container" (404) counts as dead: any other inspect error is
   * raised as the engine's, so a live server is never restarted because of a transient error.
   */
  async isRunning(): Promise<boolean> {
    if (!this.containerId) return false;
    try {
      return (await this.engine.containers.inspect(this.containerId)).running;
    } catch (e) {
      if (isNotFound(e)) return false; // the engine has no such container: the server is gone
      throw e instanceof TwinbenchError
        ? e
        : engineError(`cannot tell whether server "${this.init.id}" (container ${this.containerName}) runs`, e);
    }
  }

  /**
   * Whether the server's container was ended by the kernel's OOM killer (its memory limit reached). False when it
   * runs or is gone; an engine failure is raised.
   */
  async oomKilled(): Promise<boolean> {
    if (!this.containerId) return false;
    try {
      const st = await this.engine.containers.inspect(this.containerId);
      return !st.running && st.oomKilled;
    } catch (e) {
      if (isNotFound(e)) return false; // the engine has no such container: nothing to say how it ended
      throw e instanceof TwinbenchError
        ? e
        : engineError(`cannot tell how server "${this.init.id}" (container ${this.containerName}) ended`, e);
    }
  }

  /** Clean shutdown (InnoDB flushes), then remove the container. The data stays in the mount. */
  async stopAndRemove(): Promise<void> {
    if (!this.containerId) return;
    const id = this.containerId;
    await this.engine.containers.unpause(id);
    await this.engine.containers.stop(id, 180);
    await this.engine.containers.remove(id);
    this.containerId = undefined;
  }

  async restart(signal?: AbortSignal): Promise<number> {
    if (this.containerId) {
      await this.engine.containers.remove(this.containerId);
      this.containerId = undefined;
    }
    return this.start(signal);
  }

  /**
   * Freeze the idle server (cgroup freezer) so its background work does not run during another server's cell.
   * Best effort: the freezer can refuse while tasks sit in uninterruptible I/O; it is retried, and `false` means
   * the server stays running (the caller records that).
   * Three tries 1 s apart, written out: p-retry would add a dependency for a fixed three-step loop.
   */
  async pause(): Promise<boolean> {
    if (!this.containerId || this.paused) return true;
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        await this.engine.containers.pause(this.containerId);
        this.paused = true;
        return true;
      } catch (e) {
        // Only the engine's own refusal (an HTTP 500 answer: the freezer could not freeze tasks in uninterruptible
        // I/O) is retried and, after 3, recorded as `false`. An engine that does not answer, or any other error, is
        // raised: an outage is not a refusal.
        if (statusCode(e) !== 500)
          throw e instanceof TwinbenchError ? e : engineError(`pausing server "${this.init.id}"`, e);
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
    return false;
  }
  async unpause(): Promise<void> {
    if (this.containerId && this.paused) {
      await this.engine.containers.unpause(this.containerId);
      this.paused = false;
    }
  }

  async logs(tail = 500): Promise<string> {
    return this.containerId ? this.engine.containers.logs(this.containerId, tail) : "";
  }

  /** Copy the stopped data dir into a snapshot volume (made on first use). The server must be stopped. */
  async snapshot(): Promise<void> {
    const { engine } = this;
    if (!this.holderId) throw new Error("no holder");
    if (!this.snapVolume) {
      this.snapVolume = resourceName(this.init.runId, this.init.id, "snap");
      await engine.volumes.create(this.snapVolume, this.labels("snapshot"));
      const v = this.snapVolume;
      this.stack.defer(`volume ${v}`, () => engine.volumes.remove(v));
    }
    await this.copy(["/data/.", "/snap/"], true);
  }

  /** Replace the data dir with the snapshot. The server must be stopped. */
  async restore(): Promise<void> {
    if (!this.snapVolume)
      throw new TwinbenchError(`no snapshot for server ${this.init.id}`, {
        code: "NO_SNAPSHOT",
        hint: "a snapshot is made right after prepare when fresh: per-test",
      });
    await this.copy(["/snap/.", "/data/"], false);
  }

  private async copy(cpArgs: string[], intoSnapshot: boolean): Promise<void> {
    const clearDir = intoSnapshot ? "/snap" : "/data";
    const mounts: StorageMount[] = [
      { ...this.dataMount(), target: "/data" },
      { kind: "volume", source: this.snapVolume!, target: "/snap" },
    ];
    for (const cmd of [
      ["find", clearDir, "-mindepth", "1", "-delete"],
      ["cp", "-a", ...cpArgs],
    ]) {
      const r = await this.engine.containers.run(
        {
          name: resourceName(this.init.runId, this.init.id, "copy", randomBytes(3).toString("hex")),
          image: this.init.imageTag,
          entrypoint: [cmd[0]!],
          cmd: cmd.slice(1),
          labels: this.labels("copy"),
          mounts,
          network: { kind: "none" },
          user: "0",
          limits: { cpuset: this.init.holderCpuset },
        },
        {},
      );
      if (r.exitCode !== 0)
        throw new TwinbenchError(`${cmd.join(" ")} failed for server ${this.init.id}: ${r.output.trim()}`, {
          code: "SNAPSHOT_FAILED",
          hint: "check free space of the data dir and the Docker root",
        });
    }
  }

  /** The sidecar's connection to this server over the given transport. */
  sidecarConnection(transport: Transport): {
    network: NetworkAttachment;
    mounts: StorageMount[];
    host?: string;
    socket?: string;
  } {
    switch (transport) {
      case "socket":
        return {
          network: { kind: "none" },
          mounts: [{ kind: "volume", source: this.sockVolume, target: SOCKET_DIR }],
          socket: SOCKET,
        };
      case "loopback":
        return { network: { kind: "shared", containerId: this.containerId! }, mounts: [], host: "127.0.0.1" };
      case "bridge":
        return { network: { kind: "network", name: this.networkName }, mounts: [], host: this.containerName };
    }
  }
}
