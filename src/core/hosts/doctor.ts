/**
 * What `twinbench doctor` knows of a host: the facts the host adapter probes (HostFacts: OS, engine, cgroups, disks,
 * tools, image lock) and the thresholds and names the checks and fixes use. No I/O here: the probes live in
 * src/adapters/host/doctor.ts; the checks in doctor-checks.ts, the fixes in doctor-fix.ts.
 */
import { TOOL_PACKAGES } from "../storage/tools.ts";
import type { Mirrors } from "../images/mirror.ts";

export type OsFamily = "debian" | "ubuntu" | "other";

export interface OsFacts {
  /** ID= of /etc/os-release ("debian", "ubuntu", "fedora", ...), or "" when unreadable. */
  id: string;
  /** ID_LIKE= words. */
  idLike: string[];
  /** PRETTY_NAME=, for messages. */
  prettyName: string;
}

export type EngineFacts =
  | {
      answers: true;
      /** "unix:///var/run/docker.sock" or the DOCKER_HOST value. */
      endpoint: string;
      serverVersion: string;
      /** Which engine answers the Docker API: Docker itself, or Podman's Docker-compatible service. */
      product: "docker" | "podman";
      apiVersion: string;
      storageDriver: string;
      /** "1" | "2" as the engine reports it (/info CgroupVersion); "" for engines too old to say. */
      cgroupVersion: string;
      /** "cgroupfs" | "systemd" | "" */
      cgroupDriver: string;
      dockerRootDir: string;
      /** /info Warnings, passed through. */
      warnings: string[];
    }
  | { answers: false; endpoint: string; error: string };

export interface DiskFacts {
  /** The directory asked about (e.g. /var/lib/docker). */
  path: string;
  /** Free bytes for an unprivileged writer (statfs bavail × bsize), or null when it could not be inspected. */
  freeBytes: number | null;
  /** Why freeBytes is null. */
  error?: string;
  /** The directory actually measured when `path` does not exist (its nearest existing ancestor). */
  measuredAt?: string;
}

/** Executables twinbench (or --fix) cares about, each found on PATH or not. */
export interface ToolFacts {
  dockerd: boolean;
  debootstrap: boolean;
  mkfsBtrfs: boolean;
  mkfsXfs: boolean;
  mdadm: boolean;
  /** `docker-compose` (v1 python or v2 standalone) answers `version`. */
  dockerComposeStandalone: boolean;
  /** `docker compose version` answers (the CLI plugin). */
  dockerComposePlugin: boolean;
  aptGet: boolean;
  systemctl: boolean;
}

export interface HostFacts {
  os: OsFacts;
  isRoot: boolean;
  /** comm of PID 1 ("systemd", "init", "tini", ...). */
  pid1: string;
  engine: EngineFacts;
  /** Host view of cgroups (from /sys/fs/cgroup), used when the engine does not answer or to check cpuset. */
  cgroup: { version: 1 | 2 | null; cpuset: boolean };
  diskDockerRoot: DiskFacts;
  diskResults: DiskFacts;
  tools: ToolFacts;
  /** /proc/mdstat exists (the md driver is loaded). */
  mdstat: boolean;
  /** /dev/loop-control exists. */
  loopControl: boolean;
  /** The image mode a run will use, and whether the user forced it (TWINBENCH_IMAGE_MODE / --image-mode). */
  imageMode: { mode: "debian" | "official"; forced: boolean };
  /** The image lock: which images still have a PLACEHOLDER official digest (official mode needs none), or why it could not be read. */
  lock: LockFacts;
  /** twinbench runs inside a container (docker-compose.yml's service): host packages and dockerd are not ours. */
  inContainer: boolean;
  /** The Node.js running twinbench (process.versions.node) and today's date (YYYY-MM-DD), for its end of life. */
  node: { version: string; today: string };
  /** The Debian mirrors image builds use (the lock's override, else the host's apt sources), each with its source. */
  mirrors: Mirrors;
}

/** What doctor knows of images/lock.yaml: the images whose `official.digest` is still PLACEHOLDER. */
export type LockFacts = { file: string; placeholder: string[] } | { file: string; error: string };

export const MIN_API_VERSION = "1.41";
export const LOW_DISK_BYTES = 10 * 1024 ** 3;
export const DOCKERD_LOG = "/var/log/twinbench-dockerd.log";
export const ENGINE_WAIT_MS = 60_000;
export const DEFAULT_ENDPOINT = "unix:///var/run/docker.sock";

/** Debian package that provides each missing piece `--fix` installs. */
export const PACKAGES = {
  engine: "docker.io",
  debootstrap: "debootstrap",
  btrfs: TOOL_PACKAGES["mkfs.btrfs"],
  xfs: TOOL_PACKAGES["mkfs.xfs"],
  mdadm: TOOL_PACKAGES.mdadm,
  compose: "docker-compose",
} as const;

/** Debian, Ubuntu (or a derivative of either), or another OS. */
export function osFamily(os: OsFacts): OsFamily {
  if (os.id === "debian") return "debian";
  if (os.id === "ubuntu") return "ubuntu";
  if (os.idLike.includes("ubuntu")) return "ubuntu";
  if (os.idLike.includes("debian")) return "debian";
  return "other";
}
