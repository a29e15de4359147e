/**
 * `twinbench doctor`'s checks: from the probed HostFacts, one check line per concern (ok / warn / fail, each warn
 * and fail with a hint), in a fixed order: the engine, the host (cgroups, disks), the tools, the image mode.
 */
import { compareVersions } from "../config/version.ts";
import { formatBytes } from "../base/units.ts";
import { LOW_DISK_BYTES, MIN_API_VERSION, osFamily, type DiskFacts, type HostFacts } from "./doctor.ts";
import { composeAvailable, missingFsPackages } from "./doctor-fix.ts";
import { nodeLineCheck } from "./node-support.ts";
import { describeMirrors, type Mirrors } from "../images/mirror.ts";

export type CheckStatus = "ok" | "warn" | "fail";

export type CheckId =
  | "node"
  | "engine-product"
  | "mirror"
  | "engine"
  | "api-version"
  | "storage-driver"
  | "cgroups"
  | "disk-docker-root"
  | "disk-results"
  | "debootstrap"
  | "root"
  | "mdstat"
  | "loop-devices"
  | "fs-tools"
  | "compose"
  | "image-mode";

export interface CheckLine {
  id: CheckId;
  status: CheckStatus;
  /** Short label, e.g. "docker engine". */
  title: string;
  /** What was found, with values ("answers on unix:///var/run/docker.sock, 20.10.24"). */
  detail: string;
  /** What to do next; present on every warn/fail line. */
  hint?: string;
}

/** Evaluate every check, in a fixed order. */
export function evaluateChecks(f: HostFacts): CheckLine[] {
  const fixHint = f.inContainer
    ? "inside the twinbench container: run `twinbench doctor --fix` on the host instead"
    : f.isRoot && osFamily(f.os) !== "other"
      ? "run `twinbench doctor --fix`"
      : undefined;
  return [
    nodeLine(f),
    ...engineChecks(f, fixHint),
    ...hostChecks(f),
    ...toolChecks(f, fixHint),
    imageModeLine(f),
    mirrorLine(f.mirrors),
  ];
}

/** The Node that runs twinbench: supported, past its end of life (deprecated), or too old. */
function nodeLine(f: HostFacts): CheckLine {
  const n = nodeLineCheck(f.node.version, f.node.today);
  return { id: "node", status: n.status, title: "node", detail: n.detail, ...(n.hint ? { hint: n.hint } : {}) };
}

/** Which Debian mirror image builds fetch from, and which file named it. Needed only to build a missing image. */
function mirrorLine(m: Mirrors): CheckLine {
  const detail = describeMirrors(m);
  const add =
    "add a Debian source to /etc/apt/sources.list.d/ (or /etc/apt/sources.list), or `mirrors:` to images/lock.yaml";
  if (!m.debian)
    return {
      id: "mirror",
      status: "warn",
      title: "debian mirror",
      detail: `${detail}: images that are not built yet cannot be built`,
      hint: add,
    };
  if (!m.security)
    return {
      id: "mirror",
      status: "warn",
      title: "debian mirror",
      detail: `${detail}: images on a -security suite (bookworm-security) cannot be built`,
      hint: add.replace("a Debian source", "a Debian security source"),
    };
  return { id: "mirror", status: "ok", title: "debian mirror", detail };
}

