/**
 * SQL probes through the engine port, for engines on other machines: the mysql2 probe connects to the server's
 * bridge address, which only routes from the engine's own host. This one runs the server image's own client
 * (`mariadb`, else `mysql`) inside the server container with `docker exec`, over TCP to 127.0.0.1 (TCP, not the
 * socket: the entrypoint's temporary server listens on the socket only, so readiness still means the real server).
 * The server container is found by its address among the containers labelled twinbench.role=server.
 */
import { TwinbenchError } from "../../core/base/errors.ts";
import { LABEL } from "../../core/base/labels.ts";
import { pollReady, type Endpoint, type Probe, type ServerFacts } from "../mysql/probe.ts";
import type { Engine } from "../../core/model/engine/engine.ts";
import { isNotFound, statusCode } from "./engine-errors.ts";

/** Undo `--batch` escapes (\t \n \\ \0). */
export function unescapeBatch(v: string): string {
  return v.replace(/\\(.)/g, (_, c: string) => (c === "t" ? "\t" : c === "n" ? "\n" : c === "0" ? "\0" : c));
}

/**
 * The client's shell step in the server container: the password from the environment into a private defaults file
 * (`--defaults-extra-file`, which must come first), the statements from the environment on stdin; printf is the
 * shell's own, so neither is on any process's argv. The file is removed afterwards and the client's exit code kept.
 */
export const CLIENT_WRAPPER =
  'umask 077; f=$(mktemp) || exit 1; printf \'[client]\\npassword=%s\\n\' "$TB_MYSQL_PWD" > "$f"; ' +
  'printf \'%s\' "$TB_SQL" | "$(command -v mariadb || command -v mysql)" --defaults-extra-file="$f" "$@"; ' +
  'rc=$?; rm -f "$f"; exit $rc';

const quote = (s: string) => `'${s.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;
const ident = (s: string) => `\`${s.replace(/`/g, "``")}\``;

/** The engine's answer for a container that no longer exists (404) or is not running (409). */
export function isGoneOrStopped(e: unknown): boolean {
  return isNotFound(e) || statusCode(e) === 409;
}

/** The client's argv in the server container: the wrapper and the connection options, no secret. */
function clientArgv(ep: Endpoint): string[] {
  const connection = [`--user=${ep.user}`, "--host=127.0.0.1", `--port=${ep.port}`, "--protocol=TCP"];
  return ["sh", "-c", CLIENT_WRAPPER, "sh", ...connection, "--batch", "--skip-column-names", "--connect-timeout=3"];
}

export function execProbe(engine: Engine): Probe {
  const byIp = new Map<string, string>();

  async function refresh(): Promise<void> {
    byIp.clear();
    for (const c of await engine.containers.list([`${LABEL.role}=server`])) {
      const st = await engine.containers.inspect(c.id).catch((e: unknown) => {
        // Gone since the listing (404): no server to probe there. Any other failure is the engine's, and raised.
        if (isNotFound(e)) return undefined;
        throw e;
      });
      for (const ip of Object.values(st?.ips ?? {})) byIp.set(ip, c.id);
    }
  }

  async function containerFor(ep: Endpoint): Promise<string> {
    if (!byIp.has(ep.host)) await refresh();
    const id = byIp.get(ep.host);
    if (!id)
      throw new TwinbenchError(`no twinbench server container with address ${ep.host} on host "${engine.hostId}"`, {
        code: "SERVER_NOT_FOUND",
        hint: "the server container is gone; see the server's log in the results folder",
      });
    return id;
  }

  async function sql(ep: Endpoint, statements: string): Promise<{ exitCode: number; stdout: string; stderr: string }> {
    const argv = clientArgv(ep);
    // The password and the statements (CREATE USER ... IDENTIFIED BY holds one) go in the environment, never argv.
    const execOpts = { env: { TB_MYSQL_PWD: ep.password, TB_SQL: statements } };
    let id = await containerFor(ep);
    try {
      return await engine.exec.run(id, argv, execOpts);
    } catch (e) {
      // Only a container that is gone (404) or not running (409) may have been recreated (restart, snapshot
      // restore): find it again once. Any other error is the engine's, raised as it is.
      if (!isGoneOrStopped(e)) throw e;
      await refresh();
      id = await containerFor(ep);
      return engine.exec.run(id, argv, execOpts);
    }
  }

  async function must(ep: Endpoint, statements: string, what: string): Promise<string> {
    const r = await sql(ep, statements);
    if (r.exitCode !== 0)
      throw new TwinbenchError(
        `${what} on ${ep.host}:${ep.port} (host "${engine.hostId}") failed: ${
          r.stderr
            .trim()
            .split("\n")
            .filter((l) => !/Deprecated program name|password on the command line/i.test(l))
            .join(" | ") || `exit ${r.exitCode}`
        }`,
        {
          code: "SQL_FAILED",
          hint: "see the server's log in the results folder",
        },
      );
    return r.stdout;
  }

  const waitReady: Probe["waitReady"] = (ep, opts) =>
    pollReady(
      ep,
      async () => {
        const r = await sql(ep, "SELECT 1");
        return r.exitCode === 0 && r.stdout.trim() === "1"
          ? null
          : (r.stderr.trim().split("\n").pop() ?? `exit ${r.exitCode}`);
      },
      opts,
    );

  const readServerFacts: Probe["readServerFacts"] = async (ep): Promise<ServerFacts> => {
    const out = await must(
      ep,
      "SELECT @@version, @@version_comment; SHOW GLOBAL VARIABLES;",
      "reading the server's variables",
    );
    const lines = out.split("\n").filter((l) => l.length > 0);
    const [version = "", versionComment = ""] = (lines.shift() ?? "").split("\t").map(unescapeBatch);
    const variables: Record<string, string> = {};
    for (const l of lines) {
      const i = l.indexOf("\t");
      if (i < 0) continue;
      const v = l.slice(i + 1);
      variables[unescapeBatch(l.slice(0, i))] = v === "NULL" ? "" : unescapeBatch(v);
    }
    return { version, versionComment, variables };
  };

  const createBenchUser: Probe["createBenchUser"] = async (ep, b) => {
    const out = await must(
      ep,
      [
        `DROP DATABASE IF EXISTS ${ident(b.db)}`,
        `CREATE DATABASE ${ident(b.db)} CHARACTER SET ${b.charset} COLLATE ${b.collation}`,
        `DROP USER IF EXISTS ${quote(b.user)}@'%'`,
        `CREATE USER ${quote(b.user)}@'%' IDENTIFIED BY ${quote(b.password)}`,
        `GRANT ALL PRIVILEGES ON ${ident(b.db)}.* TO ${quote(b.user)}@'%'`,
        `SELECT plugin FROM mysql.user WHERE user = ${quote(b.user)} AND host = '%'`,
      ].join("; "),
      "creating the benchmark user",
    );
    const plugin = out.trim().split("\n").pop()?.trim();
    return plugin ? plugin : null;
  };

  return { waitReady, readServerFacts, createBenchUser };
}
