/**
 * The rendered configs against real servers: every pinned server starts with the seed-derived config on tmpfs and
 * on a volume; `config diff` finds zero must-match differences between MariaDB 11.8 and MySQL 9.7; a bad option
 * gives a start-failure error naming it, with nothing left running.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { readFile } from "node:fs/promises";
import { ensureLab, leftovers, tinyScenario, twinbench } from "./support/lab.ts";

const none = { containers: [], networks: [], volumes: [] };
const runIdOf = (out: string) => /config diff: run (\S+)/.exec(out)?.[1] ?? "missing-run-id";

beforeAll(ensureLab, 1_800_000);

describe("config against real servers", () => {
  it.each(["tmpfs", "volume"])(
    "MariaDB 11.8, MariaDB 10.11 and MySQL 9.7 start with the rendered config on %s",
    { timeout: 600_000 },
    async (kind) => {
      const { file } = await tinyScenario({
        servers: [
          { id: "m118", image: "mariadb-11.8" },
          { id: "m1011", image: "mariadb-10.11" },
          { id: "my97", image: "mysql-9.7" },
        ],
        storage: kind === "tmpfs" ? { kind: "tmpfs", size: "1g" } : { kind: "volume" },
      });
      const r = await twinbench(["config", "diff", file]);
      expect(r.all).toMatch(/server m118: ready .*11\.8\.9-MariaDB/);
      expect(r.all).toMatch(/server m1011: ready .*10\.11\.19-MariaDB/);
      expect(r.all).toMatch(/server my97: ready .*9\.7\.4/);
      expect(r.stdout).toMatch(/must-match variables \(\d+\)/);
      expect(await leftovers(runIdOf(r.all))).toEqual(none);
    },
  );

  it(
    "config diff between MariaDB 11.8 and MySQL 9.7 shows zero must-match differences",
    { timeout: 600_000 },
    async () => {
      const r = await twinbench(["config", "diff", "scenarios/quick.yaml"]);
      expect(r.exitCode, r.all).toBe(0);
      expect(r.stdout).toMatch(/must-match variables \(\d+\): all equal/);
      expect(r.stdout).not.toMatch(/ DIFFERENT/);
      expect(r.stdout).toMatch(/all differing variables, mariadb vs mysql/);
      expect(await leftovers(runIdOf(r.all))).toEqual(none);
    },
  );

  it("a bad config.set option makes a clear start-failure error and leaves nothing", { timeout: 600_000 }, async () => {
    const { file, dir } = await tinyScenario({ config: { base: "lab/my.cnf", set: { innodb_no_such_option: 1 } } });
    const r = await twinbench(["run", file, "--out", `${dir}/out`, "--no-tui"]);
    expect(r.exitCode).toBe(1);
    expect(r.all).toMatch(/SERVER_START_FAILED/);
    expect(r.all).toMatch(/server "mariadb" \(image twinbench\/mariadb-11\.8:/);
    expect(r.all).toMatch(/>> .*innodb[_-]no[_-]such[_-]option/);
    const runId = JSON.parse(await readFile(`${dir}/out/run.json`, "utf8")).runId as string;
    expect(await leftovers(runId)).toEqual(none);
  });
});
