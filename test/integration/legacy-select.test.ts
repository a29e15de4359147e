/**
 * The legacy `select` test (seeds 000/001) runs for real against both servers through the shipped select.lua and
 * issues exactly the 0.5 SQL, `SELECT pad FROM sbtestN WHERE id=<n>`, as each server's general log shows.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomBytes } from "node:crypto";
import { DockerEngine } from "../../src/adapters/docker/engine.ts";
import { createBenchUser, waitReady, withConnection } from "../../src/adapters/mysql/probe.ts";
import { DisposableStack } from "../../src/app/disposables.ts";
import { ensureImage, loadLock } from "../../src/adapters/images/index.ts";
import { sysbenchArgv } from "../../src/core/model/scenario/argv.ts";
import { WorkloadSchema } from "../../src/core/model/scenario/schema.ts";
import { ensureLab } from "./support/lab.ts";

beforeAll(ensureLab, 1_800_000);
const engine = new DockerEngine("local");
const stack = new DisposableStack();
afterAll(() => stack.dispose());
const labels = {
  "twinbench.session": "legacy-select-test",
  "twinbench.run": `legacy-select-${process.pid}`,
  "twinbench.pid": String(process.pid),
};

describe("legacy select", () => {
  it.each([
    ["mariadb-11.8", "MARIADB_ROOT_PASSWORD"],
    ["mysql-9.7", "MYSQL_ROOT_PASSWORD"],
  ])(
    "%s: select.lua runs and issues SELECT pad FROM sbtestN WHERE id=n",
    { timeout: 300_000 },
    async (image, envName) => {
      const lock = await loadLock();
      const server = await ensureImage(engine.images, image, { lock });
      const load = await ensureImage(engine.images, "sysbench-1.0", { lock });
      const tag = randomBytes(3).toString("hex");
      const net = `tb-legacy-${tag}`;
      await engine.networks.create(net, labels);
      stack.defer(net, () => engine.networks.remove(net));
      const password = randomBytes(8).toString("hex");
      const id = await engine.containers.create({
        name: `tb-legacy-${tag}-db`,
        image: server.tag,
        cmd: ["--general-log=1", "--log-output=TABLE", "--skip-log-bin"],
        env: { [envName]: password },
        labels,
        network: { kind: "network", name: net },
      });
      stack.defer(id, () => engine.containers.remove(id));
      await engine.containers.start(id);
      const ip = (await engine.containers.inspect(id)).ips[net]!;
      const root = { host: ip, port: 3306, user: "root", password };
      await waitReady(root, { deadlineMs: 120_000 });
      await createBenchUser(root, {
        user: "sbtest",
        password: "sbpw",
        db: "sbtest",
        charset: "utf8mb4",
        collation: "utf8mb4_general_ci",
      });
      const workload = WorkloadSchema.parse({
        tests: ["select"],
        threads: [1],
        tables: 2,
        tableSize: 500,
        duration: "2s",
      });
      const conn = { host: ip, port: 3306, user: "sbtest", password: "sbpw", db: "sbtest" };
      for (const command of ["prepare", "run"] as const) {
        const argv = sysbenchArgv({
          script: "select",
          command,
          workload,
          threads: 1,
          durationSeconds: 2,
          connection: conn,
          percentile: 95,
          histogram: false,
        });
        const r = await engine.containers.run(
          {
            name: `tb-legacy-${tag}-${command}`,
            image: load.tag,
            entrypoint: ["sysbench"],
            cmd: argv,
            labels,
            network: { kind: "network", name: net },
            workingDir: "/usr/share/sysbench",
          },
          {},
        );
        expect(r.exitCode, r.output).toBe(0);
        if (command === "run") expect(r.output).toMatch(/queries:\s+\d+/);
      }
      const rows = await withConnection(root, async (c) => {
        const [res] = (await c.query(
          "SELECT CONVERT(argument USING utf8mb4) AS q FROM mysql.general_log WHERE command_type = 'Query' AND CONVERT(argument USING utf8mb4) LIKE 'SELECT % FROM sbtest%' LIMIT 200",
        )) as unknown as [Array<{ q: string }>];
        return res.map((x) => x.q);
      });
      expect(rows.length).toBeGreaterThan(10);
      for (const q of rows) expect(q).toMatch(/^SELECT pad FROM sbtest[12] WHERE id=\d+$/);
    },
  );
});
