/** SQL probes through docker exec, for remote engines (src/adapters/docker/exec-probe.ts). */
import { describe, expect, it } from "vitest";
import { FakeEngine } from "../../../support/fake-engine.ts";

describe("SQL probes through docker exec (remote engines)", async () => {
  const { execProbe, unescapeBatch } = await import("../../../../src/adapters/docker/exec-probe.ts");
  it("undoes --batch escapes", () => {
    expect(unescapeBatch("a\\tb\\nc\\\\d")).toBe("a\tb\nc\\d");
  });
  it("finds the server by address, reads facts, creates the user, waits for readiness", async () => {
    const execs: string[][] = [];
    const envs: Array<Record<string, string>> = [];
    let ready = 2;
    const engine = new FakeEngine("b");
    engine.listed = [{ kind: "container", id: "c1", name: "tb-x-mysql", labels: { "twinbench.role": "server" } }];
    engine.containers.inspect = async () => ({
      running: true,
      paused: false,
      exitCode: null,
      oomKilled: false,
      ips: { "tb-x-mysql-net": "10.0.0.2" },
    });
    engine.exec.run = async (id: string, cmd: string[], opts?: { env?: Record<string, string> }) => {
      execs.push([id, ...cmd]);
      envs.push(opts?.env ?? {});
      const sql = opts?.env?.TB_SQL ?? "";
      if (sql === "SELECT 1")
        return ready-- > 0
          ? { exitCode: 1, stdout: "", stderr: "ERROR 2002: Can't connect" }
          : { exitCode: 0, stdout: "1\n", stderr: "" };
      if (sql.startsWith("SELECT @@version"))
        return {
          exitCode: 0,
          stdout:
            "9.7.4-2\tMySQL Community Server - GPL\nmax_connections\t151\nsql_mode\tA,B\ninit_file\tNULL\nx\ta\\tb\n",
          stderr: "",
        };
      return { exitCode: 0, stdout: "caching_sha2_password\n", stderr: "" };
    };
    const p = execProbe(engine);
    const ep = { host: "10.0.0.2", port: 3306, user: "root", password: "pw" };
    expect(await p.waitReady(ep, { deadlineMs: 10_000 })).toBeGreaterThanOrEqual(0);
    expect(await p.readServerFacts(ep)).toEqual({
      version: "9.7.4-2",
      versionComment: "MySQL Community Server - GPL",
      variables: { max_connections: "151", sql_mode: "A,B", init_file: "", x: "a\tb" },
    });
    expect(
      await p.createBenchUser(ep, {
        user: "sbtest",
        password: "tb'x",
        db: "sbtest",
        charset: "utf8mb4",
        collation: "utf8mb4_general_ci",
      }),
    ).toBe("caching_sha2_password");
    const last = execs[execs.length - 1]!;
    expect(last[0]).toBe("c1");
    expect(last).toContain("--host=127.0.0.1");
    expect(last).toContain("--protocol=TCP");
    // The statements (with the benchmark user's password) and root's password go by environment, never argv.
    expect(envs[envs.length - 1]!.TB_SQL).toContain("IDENTIFIED BY 'tb\\'x'");
    expect(envs[envs.length - 1]!.TB_MYSQL_PWD).toBe("pw");
    for (const argv of execs) expect(argv.some((a) => a.includes("pw") || a.includes("tb'x"))).toBe(false);
    await expect(p.readServerFacts({ ...ep, host: "10.9.9.9" })).rejects.toMatchObject({ code: "SERVER_NOT_FOUND" });
  });
});