/** The engine: whether it answers, its API version, its storage driver. */
function engineChecks(f: HostFacts, fixHint: string | undefined): CheckLine[] {
  const lines: CheckLine[] = [];
  const e = f.engine;

  // engine
  if (e.answers) {
    lines.push({
      id: "engine",
      status: "ok",
      title: "docker engine",
      detail: `answers on ${e.endpoint} (${e.product === "podman" ? "Podman" : "Docker"} ${e.serverVersion})`,
    });
  } else {
    lines.push({
      id: "engine",
      status: "fail",
      title: "docker engine",
      detail: `no engine answers on ${e.endpoint}: ${e.error}`,
      hint: f.tools.dockerd
        ? (fixHint ?? "start it: `systemctl start docker` (or `dockerd &` without systemd), as root")
        : (fixHint ?? "install Docker Engine (Debian/Ubuntu: `apt-get install docker.io`) and start it"),
    });
  }

  // Podman's Docker-compatible service answers, but a run needs what it lacks.
  if (e.answers && e.product === "podman")
    lines.push({
      id: "engine-product",
      status: "fail",
      title: "podman",
      detail:
        `Podman ${e.serverVersion} answers the Docker API, but twinbench's runs need a tmpfs-backed named volume with a size ` +
        "(local driver, type=tmpfs, o=size=...), which Podman refuses (volume options size and inodes not supported)",
      hint: "use Docker Engine (Debian: `apt-get install docker.io`, or `twinbench doctor --fix`) and point DOCKER_HOST at it",
    });

  // API version
  if (e.answers) {
    const old = compareVersions(e.apiVersion, MIN_API_VERSION) < 0;
    lines.push(
      old
        ? {
            id: "api-version",
            status: "fail",
            title: "engine API",
            detail: `API ${e.apiVersion} is older than ${MIN_API_VERSION} (Docker ${e.serverVersion})`,
            hint: `upgrade the engine to Docker 20.10 or newer (API ≥ ${MIN_API_VERSION}); --fix never touches a running engine`,
          }
        : {
            id: "api-version",
            status: "ok",
            title: "engine API",
            detail: `API ${e.apiVersion} (≥ ${MIN_API_VERSION})`,
          },
    );
  } else {
    lines.push({
      id: "api-version",
      status: "fail",
      title: "engine API",
      detail: "unknown: no engine answers",
      hint: "fix the engine first",
    });
  }

  // storage driver
  if (e.answers) {
    lines.push(
      e.storageDriver === "overlay2"
        ? { id: "storage-driver", status: "ok", title: "storage driver", detail: "overlay2" }
        : {
            id: "storage-driver",
            status: "warn",
            title: "storage driver",
            detail: `${e.storageDriver || "unknown"} (not overlay2)`,
            hint: "builds and container start-up may be slow or large; overlay2 is recommended (dockerd --storage-driver overlay2)",
          },
    );
  } else {
    lines.push({
      id: "storage-driver",
      status: "warn",
      title: "storage driver",
      detail: "unknown: no engine answers",
      hint: "fix the engine first",
    });
  }
  return lines;
}

/** The host: cgroups (the cpuset controller), free disk for the docker root and for results. */
function hostChecks(f: HostFacts): CheckLine[] {
  const lines: CheckLine[] = [];
  const e = f.engine;

  // cgroups
  {
    const version =
      e.answers && e.cgroupVersion ? e.cgroupVersion : f.cgroup.version === null ? "" : String(f.cgroup.version);
    const driver = e.answers && e.cgroupDriver ? `, driver ${e.cgroupDriver}` : "";
    const detail = `${version ? `v${version}` : "version unknown"}${driver}, cpuset ${f.cgroup.cpuset ? "available" : "missing"}`;
    if (!f.cgroup.cpuset) {
      lines.push({
        id: "cgroups",
        status: "warn",
        title: "cgroups",
        detail,
        hint: "without the cpuset controller, --cpuset-cpus pinning is ignored and the servers compete for the same cores",
      });
    } else if (!version) {
      lines.push({
        id: "cgroups",
        status: "warn",
        title: "cgroups",
        detail,
        hint: "/sys/fs/cgroup is not mounted as cgroup v1 or v2",
      });
    } else {
      lines.push({ id: "cgroups", status: "ok", title: "cgroups", detail });
    }
  }

  lines.push(
    diskLine("disk-docker-root", "free disk (docker root)", f.diskDockerRoot, "images and build caches live here"),
  );
  lines.push(
    diskLine(
      "disk-results",
      "free disk (results)",
      f.diskResults,
      "results folders are small, but file-backed storage modes use this disk",
    ),
  );
  return lines;
}

