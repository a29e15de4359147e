/**
 * Secrets stay off argv: the load container gets the benchmark password by environment and a private sysbench config
 * file, the exec probe gets root's password by a defaults file and its statements on stdin. The benchmark user's
 * password is drawn on its own. The shell steps run here under sh with stand-in programs that print what they got.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { sysbenchArgv, sysbenchCommand } from "../../src/core/model/scenario/argv.ts";
import { CLIENT_WRAPPER } from "../../src/adapters/docker/exec-probe.ts";
import { LabServer, type LabServerInit } from "../../src/app/lab-server.ts";
import { benchPassword } from "../../src/app/run/sidecar.ts";

/** A folder on PATH with `name` as a script that prints its argv, each file named by an argument, and its stdin. */
function standIn(name: string): string {
  const dir = mkdtempSync(join(tmpdir(), "tb-secrets-"));
  const script = [
    "#!/bin/sh",
    'for a in "$@"; do echo "arg:$a"; case "$a" in --config-file=*|--defaults-extra-file=*) echo "file:$(cat "${a#*=}")";; esac; done',
    'if [ ! -t 0 ]; then echo "stdin:$(cat)"; fi',
    'echo "env:${TB_MYSQL_PASSWORD:-unset}"',
  ].join("\n");
  writeFileSync(join(dir, name), script + "\n");
  chmodSync(join(dir, name), 0o755);
  return dir;
}

describe("the load container's password", () => {
  const argv = sysbenchArgv({
    script: "oltp_read_only",
    command: "run",
    workload: { engine: "innodb", tables: 1, tableSize: 10, sysbench: {} },
    threads: 1,
    durationSeconds: 5,
    connection: { socket: "/run/mysqld/mysqld.sock", user: "sbtest", password: "s3cretb3nch", db: "sbtest" },
    percentile: 95,
    histogram: false,
  });

  it("is in the environment only, never in the entrypoint or cmd", () => {
    const c = sysbenchCommand(argv);
    expect([...c.entrypoint, ...c.cmd].some((a) => a.includes("s3cretb3nch"))).toBe(false);
    expect(Object.values(c.env)).toEqual(["s3cretb3nch"]);
    expect(c.cmd).toContain("--mysql-user=sbtest");
  });

  it("reaches sysbench through a config file, and the environment variable is dropped before sysbench runs", () => {
    const dir = standIn("sysbench");
    const c = sysbenchCommand(argv);
    const out = execFileSync(c.entrypoint[0]!, [...c.entrypoint.slice(1), ...c.cmd], {
      env: { PATH: `${dir}:/usr/bin:/bin`, ...c.env },
      input: "",
    }).toString();
    const args = out.split("\n").filter((l) => l.startsWith("arg:"));
    expect(args.some((a) => a.includes("s3cretb3nch"))).toBe(false);
    expect(args[0]).toMatch(/^arg:--config-file=/);
    expect(out).toContain("file:mysql-password=s3cretb3nch");
    expect(out).toContain("env:unset");
    expect(args).toContain("arg:run");
  });
});

describe("the exec probe's client", () => {
  it("gets root's password from a defaults file and the statements on stdin, neither on argv", () => {
    const dir = standIn("mariadb");
    const out = execFileSync("sh", ["-c", CLIENT_WRAPPER, "sh", "--user=root", "--batch"], {
      env: {
        PATH: `${dir}:/usr/bin:/bin`,
        TB_MYSQL_PWD: "r00tpw",
        TB_SQL: "CREATE USER 'u'@'%' IDENTIFIED BY 'b3nchpw'",
      },
    }).toString();
    const args = out.split("\n").filter((l) => l.startsWith("arg:"));
    expect(args[0]).toMatch(/^arg:--defaults-extra-file=/);
    expect(args.slice(1)).toEqual(["arg:--user=root", "arg:--batch"]);
    expect(out).toContain("file:[client]\npassword=r00tpw");
    expect(out).toContain("stdin:CREATE USER 'u'@'%' IDENTIFIED BY 'b3nchpw'");
  });

  it("keeps the client's exit code", () => {
    const dir = mkdtempSync(join(tmpdir(), "tb-secrets-"));
    writeFileSync(join(dir, "mysql"), "#!/bin/sh\ncat >/dev/null\nexit 7\n");
    chmodSync(join(dir, "mysql"), 0o755);
    let code = 0;
    try {
      execFileSync("sh", ["-c", CLIENT_WRAPPER, "sh"], {
        env: { PATH: `${dir}:/usr/bin:/bin`, TB_MYSQL_PWD: "x", TB_SQL: "" },
      });
    } catch (e) {
      code = (e as { status: number }).status;
    }
    expect(code).toBe(7);
  });
});

describe("the benchmark user's password", () => {
  it("is drawn on its own: no part of root's", () => {
    const init = { id: "maria", runId: "r1", labels: () => ({}) } as Partial<LabServerInit> as LabServerInit;
    const s = new LabServer(init, {} as never, {} as never, {} as never, {} as never);
    const bench = benchPassword(s);
    expect(bench.length).toBeGreaterThanOrEqual(24);
    // No 8 characters of root's appear in it (a shared 16-character prefix did before).
    for (let i = 0; i + 8 <= s.rootPassword.length; i++) expect(bench).not.toContain(s.rootPassword.slice(i, i + 8));
  });
});
