/**
 * `twinbench doctor`, the I/O half: probe the host into HostFacts (engine through dockerode, files, PATH, a few
 * commands through the injected Runner), and carry out a FixPlan (apt-get, starting dockerd, waiting for it).
 * What the facts mean and what to fix is decided in src/core/hosts/ (doctor-checks.ts, doctor-fix.ts); the host's
 * files, PATH and detached processes are read through host-fs.ts.
 */
import path from "node:path";
import { createEngineProbe, type EngineProbe } from "../docker/engine-probe.ts";
import { TwinbenchError, type ErrorCode } from "../../core/base/errors.ts";
import { DOCKERD_LOG, type HostFacts, type LockFacts, type OsFacts, type ToolFacts } from "../../core/hosts/doctor.ts";
import { evaluateChecks, type CheckLine } from "../../core/hosts/doctor-checks.ts";
import { planFixes, type FixAction, type FixPlan } from "../../core/hosts/doctor-fix.ts";
import { describeAction } from "../../core/report/doctor.ts";
import { createRunner, formatCommand, type Runner } from "./runner.ts";
import { createHostFs, spawnDetachedDefault, type DetachedProcess, type HostFs } from "./host-fs.ts";
import { defaultLockFile, loadLock } from "../images/files.ts";
import { DIGEST_PLACEHOLDER } from "../../core/images/lock.ts";
import type { Mirrors } from "../../core/images/mirror.ts";
import { readHostMirrors } from "../images/apt-sources.ts";

export interface DoctorDeps {
  runner: Runner;
  engine: EngineProbe;
  fs: HostFs;
  env: Record<string, string | undefined>;
  isRoot: boolean;
  /** Start a long-lived process detached from us, stdout/stderr appended to logFile. */
  spawnDetached(cmd: string, args: string[], logFile: string): Promise<DetachedProcess>;
  sleep(ms: number): Promise<void>;
  now(): number;
  /** Results directory whose disk is checked (default ./results). */
  resultsDir: string;
  /** Progress lines while fixing. */
  log(line: string): void;
  /** The image lock whose official digests are checked (default: the package's images/lock.yaml). */
  lockFile?: string;
  /** apt's configuration folder, whose sources name the Debian mirror (default /etc/apt). */
  aptDir?: string;
}

export function defaultDoctorDeps(overrides: Partial<DoctorDeps> = {}): DoctorDeps {
  const env = overrides.env ?? process.env;
  return {
    runner: createRunner(),
    engine: createEngineProbe(env),
    fs: createHostFs(env),
    env,
    isRoot: typeof process.getuid === "function" ? process.getuid() === 0 : false,
    spawnDetached: spawnDetachedDefault,
    sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
    now: () => performance.now(), // deadlines: a monotonic clock, so a clock step neither ends nor stretches them
    resultsDir: path.resolve(env.TWINBENCH_RESULTS_DIR ?? "results"),
    log: () => {},
    ...overrides,
  };
}

export function parseOsRelease(text: string | null): OsFacts {
  const kv: Record<string, string> = {};
  for (const line of (text ?? "").split("\n")) {
    const m = /^([A-Z_]+)=(.*)$/.exec(line.trim());
    if (m) kv[m[1]!] = m[2]!.replace(/^"(.*)"$/, "$1").replace(/^'(.*)'$/, "$1");
  }
  return { id: kv.ID ?? "", idLike: (kv.ID_LIKE ?? "").split(/\s+/).filter(Boolean), prettyName: kv.PRETTY_NAME ?? "" };
}

async function probeCgroups(fs: HostFs): Promise<HostFacts["cgroup"]> {
  const controllers = await fs.readText("/sys/fs/cgroup/cgroup.controllers");
  if (controllers !== null) return { version: 2, cpuset: controllers.split(/\s+/).includes("cpuset") };
  const v1 = (await fs.exists("/sys/fs/cgroup/cpuset")) || (await fs.exists("/sys/fs/cgroup/cpuset/cpuset.cpus"));
  if (v1) return { version: 1, cpuset: true };
  const anyV1 = await fs.exists("/sys/fs/cgroup/memory");
  return { version: anyV1 ? 1 : null, cpuset: false };
}

