/**
 * A functional test against the lab's MariaDB: the same pinned image and the same neutral config that twinbench
 * benchmarks, with testcontainers' usual API.
 */
import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, expect, it } from "vitest";
import mysql from "mysql2/promise";
import { TwinbenchMariaDbContainer, type StartedTwinbenchMariaDbContainer } from "twinbench/testcontainers";
import { leftovers } from "./leftovers.ts";

let db: StartedTwinbenchMariaDbContainer;

beforeAll(async () => {
  db = await new TwinbenchMariaDbContainer()
    .withDatabase("shop")
    .withUsername("shop")
    .withUserPassword("shop-pw")
    .start();
});
afterAll(async () => {
  await db?.stop();
  expect(await leftovers()).toEqual([]);
});

/** `option = value` lines of `twinbench config render` for one server. */
function rendered(server: string): Map<string, string> {
  const out = execFileSync("npx", ["twinbench", "config", "render", "scenarios/quick.yaml", "--server", server], {
    encoding: "utf8",
  });
  return new Map([...out.matchAll(/^([a-z_]+) = (.*)$/gm)].map((m) => [m[1]!, m[2]!.trim()]));
}

it("runs the neutral config that `twinbench config render` shows for that server", async () => {
  const cnf = rendered("mariadb");
  const conn = await mysql.createConnection(db.getConnectionUri(true));
  try {
    const [[v]] = (await conn.query(
      "SELECT @@innodb_flush_neighbors AS innodb_flush_neighbors, @@innodb_io_capacity AS innodb_io_capacity, IF(@@performance_schema, 'ON', 'OFF') AS performance_schema",
    )) as unknown as [[Record<string, string | number>]];
    for (const name of ["innodb_flush_neighbors", "innodb_io_capacity", "performance_schema"]) {
      expect(String(v![name]), name).toBe(cnf.get(name));
    }
  } finally {
    await conn.end();
  }
});

it("is an ordinary database for the application's own tests", async () => {
  const conn = await mysql.createConnection(db.getConnectionUri());
  try {
    await conn.query("CREATE TABLE orders (id INT PRIMARY KEY AUTO_INCREMENT, total DECIMAL(10,2) NOT NULL)");
    await conn.query("INSERT INTO orders (total) VALUES (9.50), (20.25)");
    const [[row]] = (await conn.query("SELECT COUNT(*) AS n, SUM(total) AS sum FROM orders")) as unknown as [
      [{ n: number; sum: string }],
    ];
    expect(row).toEqual({ n: 2, sum: "29.75" });
  } finally {
    await conn.end();
  }
});

it("reports its must-match identity from the running server", async () => {
  const id = await db.getConfigIdentity();
  expect(db.twinbench.image).toBe("mariadb-11.8");
  expect(id.version).toMatch(/^11\.8\./);
  expect(id.values.innodb_doublewrite).toBe("OFF");
});
