/**
 * A Docker engine over SSH, as the docker CLI reaches one: each HTTP connection is an SSH session (ssh2) running
 * `docker system dial-stdio` on the host. An http.Agent of its own, handed to dockerode as plain HTTP: docker-modem's
 * own ssh protocol builds each request's address as "ssh:HOST:PORTHOST", which Node 26's url.parse rejects ("Invalid
 * port in url"; older Nodes only warn, DEP0170), so no request ever leaves.
 */
import { readFileSync } from "node:fs";
import { Agent } from "node:http";
import { homedir } from "node:os";
import { join } from "node:path";
import type { Duplex } from "node:stream";
import type Docker from "dockerode";
import { Client, type ConnectConfig } from "ssh2";
import { verifyHostKey } from "../../core/hosts/known-hosts.ts";
import type { HostSpec } from "../../core/model/scenario/schema.ts";

/** Where an engine is reached over SSH. */
export interface SshTarget {
  host: string;
  port: number;
  username?: string;
}

/** Why the last ssh:// connection to a host was refused its host key, by host id (for the error that follows). */
const hostKeyRefusals = new Map<string, string>();

/** The host-key refusal of host `id`'s last connection, if its key was refused. */
export function hostKeyRefusal(id: string): string | undefined {
  return hostKeyRefusals.get(id);
}

/** The ssh2 host verifier for a host: its pinned fingerprint, else the known_hosts file; a refusal is remembered. */
export function hostVerifier(
  spec: Pick<HostSpec, "id" | "fingerprint">,
  u: { host: string; port: number },
  knownHostsFile: string,
  read: (path: string) => Buffer,
): (key: Buffer) => boolean {
  return (key) => {
    let knownHosts = "";
    if (spec.fingerprint === undefined) {
      try {
        knownHosts = read(knownHostsFile).toString("utf8");
      } catch (e) {
        // No file yet: no host is known, so the key below is refused as unknown. Any other failure is the reason.
        if ((e as NodeJS.ErrnoException).code !== "ENOENT") {
          hostKeyRefusals.set(spec.id, `cannot read ${knownHostsFile}: ${(e as Error).message}`);
          return false;
        }
      }
    }
    const v = verifyHostKey(key, { ...u, knownHosts, knownHostsFile, fingerprint: spec.fingerprint });
    if (v.ok) hostKeyRefusals.delete(spec.id);
    else hostKeyRefusals.set(spec.id, v.reason);
    return v.ok;
  };
}

type Callback = (err: Error | null, socket?: Duplex) => void;

/** An http.Agent whose every connection is `docker system dial-stdio` in an SSH session of its own. */
export class SshDialAgent extends Agent {
  constructor(private readonly config: ConnectConfig) {
    // No keep-alive: a connection is an SSH session, closed with its response.
    super({ keepAlive: false });
    // Assigned, not declared as a method: http.Agent's typing declares createConnection as returning a socket.
    (this as unknown as { createConnection: (o: unknown, cb: Callback) => undefined }).createConnection = (_o, cb) => {
      this.dial(cb);
      return undefined;
    };
  }

  private dial(cb: Callback): void {
    const conn = new Client();
    let done = false;
    const fail = (err: Error) => {
      conn.end();
      if (!done) {
        done = true;
        cb(err);
      }
    };
    conn.once("ready", () => {
      conn.exec("docker system dial-stdio", (err, stream) => {
        if (err) return fail(err);
        done = true;
        const socket = socketLike(stream);
        socket.once("close", () => conn.end());
        cb(null, socket);
      });
    });
    conn.on("error", fail);
    conn.connect(this.config);
  }
}

/**
 * An SSH channel with the socket methods Node's HTTP client calls: setTimeout (a request with a timeout, as doctor's
 * probe sets: 'timeout' after that long without data from the host), setNoDelay and setKeepAlive (nothing to do).
 */
function socketLike(stream: Duplex): Duplex {
  const s = stream as Duplex & {
    setTimeout?: (ms: number, cb?: () => void) => Duplex;
    setNoDelay?: () => Duplex;
    setKeepAlive?: () => Duplex;
  };
  let ms = 0;
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    clearTimeout(timer);
    timer = ms > 0 ? setTimeout(() => s.emit("timeout"), ms).unref() : undefined;
  };
  // Each chunk from the host re-arms the idle timer (wrapping push does not change how the stream flows).
  const push = s.push.bind(s);
  s.push = (chunk: unknown, encoding?: BufferEncoding) => {
    if (timer) arm();
    return push(chunk, encoding);
  };
  s.setTimeout = (m, cb) => {
    ms = m;
    if (cb) s.once("timeout", cb);
    arm();
    return s;
  };
  s.setNoDelay = () => s;
  s.setKeepAlive = () => s;
  s.once("close", () => clearTimeout(timer));
  return s;
}

/** dockerode options for an engine over SSH: plain HTTP through an SshDialAgent. */
export function sshDockerOptions(target: SshTarget, ssh: ConnectConfig): Docker.DockerOptions {
  return {
    protocol: "http",
    host: target.host,
    port: target.port,
    agent: new SshDialAgent({ ...ssh, host: target.host, port: target.port, username: target.username }),
  } as Docker.DockerOptions;
}

/** The ssh2 options of an ssh:// engine: the agent at SSH_AUTH_SOCK, its host key checked (fingerprint, else known_hosts). */
export function sshConnectOptions(
  spec: Pick<HostSpec, "id" | "fingerprint">,
  target: SshTarget,
  env: NodeJS.ProcessEnv,
  opts: { knownHostsFile?: string; readFile?: (path: string) => Buffer } = {},
): ConnectConfig {
  const knownHostsFile = opts.knownHostsFile ?? join(env.HOME ?? homedir(), ".ssh", "known_hosts");
  const read = opts.readFile ?? ((p: string) => readFileSync(p));
  // ssh2 accepts any host key when no verifier is set: the key is checked against known_hosts or hosts[].fingerprint.
  return { agent: env.SSH_AUTH_SOCK, hostVerifier: hostVerifier(spec, target, knownHostsFile, read) };
}
