/**
 * The engine port's container spec in Docker's words: the pure translation of mounts, network, limits and the
 * rest into the Engine API's create-container body (HostConfig included). No I/O.
 */
import type Docker from "dockerode";
import type { ContainerSpec, NetworkAttachment, ResourceLimits } from "../../core/model/engine/containers.ts";
import type { StorageMount } from "../../core/model/engine/mounts.ts";

/** A mount in the Engine API's HostConfig.Mounts shape (dockerode's type makes optional fields required). */
export interface DockerMount {
  Type: "volume" | "bind" | "tmpfs";
  Source?: string;
  Target: string;
  VolumeOptions?: { NoCopy?: boolean };
  TmpfsOptions?: { SizeBytes?: number; Mode?: number };
}

/** A storage mount in the Engine API's HostConfig.Mounts shape. */
/**
 * Every container's log: json-file, rotated at 10 MiB and at most 3 files, so a server that logs without end (a
 * crash loop, a warning per query) cannot fill the engine's disk.
 */
export const LOG_CONFIG = { Type: "json-file", Config: { "max-size": "10m", "max-file": "3" } } as const;

export function dockerMount(m: StorageMount): DockerMount {
  switch (m.kind) {
    case "volume":
      return {
        Type: "volume",
        Source: m.source,
        Target: m.target,
        ...(m.startEmpty ? { VolumeOptions: { NoCopy: true } } : {}),
      };
    case "bind":
      return { Type: "bind", Source: m.source, Target: m.target };
    case "tmpfs": {
      const o = {
        ...(m.sizeBytes !== undefined ? { SizeBytes: m.sizeBytes } : {}),
        ...(m.mode !== undefined ? { Mode: m.mode } : {}),
      };
      return { Type: "tmpfs", Target: m.target, ...(Object.keys(o).length > 0 ? { TmpfsOptions: o } : {}) };
    }
  }
}

/** HostConfig.NetworkMode: a network's name, "container:<id>" or "none"; undefined keeps the engine's default. */
export function networkMode(n: NetworkAttachment | undefined): string | undefined {
  if (!n) return undefined;
  switch (n.kind) {
    case "none":
      return "none";
    case "network":
      return n.name;
    case "shared":
      return `container:${n.containerId}`;
  }
}

/** The HostConfig fields of the limits: cpuset, a CPU quota in nanocpus (docker --cpus), memory without swap. */
export function limitsHostConfig(
  l: ResourceLimits | undefined,
): Pick<Docker.HostConfig, "CpusetCpus" | "NanoCpus" | "Memory" | "MemorySwap"> {
  return {
    CpusetCpus: l?.cpuset,
    NanoCpus: l?.cpus === undefined ? undefined : Math.round(l.cpus * 1e9),
    Memory: l?.memoryBytes,
    MemorySwap: l?.memoryBytes, // no swap beyond the limit: identical for every server
  };
}

/** The create-container body for a spec: output attached, no TTY, no init, and never a port published on the host. */
export function createContainerOptions(spec: ContainerSpec): Docker.ContainerCreateOptions {
  return {
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
      Mounts: spec.mounts?.map(dockerMount) as Docker.MountSettings[] | undefined,
      NetworkMode: networkMode(spec.network),
      ...limitsHostConfig(spec.limits),
      Init: false,
      // Never publish ports on the host.
      PublishAllPorts: false,
      LogConfig: LOG_CONFIG,
    },
  };
}
