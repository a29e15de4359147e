import { describe, expect, it } from "vitest";
import { compareVersions } from "../../../src/core/config/version.ts";
import { evaluateChecks, summarize, type CheckId, type CheckStatus } from "../../../src/core/hosts/doctor-checks.ts";
import { missingPackages, planFixes, type FixAction } from "../../../src/core/hosts/doctor-fix.ts";
import { osFamily, type HostFacts, type OsFacts } from "../../../src/core/hosts/doctor.ts";

const GiB = 1024 ** 3;

const DEBIAN = { id: "debian", idLike: [], prettyName: "Debian GNU/Linux 12 (bookworm)" };
const UBUNTU = { id: "ubuntu", idLike: ["debian"], prettyName: "Ubuntu 24.04 LTS" };
const FEDORA = { id: "fedora", idLike: [], prettyName: "Fedora Linux 40" };

const runningEngine: Extract<HostFacts["engine"], { answers: true }> = {
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
const noEngine: HostFacts["engine"] = {
  answers: false,
  endpoint: "unix:///var/run/docker.sock",
  error: "ENOENT connect ENOENT /var/run/docker.sock",
};

/** A fully equipped Debian host with a running engine. */
function host(over: Partial<HostFacts> = {}, tools: Partial<HostFacts["tools"]> = {}): HostFacts {
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

const bareTools = {
  dockerd: false,
  debootstrap: false,
  mkfsBtrfs: false,
  mkfsXfs: false,
  mdadm: false,
  dockerComposeStandalone: false,
  dockerComposePlugin: false,
};

function status(f: HostFacts): Partial<Record<CheckId, CheckStatus>> {
  return Object.fromEntries(evaluateChecks(f).map((l) => [l.id, l.status]));
}

describe("evaluateChecks", () => {
  const cases: Array<{
    name: string;
    facts: HostFacts;
    expect: Partial<Record<CheckId, CheckStatus>>;
    detail?: [CheckId, RegExp];
  }> = [
    {
      name: "fully equipped host",
      facts: host(),
      expect: {
        node: "ok",
        engine: "ok",
        "api-version": "ok",
        "storage-driver": "ok",
        cgroups: "ok",
        debootstrap: "ok",
        root: "ok",
        mdstat: "ok",
        "loop-devices": "ok",
        "fs-tools": "ok",
        compose: "ok",
        "image-mode": "ok",
        mirror: "ok",
      },
      detail: [
        "mirror",
        /^http:\/\/mirror\.example\.test\/debian \(from \/etc\/apt\/sources\.list\.d\/debian\.sources:1\); security: /,
      ],
    },
    {
      name: "no Debian source on the host and none in the lock",
      facts: host({ mirrors: { debian: null, security: null } }),
      expect: { mirror: "warn" },
      detail: ["mirror", /no Debian mirror.*cannot be built/],
    },
    {
      name: "no security source: the -security images cannot be built",
      facts: host({
        mirrors: {
          debian: { uri: "http://mirror.example.test/debian", from: "/etc/apt/sources.list:1" },
          security: null,
        },
      }),
      expect: { mirror: "warn" },
      detail: ["mirror", /bookworm-security/],
    },
    {
      name: "Debian root, no docker",
      facts: host({ engine: noEngine }, bareTools),
      expect: {
        engine: "fail",
        "api-version": "fail",
        "storage-driver": "warn",
        debootstrap: "fail",
        "fs-tools": "warn",
        compose: "warn",
      },
      detail: ["engine", /no engine answers on unix:\/\/\/var\/run\/docker.sock: ENOENT/],
    },
    {
      name: "Node 20 past its end of life warns, with the lines to move to",
      facts: host({ node: { version: "20.20.2", today: "2026-12-06" } }),
      expect: { node: "warn", engine: "ok" },
      detail: ["node", /Node 20\.20\.2: Node 20 reached its end of life on 2026-04-30/],
    },
    {
      name: "Podman's Docker-compatible service is named, and refused for the sized tmpfs volume it lacks",
      facts: host({ engine: { ...runningEngine, product: "podman", serverVersion: "4.3.1" } }),
      expect: { engine: "ok", "engine-product": "fail" },
      detail: ["engine", /\(Podman 4\.3\.1\)/],
    },
    {
      name: "Node 26 is supported",
      facts: host({ node: { version: "26.10.0", today: "2026-12-06" } }),
      expect: { node: "ok" },
      detail: ["node", /Node 26\.10\.0 \(supported until/],
    },
    {
      name: "old API",
      facts: host({ engine: { ...runningEngine, apiVersion: "1.40", serverVersion: "19.03.15" } }),
      expect: { engine: "ok", "api-version": "fail" },
      detail: ["api-version", /API 1\.40 is older than 1\.41 \(Docker 19\.03\.15\)/],
    },
    {
      name: "newer API (1.50) is fine, compared numerically",
      facts: host({ engine: { ...runningEngine, apiVersion: "1.50" } }),
      expect: { "api-version": "ok" },
    },
    {
      name: "vfs storage driver warns",
      facts: host({ engine: { ...runningEngine, storageDriver: "vfs" } }),
      expect: { "storage-driver": "warn" },
      detail: ["storage-driver", /vfs \(not overlay2\)/],
    },
    {
      name: "cgroup v2 with systemd driver",
      facts: host({
        engine: { ...runningEngine, cgroupVersion: "2", cgroupDriver: "systemd" },
        cgroup: { version: 2, cpuset: true },
      }),
      expect: { cgroups: "ok" },
      detail: ["cgroups", /^v2, driver systemd, cpuset available$/],
    },
    {
      name: "no cpuset controller warns",
      facts: host({ cgroup: { version: 2, cpuset: false } }),
      expect: { cgroups: "warn" },
    },
    {
      name: "low disk warns and names the value",
      facts: host({ diskDockerRoot: { path: "/var/lib/docker", freeBytes: 3 * GiB } }),
      expect: { "disk-docker-root": "warn", "disk-results": "ok" },
      detail: ["disk-docker-root", /\/var\/lib\/docker: 3\.0 GiB free \(below 10\.0 GiB\)/],
    },
    {
      name: "a missing directory is measured at its ancestor, and says so",
      facts: host({ diskDockerRoot: { path: "/var/lib/docker", freeBytes: 70 * GiB, measuredAt: "/" } }),
      expect: { "disk-docker-root": "ok" },
      detail: ["disk-docker-root", /measured at \/, \/var\/lib\/docker does not exist here/],
    },
    {
      name: "uninspectable disk warns",
      facts: host({ diskDockerRoot: { path: "/var/lib/docker", freeBytes: null, error: "EACCES" } }),
      expect: { "disk-docker-root": "warn" },
    },
    {
      name: "not root",
      facts: host({ isRoot: false }),
      expect: { root: "warn", engine: "ok" },
    },
    {
      name: "no md driver is a warn, not a fail (btrfs raid0 fallback)",
      facts: host({ mdstat: false, loopControl: false }),
      expect: { mdstat: "warn", "loop-devices": "warn" },
      detail: ["mdstat", /btrfs raid0/],
    },
    {
      name: "compose plugin alone is enough",
      facts: host({}, { dockerComposeStandalone: false, dockerComposePlugin: true }),
      expect: { compose: "ok" },
    },
    {
      name: "forced official mode: no debootstrap is only a warning",
      facts: host({ imageMode: { mode: "official", forced: true } }, { debootstrap: false }),
      expect: { debootstrap: "warn", "image-mode": "ok" },
      detail: ["image-mode", /official \(forced\)/],
    },
    {
      name: "every official digest pinned: the lock serves both modes",
      facts: host(),
      expect: { "image-mode": "ok" },
      detail: ["image-mode", /images\/lock\.yaml serves debian and official/],
    },
    {
      name: "PLACEHOLDER digests: debian only, which is fine when the mode is not forced to official",
      facts: host({ lock: { file: "images/lock.yaml", placeholder: ["mariadb-11.8", "mysql-9.7"] } }),
      expect: { "image-mode": "ok" },
      detail: ["image-mode", /serves debian only: official\.digest is PLACEHOLDER for mariadb-11\.8, mysql-9\.7/],
    },
    {
      name: "forced official mode with PLACEHOLDER digests fails and points at images pin",
      facts: host({
        imageMode: { mode: "official", forced: true },
        lock: { file: "images/lock.yaml", placeholder: ["sysbench-1.0"] },
      }),
      expect: { "image-mode": "fail" },
      detail: ["image-mode", /official \(forced\).*serves debian only.*sysbench-1\.0/],
    },
    {
      name: "an unreadable lock is a warning naming the file",
      facts: host({ lock: { file: "/x/lock.yaml", error: "cannot read the image lock file /x/lock.yaml: ENOENT" } }),
      expect: { "image-mode": "warn" },
      detail: ["image-mode", /cannot read the image lock \/x\/lock\.yaml/],
    },
  ];
  it.each(cases)("$name", (c) => {
    const got = status(c.facts);
    for (const [id, s] of Object.entries(c.expect))
      expect({ id, status: got[id as CheckId] }).toEqual({ id, status: s });
    if (c.detail) {
      const [id, re] = c.detail;
      expect(evaluateChecks(c.facts).find((l) => l.id === id)?.detail).toMatch(re);
    }
  });

  it("summarizes failures", () => {
    expect(summarize(evaluateChecks(host({ engine: noEngine }))).failed).toEqual(["engine", "api-version"]);
    expect(summarize(evaluateChecks(host())).fail).toBe(0);
  });
});

describe("planFixes", () => {
  const kinds = (a: FixAction[]) =>
    a.map((x) =>
      x.kind === "apt-install"
        ? `install ${x.packages.join(" ")}`
        : x.kind === "start-engine"
          ? `start via ${x.via}`
          : x.kind,
    );
  const cases: Array<{ name: string; facts: HostFacts; plan: string; actions?: string[]; paragraph?: RegExp[] }> = [
    {
      name: "Debian root, no docker: install everything, start dockerd, wait",
      facts: host({ engine: noEngine }, bareTools),
      plan: "fix",
      actions: [
        "apt-update",
        "install docker.io debootstrap btrfs-progs xfsprogs mdadm docker-compose",
        "start via dockerd",
        "wait-engine",
      ],
    },
    {
      name: "docker running, everything present: nothing to do (idempotent)",
      facts: host(),
      plan: "nothing-to-do",
      actions: [],
    },
    {
      name: "docker running, tools missing: install them, never docker.io, never start",
      facts: host({}, { dockerd: false, mdadm: false, dockerComposeStandalone: false }),
      plan: "fix",
      actions: ["apt-update", "install mdadm docker-compose"],
    },
    {
      name: "docker.io installed but stopped, systemd is PID 1: systemctl start",
      facts: host({ engine: noEngine, pid1: "systemd" }),
      plan: "fix",
      actions: ["start via systemctl", "wait-engine"],
    },
    {
      name: "old API: --fix does not touch the running engine",
      facts: host({ engine: { ...runningEngine, apiVersion: "1.39" } }),
      plan: "nothing-to-do",
      actions: [],
    },
    {
      name: "Ubuntu root, no docker",
      facts: host({ os: UBUNTU, engine: noEngine }, { dockerd: false }),
      plan: "fix",
      actions: ["apt-update", "install docker.io", "start via dockerd", "wait-engine"],
    },
    {
      name: "not root, no engine: cannot fix, says what to run with sudo",
      facts: host({ isRoot: false, engine: noEngine }, { dockerd: false, debootstrap: false }),
      plan: "cannot-fix",
      paragraph: [/must run as root/, /sudo apt-get update/, /docker\.io debootstrap/, /sudo systemctl start docker/],
    },
    {
      name: "non-Debian: cannot fix, names the OS and the packages",
      facts: host({ os: FEDORA, engine: noEngine }, bareTools),
      plan: "cannot-fix",
      paragraph: [
        /Fedora Linux 40 is not Debian or Ubuntu/,
        /Docker Engine 20\.10 or newer/,
        /debootstrap/,
        /systemctl start docker/,
      ],
    },
    {
      name: "non-Debian with everything present: nothing to do",
      facts: host({ os: FEDORA }),
      plan: "nothing-to-do",
      actions: [],
    },
    {
      name: "DOCKER_HOST points at an engine that does not answer: never start a local one",
      facts: host({ engine: { answers: false, endpoint: "tcp://10.0.0.5:2375", error: "ECONNREFUSED" } }),
      plan: "cannot-fix",
      paragraph: [/DOCKER_HOST points at tcp:\/\/10\.0\.0\.5:2375/, /unset DOCKER_HOST/],
    },
    {
      name: "inside the compose container with the host's engine: nothing to do, even with tools missing",
      facts: host({ inContainer: true }, { mdadm: false, dockerComposeStandalone: false }),
      plan: "nothing-to-do",
      actions: [],
    },
    {
      name: "inside a container without an engine: points at the host",
      facts: host({ inContainer: true, engine: noEngine }),
      plan: "cannot-fix",
      paragraph: [/inside a container/, /on the host/, /docker\.sock/],
    },
    {
      name: "Debian-like without apt-get",
      facts: host({ engine: noEngine }, { dockerd: false, aptGet: false }),
      plan: "cannot-fix",
      paragraph: [/apt-get is not available/],
    },
  ];
  it.each(cases)("$name", (c) => {
    const p = planFixes(c.facts);
    expect(p.kind).toBe(c.plan);
    if (c.actions) expect(kinds(p.actions)).toEqual(c.actions);
    if (c.paragraph) {
      expect(p.kind === "cannot-fix" && p.paragraph.split("\n")).toHaveLength(1);
      for (const re of c.paragraph) expect(p.kind === "cannot-fix" ? p.paragraph : "").toMatch(re);
    }
  });

  it("the engine wait names its deadline and the dockerd log", () => {
    const p = planFixes(host({ engine: noEngine }));
    expect(p.actions).toContainEqual({
      kind: "wait-engine",
      endpoint: "unix:///var/run/docker.sock",
      timeoutMs: 60_000,
    });
    expect(p.actions).toContainEqual({
      kind: "start-engine",
      via: "dockerd",
      logFile: "/var/log/twinbench-dockerd.log",
    });
  });
});

describe("helpers", () => {
  it.each([
    ["1.41", "1.41", 0],
    ["1.40", "1.41", -1],
    ["1.9", "1.41", -1],
    ["1.50", "1.41", 1],
    ["2.0", "1.41", 1],
  ] as const)("compareVersions(%s, %s) = %d", (a, b, r) => expect(compareVersions(a, b)).toBe(r));

  it.each<[OsFacts, string]>([
    [DEBIAN, "debian"],
    [UBUNTU, "ubuntu"],
    [{ id: "linuxmint", idLike: ["ubuntu", "debian"], prettyName: "" }, "ubuntu"],
    [{ id: "raspbian", idLike: ["debian"], prettyName: "" }, "debian"],
    [FEDORA, "other"],
  ])("osFamily(%o) = %s", (os, fam) => expect(osFamily(os)).toBe(fam));

  it("missingPackages never lists docker.io next to a running engine", () => {
    expect(missingPackages(host({}, { dockerd: false }))).toEqual([]);
    expect(missingPackages(host({ engine: noEngine }, { dockerd: false }))).toEqual(["docker.io"]);
  });
});
