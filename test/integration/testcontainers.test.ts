/**
 * twinbench/testcontainers for real: the zero-argument MariaDB container runs the lab's neutral config as
 * `config render` renders it, keeps testcontainers' API, carries twinbench's labels and reports its must-match
 * identity; startTwins starts MariaDB and MySQL with identical config, accepts a deliberate per-server difference
 * and refuses an unasked one. Removes every container it started (checked by this process's pid label).
 */
import { afterAll, describe, expect, it } from "vitest";
import mysql from "mysql2/promise";
import Docker from "dockerode";
import { DockerEngine } from "../../src/adapters/docker/engine.ts";
import { listLabelled } from "../../src/core/model/engine/engine.ts";
import { loadLock } from "../../src/adapters/images/index.ts";
import { loadScenario, readNeutralConfig } from "../../src/adapters/scenario-file.ts";
import { renderConfig } from "../../src/core/config/render.ts";
import { parseCnf } from "../../src/core/config/cnf.ts";
import {
  startTwins,
  TwinbenchMariaDbContainer,
  type StartedTwinbenchMariaDbContainer,
} from "../../src/testcontainers/index.ts";

const engine = new DockerEngine("local");
const SESSION = `it-tc-${process.pid}`;

/** The [mysqld] value of an option in a rendered cnf. */
function cnfValue(cnf: string, name: string): string | undefined {
  const section = parseCnf(cnf).sections.find((s) => s.name === "mysqld");
  return section?.entries.find((e) => e.key === name)?.value ?? undefined;
}

afterAll(async () => {
  const left = await listLabelled(engine, [`twinbench.session=${SESSION}`]);
  expect([...left.containers, ...left.networks, ...left.volumes].map((x) => x.name)).toEqual([]);
});

describe("TwinbenchMariaDbContainer", () => {
  let db: StartedTwinbenchMariaDbContainer | undefined;
  afterAll(async () => {
    await db?.stop();
  });

  it("starts with no arguments on the lock's default MariaDB and the neutral config", async () => {
    const c = new TwinbenchMariaDbContainer({ session: SESSION })
      .withDatabase("app")
      .withUsername("appuser")
      .withUserPassword("s3cret");
    db = await c.start();
    expect(db.twinbench.image).toBe("mariadb-11.8");
    expect(db.twinbench.scenario.config.profile).toBe("neutral");

    // The same cnf `twinbench config render scenarios/quick.yaml --server mariadb` renders, bar the buffer pool
    // quick.yaml sets: compare the options that the test asserts on the server.
    const { scenario } = await loadScenario("scenarios/quick.yaml");
    const lock = await loadLock();
    const quick = renderConfig({
      neutral: await readNeutralConfig(scenario),
      family: "mariadb",
      version: lock.images["mariadb-11.8"]!.version,
      storageKind: "tmpfs",
      scenario,
      serverId: "mariadb",
    });
    const conn = await mysql.createConnection(db.getConnectionUri());
    try {
      const [[row]] = (await conn.query(
        "SELECT @@innodb_flush_neighbors AS fn, @@innodb_io_capacity AS io, @@performance_schema AS ps, DATABASE() AS d, CURRENT_USER() AS u",
      )) as unknown as [[Record<string, unknown>]];
      expect(String(row!.fn)).toBe(cnfValue(quick.cnf, "innodb_flush_neighbors"));
      expect(String(row!.io)).toBe(cnfValue(quick.cnf, "innodb_io_capacity"));
      expect(Number(row!.ps) === 1 ? "ON" : "OFF").toBe(cnfValue(quick.cnf, "performance_schema"));
      expect(row!.d).toBe("app");
      expect(row!.u).toBe("appuser@%");
    } finally {
      await conn.end();
    }
  }, 600_000);

  it("carries twinbench's labels, so the sweep and `clean` see it", async () => {
    const info = await new Docker().getContainer(db!.getId()).inspect(); // the test reads labels as Docker shows them
    expect(info.Config.Labels).toMatchObject({
      "twinbench.session": SESSION,
      "twinbench.run": SESSION,
      "twinbench.pid": String(process.pid),
      "twinbench.server": "mariadb-11-8",
    });
  });

  it("reports its must-match identity from the running server", async () => {
    const id = await db!.getConfigIdentity();
    expect(id.version).toMatch(/^11\.8\./);
    expect(id.values).toMatchObject({
      innodb_flush_neighbors: "0",
      innodb_io_capacity: "2000",
      performance_schema: "OFF",
    });
    expect(Object.keys(id.variables).length).toBeGreaterThan(300);
  });
});

describe("startTwins", () => {
  it("starts MariaDB and MySQL with identical must-match variables, a per-server set being deliberate", async () => {
    await using twins = await startTwins(
      [
        { image: "mariadb-11.8", id: "mariadb" },
        { image: "mysql-9.7", id: "mysql", set: { innodb_io_capacity: 3000 } },
      ],
      { session: SESSION, set: { innodb_buffer_pool_size: "256M" } },
    );
    expect(twins.servers.map((s) => s.twinbench.id)).toEqual(["mariadb", "mysql"]);
    expect(twins.differences).toEqual([]);
    const io = twins.mustMatch.find((r) => r.variable === "innodb_io_capacity")!;
    expect(io).toMatchObject({ equal: false, deliberate: true, values: { mariadb: "2000", mysql: "3000" } });
    const bp = twins.mustMatch.find((r) => r.variable === "innodb_buffer_pool_size")!;
    expect(bp).toMatchObject({ equal: true, values: { mariadb: "256M", mysql: "256M" } });
  }, 900_000);

  it("refuses an unasked difference (and removes both servers), unless allowDifferences", async () => {
    const configure = (c: { withCommand(cmd: string[]): unknown }, id: string) => {
      if (id === "b") c.withCommand(["--defaults-file=/etc/twinbench/my.cnf", "--innodb-io-capacity=500"]);
    };
    await expect(
      startTwins([{ image: "mariadb-11.8" }, { image: "mariadb-11.8" }], { session: SESSION, configure }),
    ).rejects.toMatchObject({
      code: "CONFIG_MISMATCH",
      message: expect.stringContaining("innodb_io_capacity (a=2000, b=500)"),
    });
    expect((await listLabelled(engine, [`twinbench.session=${SESSION}`])).containers).toEqual([]);
    await using twins = await startTwins([{ image: "mariadb-11.8" }, { image: "mariadb-11.8" }], {
      session: SESSION,
      configure,
      allowDifferences: true,
    });
    expect(twins.differences.map((r) => r.variable)).toEqual(["innodb_io_capacity"]);
  }, 900_000);
});
