/**
 * What `twinbench doctor --fix` may do about a host: the packages it would install and the plan of actions (or why
 * it cannot help, with one paragraph saying what to do by hand). Idempotent by construction.
 */
import {
  DEFAULT_ENDPOINT,
  DOCKERD_LOG,
  ENGINE_WAIT_MS,
  MIN_API_VERSION,
  PACKAGES,
  osFamily,
  type HostFacts,
  type ToolFacts,
} from "./doctor.ts";

const ALL_PACKAGES = Object.values(PACKAGES);

/** Whether some docker compose (the plugin or the standalone command) answers. */
export function composeAvailable(t: ToolFacts): boolean {
  return t.dockerComposeStandalone || t.dockerComposePlugin;
}

/** The filesystem and RAID tool packages that are missing. */
export function missingFsPackages(t: ToolFacts): string[] {
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
