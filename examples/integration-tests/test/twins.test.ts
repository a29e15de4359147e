/** MariaDB and MySQL side by side with the same config: the must-match table proves it. */
import { afterAll, expect, it } from "vitest";
import { startTwins } from "twinbench/testcontainers";
import { leftovers } from "./leftovers.ts";

afterAll(async () => {
  expect(await leftovers()).toEqual([]);
});

it("starts MariaDB 11.8 and MySQL 9.7 with identical must-match variables", async () => {
  await using twins = await startTwins([{ image: "mariadb-11.8" }, { image: "mysql-9.7" }]);
  expect(twins.differences).toEqual([]);
  const row = (name: string) => twins.mustMatch.find((r) => r.variable === name);
  for (const name of [
    "innodb_buffer_pool_size",
    "innodb_flush_log_at_trx_commit",
    "innodb_io_capacity",
    "performance_schema",
    "collation_server",
  ]) {
    expect(row(name), name).toMatchObject({ equal: true });
  }
  expect(twins.servers.map((s) => s.twinbench.family)).toEqual(["mariadb", "mysql"]);
});
