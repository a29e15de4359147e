import { describe, expect, it } from "vitest";
import { evaluateChecks, summarize, type CheckId, type CheckStatus } from "../../../src/core/hosts/doctor-checks.ts";
import { formatCheckLines } from "../../../src/core/report/doctor.ts";
import type { HostFacts } from "../../../src/core/hosts/doctor.ts";
import { GiB, runningEngine, noEngine, host, bareTools } from "../../support/doctor-host.ts";

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

  it("has one line per check and a hint on every warn/fail line", () => {
    for (const f of [host(), host({ engine: noEngine, isRoot: false, mdstat: false, loopControl: false }, bareTools)]) {
      const lines = evaluateChecks(f);
      expect(new Set(lines.map((l) => l.id)).size).toBe(lines.length);
      for (const l of lines) if (l.status !== "ok") expect(l.hint, l.id).toBeTruthy();
    }
  });

  it("formats aligned lines with indented hints", () => {
    const text = formatCheckLines(evaluateChecks(host({ mdstat: false })));
    expect(text).toMatch(/^ok {3}docker engine +answers on unix/m);
    expect(text).toMatch(/^warn md driver +\/proc\/mdstat absent/m);
    expect(text).toMatch(/^ +hint: to use mdadm RAID/m);
  });

  it("summarizes failures", () => {
    expect(summarize(evaluateChecks(host({ engine: noEngine }))).failed).toEqual(["engine", "api-version"]);
    expect(summarize(evaluateChecks(host())).fail).toBe(0);
  });
});