/** The tools and drivers: debootstrap, root, md, loop devices, filesystem tools, compose. */
function toolChecks(f: HostFacts, fixHint: string | undefined): CheckLine[] {
  const lines: CheckLine[] = [];

  // debootstrap
  lines.push(
    f.tools.debootstrap
      ? { id: "debootstrap", status: "ok", title: "debootstrap", detail: "present" }
      : {
          id: "debootstrap",
          status: f.imageMode.mode === "debian" ? "fail" : "warn",
          title: "debootstrap",
          detail: "missing (needed to build the Debian base images)",
          hint: fixHint ?? "install it: `apt-get install debootstrap` (as root)",
        },
  );

  // root
  lines.push(
    f.isRoot
      ? { id: "root", status: "ok", title: "root", detail: "running as root" }
      : {
          id: "root",
          status: "warn",
          title: "root",
          detail: "not running as root",
          hint: "debootstrap, loop devices, mkfs and mounts need root; run twinbench with sudo for Debian-built images and device storage",
        },
  );

  // md
  lines.push(
    f.mdstat
      ? { id: "mdstat", status: "ok", title: "md driver", detail: "/proc/mdstat present: RAID storage uses mdadm" }
      : {
          id: "mdstat",
          status: "warn",
          title: "md driver",
          detail: "/proc/mdstat absent: RAID storage falls back to btrfs raid0",
          hint: "to use mdadm RAID, load the md driver (`modprobe md_mod` / `modprobe raid0`) on the host kernel",
        },
  );

  // loop devices
  lines.push(
    f.loopControl
      ? { id: "loop-devices", status: "ok", title: "loop devices", detail: "/dev/loop-control present" }
      : {
          id: "loop-devices",
          status: "warn",
          title: "loop devices",
          detail: "/dev/loop-control missing: file-backed block storage is unavailable (tmpfs and volumes still work)",
          hint: "load the loop driver (`modprobe loop`), or in a container run privileged with /dev bound",
        },
  );

  // fs tools
  {
    const missing = missingFsPackages(f.tools);
    lines.push(
      missing.length === 0
        ? {
            id: "fs-tools",
            status: "ok",
            title: "btrfs/xfs/mdadm tools",
            detail: "mkfs.btrfs, mkfs.xfs, mdadm present",
          }
        : {
            id: "fs-tools",
            status: "warn",
            title: "btrfs/xfs/mdadm tools",
            detail: `missing: ${missing.join(", ")} (needed only for btrfs/xfs/RAID storage)`,
            hint: fixHint ?? `install them: \`apt-get install ${missing.join(" ")}\` (as root)`,
          },
    );
  }

  // compose
  {
    const t = f.tools;
    const which = [
      t.dockerComposePlugin ? "docker compose (plugin)" : "",
      t.dockerComposeStandalone ? "docker-compose" : "",
    ].filter(Boolean);
    lines.push(
      composeAvailable(t)
        ? { id: "compose", status: "ok", title: "compose", detail: which.join(", ") }
        : {
            id: "compose",
            status: "warn",
            title: "compose",
            detail: "neither `docker compose` nor `docker-compose` found (needed only for docker-compose.yml)",
            hint: fixHint ?? "install it: `apt-get install docker-compose` (as root)",
          },
    );
  }
  return lines;
}

/** The mode a run will use, and which modes the lock can serve: debian always, official only with every digest pinned. Never probed over the network. */
function imageModeLine(f: HostFacts): CheckLine {
  const official = f.imageMode.mode === "official";
  const mode = official
    ? "official (forced): FROM <repo>@sha256 images, pulled by digest from the registry"
    : `debian${f.imageMode.forced ? " (forced)" : ""}: base images from debootstrap, packages from the Debian mirror below (registries are not probed)`;
  const l = f.lock;
  if ("error" in l) {
    return {
      id: "image-mode",
      status: "warn",
      title: "image mode",
      detail: `${mode}; cannot read the image lock ${l.file}: ${l.error}`,
      hint: "reinstall twinbench (its package ships images/lock.yaml), or fix the file",
    };
  }
  if (l.placeholder.length === 0) {
    return {
      id: "image-mode",
      status: "ok",
      title: "image mode",
      detail: `${mode}; ${l.file} serves debian and official (every official digest is pinned)`,
    };
  }
  const serves = `${l.file} serves debian only: official.digest is PLACEHOLDER for ${l.placeholder.join(", ")}`;
  return {
    id: "image-mode",
    status: official ? "fail" : "ok",
    title: "image mode",
    detail: `${mode}; ${serves}`,
    ...(official
      ? { hint: "run `twinbench images pin` on a host whose engine reaches the registry, or use the debian mode" }
      : {}),
  };
}

function diskLine(id: CheckId, title: string, d: DiskFacts, why: string): CheckLine {
  if (d.freeBytes === null) {
    return {
      id,
      status: "warn",
      title,
      detail: `${d.path}: cannot inspect (${d.error ?? "unknown error"})`,
      hint: `check free space by hand: df -h ${d.path}`,
    };
  }
  const free = `${d.path}: ${formatBytes(d.freeBytes, "coarse")} free${d.measuredAt ? ` (measured at ${d.measuredAt}, ${d.path} does not exist here)` : ""}`;
  if (d.freeBytes < LOW_DISK_BYTES) {
    return {
      id,
      status: "warn",
      title,
      detail: `${free} (below ${formatBytes(LOW_DISK_BYTES, "coarse")})`,
      hint: `free some space; ${why}`,
    };
  }
  return { id, status: "ok", title, detail: free };
}

/** Summary counts and whether doctor should fail (any fail line). */
export function summarize(lines: CheckLine[]): { ok: number; warn: number; fail: number; failed: CheckId[] } {
  const failed = lines.filter((l) => l.status === "fail").map((l) => l.id);
  return {
    ok: lines.filter((l) => l.status === "ok").length,
    warn: lines.filter((l) => l.status === "warn").length,
    fail: failed.length,
    failed,
  };
}
