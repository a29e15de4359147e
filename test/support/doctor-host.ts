/** Doctor host facts for the unit tests: a fully equipped Debian host with a running engine, and its variants. */
import type { HostFacts } from "../../src/core/hosts/doctor.ts";

export const GiB = 1024 ** 3;

export const DEBIAN = { id: "debian", idLike: [], prettyName: "Debian GNU/Linux 12 (bookworm)" };
export const UBUNTU = { id: "ubuntu", idLike: ["debian"], prettyName: "Ubuntu 24.04 LTS" };
export const FEDORA = { id: "fedora", idLike: [], prettyName: "Fedora Linux 40" };

export const runningEngine: Extract<HostFacts["engine"], { answers: true }> = {
  answers: true,
  endpoint: "unix:///var/run/docker.sock",
  serverVersion: "20.10.24+dfsg1",
  product: "docker",
  apiVersion: "1.41",
  storageDriver: "overlay2",
  cgroupVersion: "1",
  cgroupDriver: "cgroupfs",
  dockerRootDir: "/var/lib/docker",
  warnings: [],
};
export const noEngine: Extract<HostFacts["engine"], { answers: false }> = {
  answers: false,
  endpoint: "unix:///var/run/docker.sock",
  error: "ENOENT connect ENOENT /var/run/docker.sock",
};

/** A fully equipped Debian host with a running engine. */
export function host(over: Partial<HostFacts> = {}, tools: Partial<HostFacts["tools"]> = {}): HostFacts {
  return {
    os: DEBIAN,
    isRoot: true,
    pid1: "process_api",
    engine: runningEngine,
    cgroup: { version: 1, cpuset: true },
    diskDockerRoot: { path: "/var/lib/docker", freeBytes: 70 * GiB },
    diskResults: { path: "/repo/results", freeBytes: 70 * GiB },
    tools: {
      dockerd: true,
      debootstrap: true,
      mkfsBtrfs: true,
      mkfsXfs: true,
      mdadm: true,
      dockerComposeStandalone: true,
      dockerComposePlugin: false,
      aptGet: true,
      systemctl: true,
      ...tools,
    },
    mdstat: true,
    loopControl: true,
    imageMode: { mode: "debian", forced: false },
    lock: { file: "images/lock.yaml", placeholder: [] },
    inContainer: false,
    node: { version: "24.11.1", today: "2026-12-06" },
    mirrors: {
      debian: { uri: "http://mirror.example.test/debian", from: "/etc/apt/sources.list.d/debian.sources:1" },
      security: { uri: "http://mirror.example.test/debian-security", from: "/etc/apt/sources.list.d/debian.sources:7" },
    },
    ...over,
  };
}

export const bareTools = {
  dockerd: false,
  debootstrap: false,
  mkfsBtrfs: false,
  mkfsXfs: false,
  mdadm: false,
  dockerComposeStandalone: false,
  dockerComposePlugin: false,
};