async function probeTools(deps: DoctorDeps): Promise<ToolFacts> {
  const { fs, runner } = deps;
  const [dockerd, debootstrap, mkfsBtrfs, mkfsXfs, mdadm, aptGet, systemctl, hasComposeBin, hasDocker] =
    await Promise.all(
      [
        "dockerd",
        "debootstrap",
        "mkfs.btrfs",
        "mkfs.xfs",
        "mdadm",
        "apt-get",
        "systemctl",
        "docker-compose",
        "docker",
      ].map((n) => fs.which(n)),
    );
  const ok = async (cmd: string, args: string[]) => (await runner.run(cmd, args, { timeoutMs: 30_000 })).exitCode === 0;
  const [dockerComposeStandalone, dockerComposePlugin] = await Promise.all([
    hasComposeBin ? ok("docker-compose", ["version"]) : Promise.resolve(false),
    hasDocker ? ok("docker", ["compose", "version"]) : Promise.resolve(false),
  ]);
  return {
    dockerd: dockerd!,
    debootstrap: debootstrap!,
    mkfsBtrfs: mkfsBtrfs!,
    mkfsXfs: mkfsXfs!,
    mdadm: mdadm!,
    aptGet: aptGet!,
    systemctl: systemctl!,
    dockerComposeStandalone,
    dockerComposePlugin,
  };
}

export function imageModeFromEnv(env: Record<string, string | undefined>): HostFacts["imageMode"] {
  const v = env.TWINBENCH_IMAGE_MODE;
  if (v === "official") return { mode: "official", forced: true };
  if (v === "debian") return { mode: "debian", forced: true };
  return { mode: "debian", forced: false };
}

/** Which images of the lock still have a PLACEHOLDER official digest; a lock that cannot be read becomes the error text. */
export async function probeLock(file?: string, aptDir?: string): Promise<LockFacts & { mirrors?: Mirrors }> {
  try {
    const lock = await loadLock(file, aptDir);
    return {
      file: lock.file,
      placeholder: Object.keys(lock.images).filter((n) => lock.images[n]!.official.digest === DIGEST_PLACEHOLDER),
      mirrors: lock.mirrors,
    };
  } catch (e) {
    // Reported on the image-mode line (a warning): doctor checks the host, a bad lock is not a reason to stop.
    return { file: file ?? defaultLockFile(), error: (e as Error).message };
  }
}

/** Probe everything doctor checks. Never contacts anything but the local engine. */
export async function probeHost(deps: DoctorDeps): Promise<HostFacts> {
  const [osText, pid1, engine, cgroup, tools, mdstat, loopControl, diskResults, lock] = await Promise.all([
    deps.fs.readText("/etc/os-release"),
    deps.fs.readText("/proc/1/comm"),
    deps.engine.probe(),
    probeCgroups(deps.fs),
    probeTools(deps),
    deps.fs.exists("/proc/mdstat"),
    deps.fs.exists("/dev/loop-control"),
    deps.fs.freeBytes(deps.resultsDir),
    probeLock(deps.lockFile, deps.aptDir),
  ]);
  // The mirrors builds use: the lock's choice, or (a lock that cannot be read) what the host's sources name.
  const { mirrors: lockMirrors, ...lockFacts } = lock;
  const mirrors = lockMirrors ?? (await readHostMirrors(deps.aptDir));
  const dockerRoot = engine.answers ? engine.dockerRootDir : "/var/lib/docker";
  const diskDockerRoot = await deps.fs.freeBytes(dockerRoot);
  return {
    os: parseOsRelease(osText),
    isRoot: deps.isRoot,
    pid1: (pid1 ?? "").trim(),
    engine,
    cgroup,
    diskDockerRoot,
    diskResults,
    tools,
    mdstat,
    loopControl,
    imageMode: imageModeFromEnv(deps.env),
    lock: lockFacts,
    // Set by docker-compose.yml. Not /.dockerenv: hosts that are themselves containers (CI VMs like this project's)
    // carry one too, and there --fix is exactly what is wanted.
    inContainer: deps.env.TWINBENCH_IN_CONTAINER === "1",
    node: { version: process.versions.node, today: new Date(deps.now()).toISOString().slice(0, 10) },
    mirrors,
  };
}

export interface DoctorReport {
  facts: HostFacts;
  checks: CheckLine[];
}

export async function runDoctor(deps: DoctorDeps): Promise<DoctorReport> {
  const facts = await probeHost(deps);
  return { facts, checks: evaluateChecks(facts) };
}

export interface FixOutcome {
  plan: FixPlan;
  /** What was actually done (start-engine is skipped when an engine answers by then). */
  done: string[];
  /** The checks after fixing. */
  after: DoctorReport;
}

const APT_ENV = { DEBIAN_FRONTEND: "noninteractive" };

/**
 * `doctor --fix`: probe, plan, act, probe again. Never touches an engine that answers. Throws a TwinbenchError
 * (DOCTOR_CANNOT_FIX, the paragraph as hint) where it cannot help.
 */
