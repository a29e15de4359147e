/**
 * `twinbench doctor`, the pure half: given what the host adapter probed (HostFacts), produce one check line per
 * concern (ok / warn / fail, each with a hint) and decide what `doctor --fix` may do about it (FixPlan).
 * No I/O here: the probes and the fixes live in src/adapters/host/doctor.ts.
 */
import { compareVersions } from "../config/version.ts";
import { formatBytes } from "../base/units.ts";
import { TOOL_PACKAGES } from "../storage/tools.ts";
import { textTable } from "../base/text-table.ts";

export type CheckStatus = "ok" | "warn" | "fail";

export type CheckId =
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

const ALL_PACKAGES = Object.values(PACKAGES);

export function osFamily(os: OsFacts): OsFamily {
  if (os.id === "debian") return "debian";
  if (os.id === "ubuntu") return "ubuntu";
  if (os.idLike.includes("ubuntu")) return "ubuntu";
  if (os.idLike.includes("debian")) return "debian";
  return "other";
}

export { compareVersions };

function composeAvailable(t: ToolFacts): boolean {
  return t.dockerComposeStandalone || t.dockerComposePlugin;
}

/** Evaluate every check, in a fixed order. */
export function evaluateChecks(f: HostFacts): CheckLine[] {
  const lines: CheckLine[] = [];
  const e = f.engine;
  const fixHint = f.inContainer
    ? "inside the twinbench container: run `twinbench doctor --fix` on the host instead"
    : f.isRoot && osFamily(f.os) !== "other"
      ? "run `twinbench doctor --fix`"
      : undefined;

  // engine
  if (e.answers) {
    lines.push({
      id: "engine",
      status: "ok",
      title: "docker engine",
      detail: `answers on ${e.endpoint} (Docker ${e.serverVersion})`,
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

  lines.push(imageModeLine(f));

  return lines;
}

/** The mode a run will use, and which modes the lock can serve: debian always, official only with every digest pinned. Never probed over the network. */
function imageModeLine(f: HostFacts): CheckLine {
  const official = f.imageMode.mode === "official";
  const mode = official
    ? "official (forced): FROM <repo>@sha256 images, pulled by digest from the registry"
    : `debian${f.imageMode.forced ? " (forced)" : ""}: base images from debootstrap, packages from deb.debian.org (registries are not probed)`;
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

function missingFsPackages(t: ToolFacts): string[] {
  const out: string[] = [];
  if (!t.mkfsBtrfs) out.push(PACKAGES.btrfs);
  if (!t.mkfsXfs) out.push(PACKAGES.xfs);
  if (!t.mdadm) out.push(PACKAGES.mdadm);
  return out;
}

/** Packages `--fix` would install, in a stable order. docker.io only when no engine answers (never next to a
 *  running engine: its postinst could start or restart one). */
export function missingPackages(f: HostFacts): string[] {
  const out: string[] = [];
  if (!f.engine.answers && !f.tools.dockerd) out.push(PACKAGES.engine);
  if (!f.tools.debootstrap) out.push(PACKAGES.debootstrap);
  out.push(...missingFsPackages(f.tools));
  if (!composeAvailable(f.tools)) out.push(PACKAGES.compose);
  return out;
}

export type FixAction =
  | { kind: "apt-update" }
  | { kind: "apt-install"; packages: string[] }
  /** Start the engine: through systemd when it is PID 1, else a detached dockerd logging to `logFile`. Executors
   *  re-probe first and skip this when an engine answers by then (docker.io's postinst may have started one). */
  | { kind: "start-engine"; via: "systemctl" | "dockerd"; logFile: string }
  | { kind: "wait-engine"; endpoint: string; timeoutMs: number };

export type FixPlan =
  | { kind: "nothing-to-do"; actions: [] }
  | { kind: "fix"; actions: FixAction[] }
  /** --fix cannot help here; `paragraph` says exactly what to do instead. */
  | { kind: "cannot-fix"; reason: CannotFixReason; paragraph: string; actions: [] };

export type CannotFixReason = "not-root" | "not-debian" | "no-apt" | "remote-engine" | "in-container";

/** Decide what `doctor --fix` does. Idempotent by construction: a host where everything is present plans nothing. */
export function planFixes(f: HostFacts): FixPlan {
  const packages = missingPackages(f);
  const needEngineStart = !f.engine.answers;
  if (packages.length === 0 && !needEngineStart) return { kind: "nothing-to-do", actions: [] };

  if (f.inContainer) {
    // Packages installed here would vanish with the container, and the engine is the host's.
    if (!needEngineStart) return { kind: "nothing-to-do", actions: [] };
    return { kind: "cannot-fix", reason: "in-container", paragraph: manualParagraph(f, "in-container"), actions: [] };
  }
  if (needEngineStart && f.engine.endpoint !== DEFAULT_ENDPOINT) {
    return { kind: "cannot-fix", reason: "remote-engine", paragraph: manualParagraph(f, "remote-engine"), actions: [] };
  }
  const family = osFamily(f.os);
  if (family === "other")
    return { kind: "cannot-fix", reason: "not-debian", paragraph: manualParagraph(f, "not-debian"), actions: [] };
  if (!f.isRoot)
    return { kind: "cannot-fix", reason: "not-root", paragraph: manualParagraph(f, "not-root"), actions: [] };
  if (packages.length > 0 && !f.tools.aptGet)
    return { kind: "cannot-fix", reason: "no-apt", paragraph: manualParagraph(f, "no-apt"), actions: [] };

  const actions: FixAction[] = [];
  if (packages.length > 0) actions.push({ kind: "apt-update" }, { kind: "apt-install", packages });
  if (needEngineStart) {
    actions.push({
      kind: "start-engine",
      via: f.pid1 === "systemd" && f.tools.systemctl ? "systemctl" : "dockerd",
      logFile: DOCKERD_LOG,
    });
    actions.push({ kind: "wait-engine", endpoint: f.engine.endpoint, timeoutMs: ENGINE_WAIT_MS });
  }
  return { kind: "fix", actions };
}

/** One paragraph: what to install and which commands to run, when --fix cannot do it itself. */
export function manualParagraph(f: HostFacts, reason: CannotFixReason): string {
  if (reason === "in-container") {
    return (
      `twinbench runs inside a container and no engine answers on ${f.engine.endpoint}. The engine is the host's: on the ` +
      `host, run \`npx twinbench doctor --fix\` (as root on Debian/Ubuntu) to install and start it, and make sure ` +
      `docker-compose.yml binds /var/run/docker.sock into the container.`
    );
  }
  if (reason === "remote-engine") {
    return (
      `DOCKER_HOST points at ${f.engine.endpoint}, and no engine answers there; doctor --fix only starts a local dockerd ` +
      `on ${DEFAULT_ENDPOINT}. Start the engine behind ${f.engine.endpoint}, or unset DOCKER_HOST and rerun \`twinbench doctor --fix\`.`
    );
  }
  const pkgs = missingPackages(f);
  const debPkgs = (pkgs.length > 0 ? pkgs : ALL_PACKAGES).join(" ");
  const start = (sudo: string) =>
    f.engine.answers
      ? ""
      : ` then start the engine with \`${sudo}systemctl start docker\` (or \`${sudo}dockerd >${DOCKERD_LOG} 2>&1 &\` where systemd is not PID 1),`;
  if (reason === "not-root") {
    return (
      `twinbench doctor --fix must run as root to install packages and start dockerd. Either rerun it as root ` +
      `(\`sudo npx twinbench doctor --fix\`), or do it by hand: \`sudo apt-get update && sudo DEBIAN_FRONTEND=noninteractive ` +
      `apt-get install -y --no-install-recommends ${debPkgs}\`,${start("sudo ")} and rerun \`twinbench doctor\`. ` +
      `To use Docker without root afterwards, add yourself to the docker group (\`sudo usermod -aG docker $USER\`, root-equivalent).`
    );
  }
  const osName = f.os.prettyName || f.os.id || "this host";
  const why = reason === "no-apt" ? `apt-get is not available on ${osName}` : `${osName} is not Debian or Ubuntu`;
  return (
    `twinbench doctor --fix only installs packages on Debian or Ubuntu, and ${why}. Install these yourself with the ` +
    `system's package manager: Docker Engine 20.10 or newer (API ≥ ${MIN_API_VERSION}; e.g. \`dnf install moby-engine\`, ` +
    `\`pacman -S docker\`, \`zypper install docker\`), debootstrap (needed for the Debian-built images), btrfs-progs, ` +
    `xfsprogs, mdadm and docker compose;${start("")} and rerun \`twinbench doctor\`. On Debian/Ubuntu the packages are: ${debPkgs}.`
  );
}

/** Render check lines for a terminal: `ok   docker engine  answers on ...` plus an indented hint. */
export function formatCheckLines(lines: CheckLine[]): string {
  const rows = lines.flatMap((l) => [
    [l.status, l.title, l.detail],
    ...(l.hint && l.status !== "ok" ? [["", "", `hint: ${l.hint}`]] : []),
  ]);
  return textTable(rows, { columns: [{ width: 4 }, { gap: " " }], trimEnd: false }).join("\n");
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

/** Human description of a fix action, printed before it runs. */
export function describeAction(a: FixAction): string {
  switch (a.kind) {
    case "apt-update":
      return "apt-get update";
    case "apt-install":
      return `apt-get install -y --no-install-recommends ${a.packages.join(" ")}`;
    case "start-engine":
      return a.via === "systemctl" ? "systemctl start docker" : `dockerd (detached, log ${a.logFile})`;
    case "wait-engine":
      return `wait for the engine on ${a.endpoint} (up to ${a.timeoutMs} ms)`;
  }
}
