/**
 * Engine URLs and `--host ID=URL` flags (pure). An engine URL names the Docker API endpoint of one host:
 *   unix:///var/run/docker.sock      a local socket
 *   tcp://HOST:2375                  plain HTTP (a lab network only)
 *   tcp://HOST:2376                  TLS (port 2376, or TLS material given): ca/cert/key from the scenario's `tls:`
 *   ssh://user@host[:port]           the engine's socket over SSH (docker-modem runs `docker system dial-stdio`)
 */
import { InputError } from "../base/errors.ts";
import type { HostSpec } from "../model/scenario/schema.ts";

export type EngineUrl =
  | { kind: "unix"; socketPath: string }
  | { kind: "tcp"; host: string; port: number; tls: boolean }
  | { kind: "ssh"; host: string; port: number; username?: string };

const HOST_ID = /^[a-z0-9][a-z0-9_-]{0,30}$/;

function bad(url: string, why: string): InputError {
  return new InputError(`engine URL "${url}" is invalid: ${why}`, {
    code: "HOST_URL_INVALID",
    hint: "use unix:///var/run/docker.sock, tcp://HOST:2375 (tcp://HOST:2376 with TLS) or ssh://user@host",
  });
}

export function parseEngineUrl(url: string, opts: { tls?: boolean } = {}): EngineUrl {
  const m = /^([a-z]+):\/\/(.*)$/.exec(url.trim());
  if (!m) throw bad(url, "no scheme");
  const [, scheme, rest] = m as unknown as [string, string, string];
  if (scheme === "unix") {
    if (!rest.startsWith("/")) throw bad(url, "a unix socket needs an absolute path (unix:///path)");
    return { kind: "unix", socketPath: rest };
  }
  if (scheme === "tcp" || scheme === "ssh") {
    let u: URL;
    try {
      u = new URL(`${scheme === "tcp" ? "http" : "ssh"}://${rest}`);
    } catch {
      throw bad(url, "not HOST[:PORT]");
    }
    if (!u.hostname) throw bad(url, "no host name");
    if (u.pathname !== "/" && u.pathname !== "") throw bad(url, `unexpected path ${u.pathname}`);
    const host = u.hostname.replace(/^\[(.*)\]$/, "$1");
    if (scheme === "tcp") {
      if (u.username) throw bad(url, "tcp:// takes no user name (use ssh://user@host)");
      const port = u.port ? Number(u.port) : opts.tls ? 2376 : 2375;
      return { kind: "tcp", host, port, tls: opts.tls === true || port === 2376 };
    }
    return {
      kind: "ssh",
      host,
      port: u.port ? Number(u.port) : 22,
      ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    };
  }
  throw bad(url, `unsupported scheme ${scheme}://`);
}

/** Whether a host name or address is this machine's loopback (localhost, 127.0.0.0/8, ::1). */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[(.*)\]$/, "$1");
  return h === "localhost" || h === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/** Whether a host's engine is reached over plain HTTP to another machine (allowed only with `insecure: true`). */
export function isPlainRemote(u: EngineUrl): boolean {
  return u.kind === "tcp" && !u.tls && !isLoopbackHost(u.host);
}

/** The URL without secrets, for reports (ssh user names stay: they say which account ran the engine). */
export function displayEngineUrl(u: EngineUrl): string {
  if (u.kind === "unix") return `unix://${u.socketPath}`;
  if (u.kind === "tcp") return `tcp://${u.host}:${u.port}${u.tls ? " (TLS)" : ""}`;
  return `ssh://${u.username ? `${u.username}@` : ""}${u.host}${u.port === 22 ? "" : `:${u.port}`}`;
}

/** `--host ID=URL` → a host entry. */
export function parseHostFlag(v: string): { id: string; engine: string } {
  const i = v.indexOf("=");
  if (i <= 0)
    throw new InputError(`--host ${v}: expected ID=URL`, {
      code: "HOST_FLAG_INVALID",
      hint: "e.g. --host a=unix:///var/run/docker.sock --host b=tcp://10.0.0.2:2375",
    });
  const id = v.slice(0, i);
  const engine = v.slice(i + 1);
  if (!HOST_ID.test(id))
    throw new InputError(`--host ${v}: host id "${id}" is invalid`, {
      code: "HOST_FLAG_INVALID",
      hint: "use lowercase letters, digits, - or _ (max 31)",
    });
  parseEngineUrl(engine);
  return { id, engine };
}

/**
 * The hosts of a run: `--host` flags, when given, replace the scenario's `hosts:` (a scenario entry with the same
 * id lends its `tls:`). Ids must be unique.
 */
export function resolveHosts(scenarioHosts: readonly HostSpec[] | undefined, flags: readonly string[]): HostSpec[] {
  let hosts: HostSpec[];
  if (flags.length > 0) {
    hosts = flags.map(parseHostFlag).map((f) => {
      const tls = scenarioHosts?.find((h) => h.id === f.id)?.tls;
      return tls ? { ...f, tls } : f;
    });
  } else hosts = [...(scenarioHosts ?? [])];
  const seen = new Set<string>();
  for (const h of hosts) {
    if (seen.has(h.id))
      throw new InputError(`host id "${h.id}" is given twice`, {
        code: "HOST_DUPLICATE",
        hint: "give every host its own id",
      });
    seen.add(h.id);
    parseEngineUrl(h.engine, { tls: h.tls !== undefined });
  }
  return hosts;
}

/**
 * `--host` flags as a `--set hosts=[...]` override, applied before validation (so `shard: true` sees its hosts).
 * Empty when there are no flags. TLS material for such hosts: DOCKER_CERT_PATH, or `--set hosts.N.tls=...`.
 */
export function hostsOverride(flags: readonly string[]): string[] {
  if (flags.length === 0) return [];
  return [`hosts=${JSON.stringify(flags.map(parseHostFlag))}`];
}

/**
 * The hosts of a resumed multi-host run: the ones it recorded, each at its recorded engine URL unless a
 * `--host ID=URL` flag moves it (its `tls:` stays). A flag for a host the run did not use is refused: a resume
 * runs on the same hosts.
 */
export function resumeHosts(recorded: readonly HostSpec[], flags: readonly string[]): HostSpec[] {
  const moved = new Map(flags.map((f) => [parseHostFlag(f).id, parseHostFlag(f).engine]));
  for (const id of moved.keys())
    if (!recorded.some((h) => h.id === id))
      throw new InputError(
        `--host ${id}=…: the run being resumed has no host "${id}" (its hosts: ${recorded.map((h) => h.id).join(", ")})`,
        {
          code: "HOST_UNKNOWN",
          hint: "a resume runs on the run's own hosts: --host only gives one of them a new engine URL",
        },
      );
  return recorded.map((h) => {
    const engine = moved.get(h.id);
    if (engine === undefined) return { ...h };
    parseEngineUrl(engine, { tls: h.tls !== undefined });
    return { ...h, engine };
  });
}
