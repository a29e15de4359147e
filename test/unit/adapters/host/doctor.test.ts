/** The doctor adapter with an injected fake runner, engine, file system and clock: probes and fix sequences. */
import { describe, expect, it } from "vitest";
import { TwinbenchError } from "../../../../src/core/base/errors.ts";
import type { EngineFacts } from "../../../../src/core/hosts/doctor.ts";
import {
  fixHost,
  parseOsRelease,
  probeHost,
  runDoctor,
  type DoctorDeps,
} from "../../../../src/adapters/host/doctor.ts";
import { ensureHost, doctorCommand } from "../../../../src/cli/commands/doctor.ts";
import type { RunResult, Runner } from "../../../../src/adapters/host/runner.ts";

const GiB = 1024 ** 3;
const DEBIAN_OS = 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nNAME="Debian GNU/Linux"\nVERSION_ID="12"\nID=debian\n';
const UBUNTU_OS = 'PRETTY_NAME="Ubuntu 24.04.1 LTS"\nID=ubuntu\nID_LIKE=debian\n';
const FEDORA_OS = 'PRETTY_NAME="Fedora Linux 40 (Server Edition)"\nID=fedora\n';

const UP: Extract<EngineFacts, { answers: true }> = {
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
const DOWN: EngineFacts = {
  answers: false,
  endpoint: "unix:///var/run/docker.sock",
  error: "ENOENT connect ENOENT /var/run/docker.sock",
};

const ALL_BINS = [
  "dockerd",
  "docker",
  "debootstrap",
  "mkfs.btrfs",
  "mkfs.xfs",
  "mdadm",
  "apt-get",
  "systemctl",
  "docker-compose",
];
/** Which binary each package puts on PATH. */
const PROVIDES: Record<string, string[]> = {
  "docker.io": ["dockerd", "docker"],
  debootstrap: ["debootstrap"],
  "btrfs-progs": ["mkfs.btrfs"],
  xfsprogs: ["mkfs.xfs"],
  mdadm: ["mdadm"],
  "docker-compose": ["docker-compose"],
};

interface World {
  osRelease: string;
  pid1: string;
  isRoot: boolean;
  bins: Set<string>;
  /** Engine state; `startsAfterProbes` simulates dockerd taking a while to come up. */
  engineUp: boolean;
  apiVersion?: string;
  startsAfterProbes?: number;
  /** docker.io's postinst starts an engine (sysv init script). */
  postinstStartsEngine?: boolean;
  /** dockerd never comes up. */
  engineNeverStarts?: boolean;
  /** dockerd died with this exit code. */
  daemonExit?: number;
  files: Set<string>;
  calls: string[];
  spawned: string[];
  clock: number;
}

function world(over: Partial<World> = {}): World {
  return {
    osRelease: DEBIAN_OS,
    pid1: "process_api",
    isRoot: true,
    bins: new Set(ALL_BINS),
    engineUp: true,
    files: new Set(["/proc/mdstat", "/dev/loop-control", "/sys/fs/cgroup/cpuset"]),
    calls: [],
    spawned: [],
    clock: 0,
    ...over,
  };
}

function deps(w: World): DoctorDeps {
  let pendingStart: number | null = null;
  const runner: Runner = {
    async run(cmd, args): Promise<RunResult> {
      const line = [cmd, ...args].join(" ");
      if (!(cmd === "docker-compose" && args[0] === "version") && !(cmd === "docker" && args[0] === "compose"))
        w.calls.push(line);
      if (cmd === "apt-get" && args[0] === "install") {
        for (const p of args.filter((a) => !a.startsWith("-")).slice(1))
          for (const b of PROVIDES[p] ?? []) w.bins.add(b);
        if (w.postinstStartsEngine && args.includes("docker.io")) w.engineUp = true;
      }
      if (cmd === "systemctl" && args.join(" ") === "start docker") pendingStart = w.startsAfterProbes ?? 0;
      if (cmd === "docker-compose") return { stdout: "", stderr: "", exitCode: w.bins.has("docker-compose") ? 0 : 127 };
      if (cmd === "docker" && args[0] === "compose") return { stdout: "", stderr: "unknown command", exitCode: 1 };
      return { stdout: "", stderr: "", exitCode: 0 };
    },
  };
  return {
    runner,
    engine: {
      async probe() {
        if (!w.engineUp && pendingStart !== null && !w.engineNeverStarts) {
          if (pendingStart <= 0) w.engineUp = true;
          else pendingStart--;
        }
        return w.engineUp ? { ...UP, apiVersion: w.apiVersion ?? UP.apiVersion } : DOWN;
      },
    },
    fs: {
      async readText(p) {
        if (p === "/etc/os-release") return w.osRelease;
        if (p === "/proc/1/comm") return `${w.pid1}\n`;
        if (p === "/var/log/twinbench-dockerd.log")
          return "level=info msg=starting\nfailed to start daemon: iptables failed: Permission denied\n";
        return null;
      },
      async exists(p) {
        return w.files.has(p);
      },
      async which(n) {
        return w.bins.has(n);
      },
      async freeBytes(p) {
        return { path: p, freeBytes: 50 * GiB };
      },
    },
    env: {},
    isRoot: w.isRoot,
    async spawnDetached(cmd, args, logFile) {
      w.spawned.push(`${[cmd, ...args].join(" ")} > ${logFile}`);
      pendingStart = w.startsAfterProbes ?? 0;
      return { exited: () => w.daemonExit ?? null };
    },
    async sleep(ms) {
      w.clock += ms;
    },
    now: () => w.clock,
    resultsDir: "/repo/results",
    log: () => {},
  };
}

const noDocker = () => new Set(["apt-get", "systemctl"]);

describe("fixHost", () => {
  const cases: Array<{ name: string; w: () => World; calls: string[]; spawned: string[] }> = [
    {
      name: "Debian root, no docker: apt-get update once, install all, start dockerd detached",
      w: () => world({ bins: noDocker(), engineUp: false, startsAfterProbes: 3 }),
      calls: [
        "apt-get update",
        "apt-get install -y --no-install-recommends docker.io debootstrap btrfs-progs xfsprogs mdadm docker-compose",
      ],
      spawned: ["dockerd > /var/log/twinbench-dockerd.log"],
    },
    {
      name: "docker running and everything present: does nothing",
      w: () => world(),
      calls: [],
      spawned: [],
    },
    {
      name: "docker running, mdadm and compose missing: installs them, never touches the engine",
      w: () =>
        world({
          bins: new Set(["dockerd", "docker", "debootstrap", "mkfs.btrfs", "mkfs.xfs", "apt-get", "systemctl"]),
        }),
      calls: ["apt-get update", "apt-get install -y --no-install-recommends mdadm docker-compose"],
      spawned: [],
    },
    {
      name: "docker.io postinst started an engine: no second dockerd",
      w: () => world({ bins: noDocker(), engineUp: false, postinstStartsEngine: true }),
      calls: [
        "apt-get update",
        "apt-get install -y --no-install-recommends docker.io debootstrap btrfs-progs xfsprogs mdadm docker-compose",
      ],
      spawned: [],
    },
    {
      name: "systemd is PID 1: systemctl start docker",
      w: () => world({ engineUp: false, pid1: "systemd" }),
      calls: ["systemctl start docker"],
      spawned: [],
    },
    {
      name: "Ubuntu root, stopped engine without dockerd",
      w: () =>
        world({
          osRelease: UBUNTU_OS,
          engineUp: false,
          bins: new Set(ALL_BINS.filter((b) => b !== "dockerd" && b !== "docker")),
        }),
      calls: ["apt-get update", "apt-get install -y --no-install-recommends docker.io"],
      spawned: ["dockerd > /var/log/twinbench-dockerd.log"],
    },
    {
      name: "old API: nothing to fix, engine left alone",
      w: () => world({ apiVersion: "1.40" }),
      calls: [],
      spawned: [],
    },
  ];
  it.each(cases)("$name", async (c) => {
    const w = c.w();
    const r = await fixHost(deps(w));
    expect(w.calls).toEqual(c.calls);
    expect(w.spawned).toEqual(c.spawned);
    expect(r.after.checks.find((l) => l.id === "engine")?.status).toBe("ok");
    // Idempotent: a second run finds nothing more to do.
    w.calls.length = 0;
    w.spawned.length = 0;
    const again = await fixHost(deps(w));
    expect(again.plan.kind).toBe("nothing-to-do");
    expect([...w.calls, ...w.spawned]).toEqual([]);
  });

  it.each([
    { name: "not root", w: () => world({ isRoot: false, engineUp: false }), msg: /needs root/, hint: /sudo/ },
    {
      name: "non-Debian",
      w: () => world({ osRelease: FEDORA_OS, engineUp: false }),
      msg: /Fedora Linux 40/,
      hint: /not Debian or Ubuntu/,
    },
  ])("$name without engine: DOCTOR_CANNOT_FIX with the paragraph, nothing run", async (c) => {
    const w = c.w();
    const e = await fixHost(deps(w)).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(TwinbenchError);
    const err = e as TwinbenchError;
    expect(err.code).toBe("DOCTOR_CANNOT_FIX");
    expect(err.exitCode).toBe(1);
    expect(err.message).toMatch(c.msg);
    expect(err.hint).toMatch(c.hint);
    expect([...w.calls, ...w.spawned]).toEqual([]);
  });

  it("inside the compose container (TWINBENCH_IN_CONTAINER=1) it never installs or starts anything", async () => {
    const w = world({ engineUp: false, bins: noDocker() });
    const d = { ...deps(w), env: { TWINBENCH_IN_CONTAINER: "1" } };
    const e = (await fixHost(d).catch((x: unknown) => x)) as TwinbenchError;
    expect(e.code).toBe("DOCTOR_CANNOT_FIX");
    expect(e.hint).toMatch(/on the host/);
    expect([...w.calls, ...w.spawned]).toEqual([]);
  });

  it("an engine that never comes up: the timeout names its value", async () => {
    const w = world({ engineUp: false, engineNeverStarts: true });
    const e = (await fixHost(deps(w)).catch((x: unknown) => x)) as TwinbenchError;
    expect(e.code).toBe("ENGINE_START_TIMEOUT");
    expect(e.message).toMatch(/did not answer on unix:\/\/\/var\/run\/docker.sock within 60000 ms/);
    expect(e.hint).toMatch(/twinbench-dockerd\.log/);
  });

  it("dockerd that exits early fails at once with the log tail", async () => {
    const w = world({ engineUp: false, engineNeverStarts: true, daemonExit: 1 });
    const e = (await fixHost(deps(w)).catch((x: unknown) => x)) as TwinbenchError;
    expect(e.code).toBe("ENGINE_START_FAILED");
    expect(e.message).toBe("dockerd exited (exit code 1) before the engine answered on unix:///var/run/docker.sock");
    expect(e.details).toEqual([
      "level=info msg=starting",
      "failed to start daemon: iptables failed: Permission denied",
    ]);
    expect(w.clock).toBe(0);
  });

  it("a failing apt-get names the command and shows its output", async () => {
    const w = world({ bins: noDocker(), engineUp: false });
    const d = deps(w);
    d.runner = {
      run: async (cmd, args) =>
        cmd === "apt-get" && args[0] === "install"
          ? { stdout: "", stderr: "E: Unable to locate package docker.io", exitCode: 100 }
          : { stdout: "", stderr: "", exitCode: 0 },
    };
    const e = (await fixHost(d).catch((x: unknown) => x)) as TwinbenchError;
    expect(e.code).toBe("APT_FAILED");
    expect(e.message).toMatch(/apt-get install -y --no-install-recommends docker.io .* failed with exit code 100/);
    expect(e.details).toEqual(["E: Unable to locate package docker.io"]);
  });
});

describe("probeHost", () => {
  it("reads os-release, cgroups, tools and devices", async () => {
    const w = world({ files: new Set(["/dev/loop-control"]), bins: new Set(["dockerd", "debootstrap"]) });
    const f = await probeHost(deps(w));
    expect(f.os).toEqual({ id: "debian", idLike: [], prettyName: "Debian GNU/Linux 12 (bookworm)" });
    expect(f.pid1).toBe("process_api");
    expect(f.mdstat).toBe(false);
    expect(f.loopControl).toBe(true);
    expect(f.cgroup).toEqual({ version: null, cpuset: false });
    expect(f.tools).toMatchObject({
      dockerd: true,
      debootstrap: true,
      mdadm: false,
      dockerComposeStandalone: false,
      dockerComposePlugin: false,
    });
    expect(f.imageMode).toEqual({ mode: "debian", forced: false });
    // The shipped lock: every official digest is still PLACEHOLDER.
    expect(f.lock).toMatchObject({ placeholder: ["mariadb-11.8", "mariadb-10.11", "mysql-9.7", "sysbench-1.0"] });
  });

  it("a lock that cannot be read becomes the image-mode warning, not a crash", async () => {
    const r = await runDoctor({ ...deps(world({})), lockFile: "/nonexistent/lock.yaml" });
    expect(r.facts.lock).toMatchObject({ file: "/nonexistent/lock.yaml", error: expect.stringMatching(/ENOENT/) });
    expect(r.checks.find((c) => c.id === "image-mode")).toMatchObject({
      status: "warn",
      detail: expect.stringMatching(/cannot read the image lock \/nonexistent\/lock\.yaml/),
    });
  });

  it("reports the API version check with the old value", async () => {
    const r = await runDoctor(deps(world({ apiVersion: "1.40" })));
    expect(r.checks.find((c) => c.id === "api-version")).toMatchObject({
      status: "fail",
      detail: expect.stringMatching(/API 1\.40 is older than 1\.41/),
    });
  });

  it.each([
    [UBUNTU_OS, { id: "ubuntu", idLike: ["debian"], prettyName: "Ubuntu 24.04.1 LTS" }],
    ["", { id: "", idLike: [], prettyName: "" }],
    ["ID='arch'\n", { id: "arch", idLike: [], prettyName: "" }],
  ])("parseOsRelease(%j)", (text, os) => expect(parseOsRelease(text)).toEqual(os));
});

describe("CLI", () => {
  it("doctor prints one line per check and returns 1 on a fail", async () => {
    const out: string[] = [];
    const code = await doctorCommand(
      { out: (l) => out.push(l) },
      { fix: false, json: false },
      deps(world({ engineUp: false })),
    );
    expect(code).toBe(1);
    expect(out.join("\n")).toMatch(/^fail docker engine +no engine answers/m);
  });

  it("doctor --json prints parseable checks", async () => {
    const out: string[] = [];
    const code = await doctorCommand({ out: (l) => out.push(l) }, { fix: false, json: true }, deps(world()));
    expect(code).toBe(0);
    const j = JSON.parse(out.join("\n")) as {
      checks: Array<{ id: string; status: string }>;
      summary: { fail: number };
    };
    expect(j.summary.fail).toBe(0);
    expect(j.checks.map((c) => c.id)).toContain("engine");
  });

  it("ensureHost returns at once when an engine answers", async () => {
    const w = world();
    const out: string[] = [];
    await ensureHost({ out: (l) => out.push(l), fix: true }, deps(w));
    expect(out).toEqual([]);
    expect(w.calls).toEqual([]);
  });

  it("ensureHost prints a notice and fixes when no engine answers", async () => {
    const w = world({ engineUp: false });
    const out: string[] = [];
    await ensureHost({ out: (l) => out.push(l), fix: true }, deps(w));
    expect(out[0]).toBe("no Docker engine answers on unix:///var/run/docker.sock; running doctor --fix ...");
    expect(w.spawned).toEqual(["dockerd > /var/log/twinbench-dockerd.log"]);
  });

  it("ensureHost fails with the paragraph when it cannot fix", async () => {
    const e = (await ensureHost({ out: () => {}, fix: true }, deps(world({ engineUp: false, isRoot: false }))).catch(
      (x: unknown) => x,
    )) as TwinbenchError;
    expect(e.code).toBe("DOCTOR_CANNOT_FIX");
    expect(e.hint).toMatch(/sudo/);
  });

  it("ensureHost rejects an engine older than API 1.41", async () => {
    const e = (await ensureHost({ out: () => {}, fix: true }, deps(world({ apiVersion: "1.39" }))).catch(
      (x: unknown) => x,
    )) as TwinbenchError;
    expect(e.code).toBe("ENGINE_API_TOO_OLD");
    expect(e.message).toMatch(/API 1\.39, older than 1\.41/);
  });
});
