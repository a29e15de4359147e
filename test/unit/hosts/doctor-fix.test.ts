import { describe, expect, it } from "vitest";
import { planFixes, type FixAction } from "../../../src/core/hosts/doctor-fix.ts";
import type { HostFacts } from "../../../src/core/hosts/doctor.ts";
import { UBUNTU, FEDORA, runningEngine, noEngine, host, bareTools } from "../../support/doctor-host.ts";

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
