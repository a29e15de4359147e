/** The server and host checks: at least two servers, unique ids, images in the lock, the compare key, hosts and shard. */
import { describe, expect, it } from "vitest";
import {
  VALIDATION_FILE as F,
  validated,
  validationErrors,
  validationWarnings,
  type ScenarioDoc,
} from "../../../support/scenario.ts";

describe("validate-servers: errors, one case per rule", () => {
  const cases: Array<[string, (d: ScenarioDoc) => void, string]> = [
    [
      "one server without compare hosts/runs",
      (d) => d.servers.pop(),
      `${F}: servers: expected at least 2 servers (the first two are the ratio's numerator and denominator), got 1; one server is enough with compare: hosts or compare: runs`,
    ],
    [
      "duplicate server id",
      (d) => (d.servers[1].id = "mariadb"),
      `${F}: servers.1.id: duplicate server id "mariadb" (already used by servers.0)`,
    ],
    [
      "image not in the lock",
      (d) => (d.servers[1].image = "mysql-9.8"),
      `${F}: servers.1.image: image "mysql-9.8" is not in the image lock (mariadb-11.8, mariadb-10.11, mysql-9.7, sysbench-1.0); did you mean "mysql-9.7"?`,
    ],
    [
      "load image as a server",
      (d) => (d.servers[1].image = "sysbench-1.0"),
      `${F}: servers.1.image: "sysbench-1.0" is the load (sysbench) image, not a server image`,
    ],
    [
      "compare names a server",
      (d) => (d.compare = { numerator: "mariadb", denominator: "mysq" }),
      `${F}: compare.denominator: "mysq" is not a server id (servers: mariadb, mysql); did you mean "mysql"?`,
    ],
    [
      "compare the same server",
      (d) => (d.compare = { numerator: "mysql", denominator: "mysql" }),
      `${F}: compare.denominator: "mysql" is also the numerator; compare two different servers`,
    ],
    [
      "host ids unique",
      (d) =>
        (d.hosts = [
          { id: "a", engine: "unix:///var/run/docker.sock" },
          { id: "a", engine: "tcp://127.0.0.2:2375" },
        ]),
      `${F}: hosts.1.id: duplicate host id "a" (already used by hosts.0)`,
    ],
    [
      "shard needs two hosts",
      (d) => (d.shard = true),
      `${F}: shard: shard: true spreads cells over hosts and needs at least 2 hosts, got 0`,
    ],
    [
      "shard excludes compare hosts",
      (d) => {
        d.shard = true;
        d.compare = "hosts";
        d.hosts = [
          { id: "a", engine: "unix:///var/run/docker.sock" },
          { id: "b", engine: "tcp://127.0.0.2:2375" },
        ];
      },
      `${F}: shard: shard: true and compare: hosts exclude each other (compare runs every cell on every host)`,
    ],
  ];
  it.each(cases)("%s", (_name, mut, expected) => {
    expect(validationErrors(mut)).toContain(expected);
  });
});

describe("validate-servers: warnings", () => {
  const cases: Array<[string, (d: ScenarioDoc) => void, string]> = [
    [
      "per-server config is an asymmetry",
      (d) => (d.servers[0].config = { set: { innodb_io_capacity: 4000 } }),
      `${F}: servers.0.config.set: deliberate asymmetry: innodb_io_capacity set for mariadb only; every report flags it`,
    ],
  ];
  it.each(cases)("%s", (_name, mut, expected) => {
    expect(validationWarnings(mut)).toContain(expected);
  });
});

describe("validate-servers: the resolved scenario", () => {
  it("one server is enough with compare: hosts or runs", () => {
    for (const compare of ["hosts", "runs"]) {
      const r = validated((d) => {
        d.servers.pop();
        d.compare = compare;
      });
      expect("scenario" in r).toBe(true);
    }
  });
});
