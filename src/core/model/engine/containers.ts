/**
 * The containers part of the engine port: what a container is made of (image, command, mounts, network, limits,
 * labels), its life cycle, its state and its output. Types only.
 */
import type { StorageMount } from "./mounts.ts";

/** The network a container joins. */
export type NetworkAttachment =
  /** No network at all (only a loopback device). */
  | { kind: "none" }
  /** One of the lab's private networks, by name (or id). */
  | { kind: "network"; name: string }
  /** The network stack of another container (a sidecar reaching its server at 127.0.0.1). */
  | { kind: "shared"; containerId: string };

/** What a container may use of its host. Unset: no limit. */
export interface ResourceLimits {
  /** The host CPUs it may run on, as a cpuset ("1", "0-1,3"). */
  cpuset?: string;
  /** A CPU quota in cores (1.5 = one and a half CPUs' time). */
  cpus?: number;
  /** Memory, the same figure with or without swap: no swap beyond it. */
  memoryBytes?: number;
}

/** A file the engine writes into a container after creating it and before starting it (no mount needed). */
export interface ContainerFile {
  /** Absolute path inside the container; missing folders are made. */
  path: string;
  content: string;
  /** Default 0o644. */
  mode?: number;
}

export interface ContainerSpec {
  name: string;
  image: string;
  cmd?: string[];
  entrypoint?: string[];
  env?: Record<string, string>;
  labels: Record<string, string>;
  mounts?: StorageMount[];
  /** Unset: the engine's default network. */
  network?: NetworkAttachment;
  limits?: ResourceLimits;
  /** "uid", "uid:gid" or a user name of the image. */
  user?: string;
  workingDir?: string;
  /** Files put into the container once it is created, before it starts: one archive through the engine's API. */
  files?: ContainerFile[];
}

/** Options of {@link ContainerPort.run}. */
export interface RunOpts {
  onLine?: (line: string) => void;
  /** Called with the container's full id once it is created, before it starts. */
  onCreated?: (id: string) => void;
  signal?: AbortSignal;
  timeoutMs?: number;
}

export interface RunResult {
  exitCode: number | null;
  output: string;
  timedOut: boolean;
  cancelled: boolean;
}

export interface ContainerState {
  running: boolean;
  paused: boolean;
  exitCode: number | null;
  oomKilled: boolean;
  /** Its address on each network it joined, by network name. */
  ips: Record<string, string>;
}

export interface ContainerListing {
  id: string;
  name: string;
  labels: Record<string, string>;
  /** "running", "exited", "paused", … */
  state: string;
}

/**
 * Containers. Stopping, killing, removing, pausing and unpausing are idempotent: a container that is gone or
 * already in that state is no error.
 */
export interface ContainerPort {
  /** Create (not start) a container; resolves to its full id. */
  create(spec: ContainerSpec): Promise<string>;
  /** Write one file into a container (created or running), with the given mode (default 0o644). */
  putFile(id: string, path: string, content: string, mode?: number): Promise<void>;
  start(id: string): Promise<void>;
  stop(id: string, timeoutSeconds: number): Promise<void>;
  /** Send a signal (default SIGKILL). */
  kill(id: string, signal?: string): Promise<void>;
  /** Remove it with its anonymous volumes, running or not. */
  remove(id: string): Promise<void>;
  pause(id: string): Promise<void>;
  unpause(id: string): Promise<void>;
  inspect(id: string): Promise<ContainerState>;
  /** The full id of a container by name or id, or undefined when the engine has none such. */
  idOf(nameOrId: string): Promise<string | undefined>;
  /** The last `tail` lines (default 200) of its output; "" when the container is gone. */
  logs(id: string, tail?: number): Promise<string>;
  /**
   * Create, attach, start and wait for a container; stream its output lines. Removes it afterwards. `onCreated`
   * gets the container's full id before it starts (e.g. to read its cgroup while it runs).
   */
  run(spec: ContainerSpec, opts: RunOpts): Promise<RunResult>;
  /** Containers (running or not) whose labels match every filter (`key` or `key=value`). */
  list(labelFilters: string[]): Promise<ContainerListing[]>;
}
