/**
 * The load container's password stays off argv: by environment and a private sysbench config file. The shell step
 * runs here under sh with a stand-in sysbench that prints what it got.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { sysbenchArgv, sysbenchCommand } from "../../../../src/core/model/scenario/argv.ts";

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
