/**
 * The storage port: turns a scenario `storage` spec into a storage mount for the server's data dir
 * (/var/lib/mysql), records facts, and undoes everything it did.
 */
import type { Storage } from "../../core/model/scenario/schema.ts";
import type { StorageFacts } from "../../core/model/results.ts";
import type { StorageMount } from "../../core/model/engine/mounts.ts";
import type { ContainerPort } from "../../core/model/engine/containers.ts";
import type { Engine } from "../../core/model/engine/engine.ts";

/** What storage needs from the engine port: volumes, a short probe container, where the engine runs. */
export type StorageEngine = Pick<Engine, "ping" | "location" | "facts" | "volumes"> & {
  readonly containers: Pick<ContainerPort, "run">;
};

export interface StorageRequest {
  spec: Storage;
  serverId: string;
  runId: string;
  sessionId: string;
  /** Results folder of the run; the provider keeps its state file here (storage-state.json). */
  runDir: string;
  /** uid/gid the server runs as inside the container (images use 999). */
  uid: number;
  gid: number;
  /** Labels every Docker resource must carry. */
  labels: Record<string, string>;
  /** --wipe-devices was given. */
  wipeDevices?: boolean;
  /** Container memory limit, for the tmpfs warning. */
  memoryBytes?: number;
  /** innodb_buffer_pool_size, for the tmpfs warning (tmpfs size + buffer pool vs the memory limit). */
  bufferPoolBytes?: number;
  /** An image present on the engine with sh, df and grep (the server image will do). Used for a short container
   *  that chowns a volume and measures it; without it, volumes are measured on the host when the engine is local. */
  probeImage?: string;
}

export interface ProvisionedStorage {
  mount: StorageMount;
  facts: StorageFacts;
  warnings: string[];
  /** True when the data only lives while some container holds the mount (tmpfs-backed volume): the engine
   *  must keep a holder container alive for the whole run. */
  needsHolder: boolean;
  /** Refresh facts (free space after the run). */
  refreshFacts(): Promise<StorageFacts>;
  /** Undo everything, in reverse order. Idempotent. */
  dispose(): Promise<void>;
}

export interface StorageProvider {
  /** Fail early (before anything is created) when the host lacks a tool or privilege the spec needs. */
  preflight(spec: Storage): Promise<void>;
  provision(req: StorageRequest): Promise<ProvisionedStorage>;
  /**
   * Undo whatever killed runs left (mounts, loop devices, backing files, volumes), from state files (only `runId`'s,
   * when given). Returns one line per thing undone or found gone. Skips records whose process still runs. A damaged
   * state file is a STORAGE_STATE_CORRUPT error naming it. `force`: also records written on another hostname
   * (twinbench in a container since removed); damaged state files are moved aside to `<file>.corrupt`; and
   * twinbench's mounts and loop devices that the mount and loop tables show (not held by a live run) are undone.
   */
  cleanLeftovers(opts?: { runDir?: string; runId?: string; force?: boolean }): Promise<string[]>;
  /**
   * The same provider on another view of its engine (a run's engine, guarded against the loss of its host): its
   * engine calls then fail at once when the host is lost, while its host-side steps (unmount, loop detach) still run.
   */
  onEngine?(engine: StorageEngine): StorageProvider;
}
