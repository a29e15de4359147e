/** The doctor's printed check lines: one per check, aligned, with indented hints on warn and fail. */
import { describe, expect, it } from "vitest";
import { evaluateChecks, type CheckId, type CheckStatus } from "../../../src/core/hosts/doctor-checks.ts";
import { type HostFacts } from "../../../src/core/hosts/doctor.ts";
import { formatCheckLines } from "../../../src/core/report/doctor.ts";

const GiB = 1024 ** 3;

const DEBIAN = { id: "debian", idLike: [], prettyName: "Debian GNU/Linux 12 (bookworm)" };

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

describe("formatCheckLines", () => {
  it("has one line per check and a hint on every warn/fail line", () => {
    for (const f of [host(), host({ engine: noEngine, isRoot: false, mdstat: false, loopControl: false }, bareTools)]) {
      const lines = evaluateChecks(f);
      expect(new Set(lines.map((l) => l.id)).size).toBe(lines.length);
      for (const l of lines) if (l.status !== "ok") expect(l.hint, l.id).toBeTruthy();
    }
  });

  it("formats aligned lines with indented hints", () => {
    const text = formatCheckLines(evaluateChecks(host({ mdstat: false })));
    expect(text).toMatch(/^ok   docker engine +answers on unix/m);
    expect(text).toMatch(/^warn md driver +\/proc\/mdstat absent/m);
    expect(text).toMatch(/^ +hint: to use mdadm RAID/m);
  });
});
