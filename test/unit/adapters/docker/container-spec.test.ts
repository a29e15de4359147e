/**
 * The engine port's container spec in Docker's words (src/adapters/docker/container-spec.ts): storage mounts,
 * network attachment and limits as the Engine API's create-container body, which must be what the engine got
 * before the port spoke the lab's words.
 */
import { describe, expect, it } from "vitest";
import {
  createContainerOptions,
  dockerMount,
  limitsHostConfig,
  networkMode,
} from "../../../../src/adapters/docker/container-spec.ts";
import type { ContainerSpec } from "../../../../src/core/model/engine/containers.ts";

describe("dockerMount", () => {
  it("a data volume that starts empty asks the engine not to copy the image's files (NoCopy)", () => {
    expect(dockerMount({ kind: "volume", source: "tb-r1-a-data", target: "/var/lib/mysql", startEmpty: true })).toEqual(
      { Type: "volume", Source: "tb-r1-a-data", Target: "/var/lib/mysql", VolumeOptions: { NoCopy: true } },
    );
  });

  it("a plain volume and a bind mount carry only type, source and target", () => {
    const vol = dockerMount({ kind: "volume", source: "sock", target: "/run/mysqld" });
    expect(vol).toEqual({ Type: "volume", Source: "sock", Target: "/run/mysqld" });
    expect(Object.keys(vol)).toEqual(["Type", "Source", "Target"]);
    expect(dockerMount({ kind: "bind", source: "/mnt/array/twinbench-r1-a", target: "/data" })).toEqual({
      Type: "bind",
      Source: "/mnt/array/twinbench-r1-a",
      Target: "/data",
    });
  });

  it("a tmpfs mount gives its size and mode as TmpfsOptions, and none when it has neither", () => {
    expect(dockerMount({ kind: "tmpfs", target: "/scratch", sizeBytes: 64 * 2 ** 20, mode: 0o750 })).toEqual({
      Type: "tmpfs",
      Target: "/scratch",
      TmpfsOptions: { SizeBytes: 67108864, Mode: 0o750 },
    });
    expect(dockerMount({ kind: "tmpfs", target: "/scratch" })).toEqual({ Type: "tmpfs", Target: "/scratch" });
  });
});

describe("networkMode", () => {
  it("names the network, shares another container's stack, or has none; unset keeps the engine's default", () => {
    expect(networkMode({ kind: "network", name: "tb-r1-net" })).toBe("tb-r1-net");
    expect(networkMode({ kind: "shared", containerId: "abc123" })).toBe("container:abc123");
    expect(networkMode({ kind: "none" })).toBe("none");
    expect(networkMode(undefined)).toBeUndefined();
  });
});

describe("limitsHostConfig", () => {
  it("cpuset as CpusetCpus, CPUs as nanocpus (docker --cpus), memory with no swap beyond it", () => {
    expect(limitsHostConfig({ cpuset: "0-1,3", cpus: 1.5, memoryBytes: 2 ** 30 })).toEqual({
      CpusetCpus: "0-1,3",
      NanoCpus: 1_500_000_000,
      Memory: 2 ** 30,
      MemorySwap: 2 ** 30,
    });
  });

  it("rounds a CPU quota to whole nanocpus, and leaves every field unset without limits", () => {
    expect(limitsHostConfig({ cpus: 1 / 3 }).NanoCpus).toBe(333_333_333);
    expect(JSON.stringify(limitsHostConfig(undefined))).toBe("{}");
    expect(JSON.stringify(limitsHostConfig({ cpuset: "1" }))).toBe('{"CpusetCpus":"1"}');
  });
});

describe("createContainerOptions", () => {
  const server: ContainerSpec = {
    name: "tb-r1-mariadb",
    image: "twinbench/mariadb-11.8:abc",
    cmd: ["--defaults-file=/etc/mysql/twinbench.cnf"],
    env: { MARIADB_ROOT_PASSWORD: "pw" },
    labels: { "twinbench.run": "r1" },
    mounts: [
      { kind: "volume", source: "tb-r1-mariadb-data", target: "/var/lib/mysql", startEmpty: true },
      { kind: "volume", source: "tb-r1-mariadb-sock", target: "/run/mysqld" },
    ],
    network: { kind: "network", name: "tb-r1-net" },
    limits: { cpuset: "1", memoryBytes: 2 ** 31 },
  };

  it("sends a server's spec as the same Engine API body, field for field and in order", () => {
    expect(JSON.stringify(createContainerOptions(server))).toBe(
      JSON.stringify({
        name: "tb-r1-mariadb",
        Image: "twinbench/mariadb-11.8:abc",
        Cmd: ["--defaults-file=/etc/mysql/twinbench.cnf"],
        Env: ["MARIADB_ROOT_PASSWORD=pw"],
        Labels: { "twinbench.run": "r1" },
        Tty: false,
        AttachStdout: true,
        AttachStderr: true,
        HostConfig: {
          Mounts: [
            {
              Type: "volume",
              Source: "tb-r1-mariadb-data",
              Target: "/var/lib/mysql",
              VolumeOptions: { NoCopy: true },
            },
            { Type: "volume", Source: "tb-r1-mariadb-sock", Target: "/run/mysqld" },
          ],
          NetworkMode: "tb-r1-net",
          CpusetCpus: "1",
          Memory: 2 ** 31,
          MemorySwap: 2 ** 31,
          Init: false,
          PublishAllPorts: false,
          LogConfig: { Type: "json-file", Config: { "max-size": "10m", "max-file": "3" } },
        },
      }),
    );
  });

  it("never publishes a port, and leaves out what the spec does not give", () => {
    const o = createContainerOptions({ name: "x", image: "y", labels: {} });
    expect(o.HostConfig?.PublishAllPorts).toBe(false);
    expect(o.HostConfig?.PortBindings).toBeUndefined();
    expect(o.ExposedPorts).toBeUndefined();
    expect(o.Env).toBeUndefined();
    expect(o.HostConfig?.Mounts).toBeUndefined();
    expect(o.HostConfig?.NetworkMode).toBeUndefined();
  });

  it("runs as the spec's user in its working directory, with its entrypoint", () => {
    const o = createContainerOptions({
      name: "load",
      image: "sysbench",
      entrypoint: ["sysbench"],
      labels: {},
      user: "0:0",
      workingDir: "/usr/share/sysbench",
      network: { kind: "shared", containerId: "c1" },
      limits: { cpus: 2 },
    });
    expect(o).toMatchObject({ Entrypoint: ["sysbench"], User: "0:0", WorkingDir: "/usr/share/sysbench" });
    expect(o.HostConfig).toMatchObject({ NetworkMode: "container:c1", NanoCpus: 2_000_000_000 });
  });
});
