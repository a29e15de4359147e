/**
 * The exec probe's client gets root's password by a defaults file and its statements on stdin, never argv. The shell
 * step runs here under sh with a stand-in client that prints what it got.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CLIENT_WRAPPER } from "../../../../src/adapters/docker/exec-probe.ts";

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