export async function fixHost(deps: DoctorDeps): Promise<FixOutcome> {
  const before = await probeHost(deps);
  const plan = planFixes(before);
  if (plan.kind === "cannot-fix") {
    throw new TwinbenchError(
      plan.reason === "not-root"
        ? "doctor --fix needs root to install packages and start the engine"
        : plan.reason === "in-container"
          ? `no engine answers on ${before.engine.endpoint} inside the container, and doctor --fix cannot start the host's`
          : plan.reason === "remote-engine"
            ? `no engine answers on ${before.engine.endpoint} (DOCKER_HOST), and doctor --fix only starts a local one`
            : `doctor --fix cannot install packages on ${before.os.prettyName || before.os.id || "this host"}`,
      { code: "DOCTOR_CANNOT_FIX", hint: plan.paragraph },
    );
  }
  const done: string[] = [];
  const state: FixState = {};
  for (const action of plan.actions) {
    const did = await executeAction(deps, action, state);
    if (did) done.push(did);
  }
  const after = await runDoctor(deps);
  return { plan, done, after };
}

interface FixState {
  /** The dockerd we started, if any, with its log file. */
  daemon?: { process: DetachedProcess; logFile: string };
}

async function logTail(deps: DoctorDeps, file: string | undefined): Promise<string[]> {
  if (!file) return [];
  const text = await deps.fs.readText(file);
  return (text ?? "")
    .trim()
    .split("\n")
    .filter((l) => l.length > 0)
    .slice(-10);
}

async function executeAction(deps: DoctorDeps, a: FixAction, state: FixState): Promise<string | null> {
  const { runner } = deps;
  switch (a.kind) {
    case "apt-update": {
      deps.log(`fix: ${describeAction(a)}`);
      await checked(
        runner,
        "apt-get",
        ["update"],
        APT_ENV,
        "APT_FAILED",
        'check the apt sources and network access to the Debian mirror (a frozen snapshot mirror needs `Acquire::Check-Valid-Until "false";` in /etc/apt/apt.conf.d/)',
      );
      return describeAction(a);
    }
    case "apt-install": {
      deps.log(`fix: ${describeAction(a)}`);
      await checked(
        runner,
        "apt-get",
        ["install", "-y", "--no-install-recommends", ...a.packages],
        APT_ENV,
        "APT_FAILED",
        `install them by hand to see the full error: apt-get install ${a.packages.join(" ")} (on Ubuntu, docker.io and docker-compose are in "universe": add-apt-repository universe)`,
      );
      return describeAction(a);
    }
    case "start-engine": {
      // docker.io's postinst may have started an engine already; never start a second one.
      const now = await deps.engine.probe();
      if (now.answers) {
        deps.log(`fix: the engine answers on ${now.endpoint} already; not starting dockerd`);
        return null;
      }
      deps.log(`fix: ${describeAction(a)}`);
      if (a.via === "systemctl") {
        await checked(
          runner,
          "systemctl",
          ["start", "docker"],
          undefined,
          "ENGINE_START_FAILED",
          "see `journalctl -u docker`",
        );
      } else {
        state.daemon = { process: await deps.spawnDetached("dockerd", [], a.logFile), logFile: a.logFile };
      }
      return describeAction(a);
    }
    case "wait-engine": {
      deps.log(`fix: ${describeAction(a)}`);
      const deadline = deps.now() + a.timeoutMs;
      let last: string;
      for (;;) {
        const r = await deps.engine.probe();
        if (r.answers) return describeAction(a);
        last = r.error;
        const ended = state.daemon?.process.exited() ?? null;
        if (ended !== null) {
          throw new TwinbenchError(
            `dockerd exited (${typeof ended === "number" ? `exit code ${ended}` : ended}) before the engine answered on ${a.endpoint}`,
            {
              code: "ENGINE_START_FAILED",
              hint: `the last lines of ${state.daemon!.logFile} are above; dockerd needs root, iptables and cgroups (inside a container: --privileged)`,
              details: await logTail(deps, state.daemon!.logFile),
            },
          );
        }
        if (deps.now() >= deadline) {
          throw new TwinbenchError(
            `the Docker engine did not answer on ${a.endpoint} within ${a.timeoutMs} ms (last error: ${last})`,
            {
              code: "ENGINE_START_TIMEOUT",
              hint: `see ${DOCKERD_LOG} (or \`journalctl -u docker\`) for why dockerd did not come up`,
              details: await logTail(deps, state.daemon?.logFile),
            },
          );
        }
        await deps.sleep(500);
      }
    }
  }
}

async function checked(
  runner: Runner,
  cmd: string,
  args: string[],
  env: Record<string, string> | undefined,
  code: ErrorCode,
  hint: string,
): Promise<void> {
  const r = await runner.run(cmd, args, env ? { env } : {});
  if (r.exitCode !== 0) {
    const tail = (r.stderr || r.stdout)
      .trim()
      .split("\n")
      .slice(-8)
      .filter((l) => l.length > 0);
    throw new TwinbenchError(`\`${formatCommand(cmd, args)}\` failed with exit code ${r.exitCode}`, {
      code,
      hint,
      details: tail,
    });
  }
}
