/**
 * Engine URL → DockerEngine. One engine per host; the host id goes into every label (twinbench.host) through
 * engine.hostId. TLS material is read here (file paths from the scenario's `tls:`, else DOCKER_CERT_PATH's
 * ca.pem/cert.pem/key.pem when the URL asks for TLS); ssh:// goes through an SSH session per connection (ssh-dial.ts).
 */
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type Docker from "dockerode";
import { InputError, TwinbenchError } from "../../core/base/errors.ts";
import type { HostSpec } from "../../core/model/scenario/schema.ts";
import { displayEngineUrl, isPlainRemote, parseEngineUrl, type EngineUrl } from "../../core/hosts/url.ts";
import { DockerEngine } from "./engine.ts";
import type { Engine } from "../../core/model/engine/engine.ts";
import { writeFileAtomic } from "../durable-file.ts";
import { hostKeyRefusal, sshConnectOptions, sshDockerOptions } from "./ssh-dial.ts";

export interface ConnectOptions {
  env?: NodeJS.ProcessEnv;
  readFile?: (path: string) => Buffer;
  /** The known_hosts file for ssh:// engines (default ~/.ssh/known_hosts). */
  knownHostsFile?: string;
}

/** dockerode options for an engine URL. Explicit `host: undefined` keeps docker-modem from reading DOCKER_HOST. */
export function dockerOptions(spec: HostSpec, opts: ConnectOptions = {}): Docker.DockerOptions {
  const env = opts.env ?? process.env;
  const read = opts.readFile ?? ((p: string) => readFileSync(p));
  const wantsTls = spec.tls !== undefined || env.DOCKER_TLS_VERIFY === "1";
  const u: EngineUrl = parseEngineUrl(spec.engine, { tls: wantsTls });
  const material = (what: "ca" | "cert" | "key", file: string): Buffer => {
    try {
      return read(file);
    } catch (e) {
      throw new InputError(`host ${spec.id}: cannot read the TLS ${what} ${file}: ${(e as Error).message}`, {
        code: "HOST_TLS_MISSING",
        hint: `give hosts[].tls.${what} as a readable PEM file, or set DOCKER_CERT_PATH to a folder with ca.pem, cert.pem and key.pem`,
      });
    }
  };
  switch (u.kind) {
    case "unix":
      return { socketPath: u.socketPath, host: undefined, protocol: undefined } as Docker.DockerOptions;
    case "tcp": {
      if (isPlainRemote(u) && spec.insecure !== true)
        throw new InputError(
          `host ${spec.id}: ${spec.engine} is plain HTTP to another machine: the engine API, and the root password in ` +
            `the server's environment, would cross the network unencrypted and unauthenticated`,
          {
            code: "HOST_INSECURE",
            hint: `use TLS (tcp://${u.host}:2376 with tls: {ca, cert, key}) or ssh://user@${u.host}; on a closed lab network, set insecure: true on host ${spec.id} (every report then says so)`,
          },
        );
      if (!u.tls) return { protocol: "http", host: u.host, port: u.port };
      const files =
        spec.tls ??
        (env.DOCKER_CERT_PATH
          ? {
              ca: join(env.DOCKER_CERT_PATH, "ca.pem"),
              cert: join(env.DOCKER_CERT_PATH, "cert.pem"),
              key: join(env.DOCKER_CERT_PATH, "key.pem"),
            }
          : undefined);
      if (!files)
        throw new InputError(`host ${spec.id}: ${displayEngineUrl(u)} needs TLS material`, {
          code: "HOST_TLS_MISSING",
          hint: "add tls: {ca, cert, key} to the host in the scenario, or set DOCKER_CERT_PATH; plain HTTP uses port 2375",
        });
      return {
        protocol: "https",
        host: u.host,
        port: u.port,
        ca: material("ca", files.ca),
        cert: material("cert", files.cert),
        key: material("key", files.key),
      };
    }
    case "ssh":
      return sshDockerOptions(
        u,
        sshConnectOptions(spec, u, env, { knownHostsFile: opts.knownHostsFile, readFile: read }),
      );
  }
}

/** A connected (not yet pinged) engine for one host. */
export function connectEngine(spec: HostSpec, opts: ConnectOptions = {}): Engine {
  return new DockerEngine(spec.id, dockerOptions(spec, opts));
}

/** Ping with a deadline: an unreachable address must not hang the run for the kernel's TCP timeout. */
export async function pingEngine(engine: Engine, spec: HostSpec, timeoutMs = 15_000): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new TwinbenchError(
            `host "${spec.id}" (${spec.engine}): no answer from its Docker engine within ${timeoutMs / 1000} s`,
            {
              code: "HOST_UNREACHABLE",
              hint: "check the address, the engine's -H listen flags and any firewall between here and the host",
            },
          ),
        ),
      timeoutMs,
    );
  });
  try {
    await Promise.race([engine.ping(), deadline]);
  } catch (e) {
    const refused = hostKeyRefusal(spec.id);
    if (refused)
      throw new TwinbenchError(`host "${spec.id}" (${spec.engine}): its SSH host key was refused: ${refused}`, {
        code: "HOST_KEY_REJECTED",
        hint: `check the key out of band, then add it to known_hosts (ssh ${spec.engine.replace(/^ssh:\/\//, "")} once, or ssh-keyscan) or set fingerprint: on host ${spec.id} in the scenario`,
        cause: e,
      });
    if (e instanceof TwinbenchError && e.code === "HOST_UNREACHABLE") throw e;
    throw new TwinbenchError(
      `host "${spec.id}" (${spec.engine}) is unreachable: ${(e as Error).message.replace(/^no Docker engine answers for host "[^"]*": /, "")}`,
      {
        code: "HOST_UNREACHABLE",
        hint: "check that the engine runs there and listens on that URL (docker -H URL version)",
        cause: e,
      },
    );
  } finally {
    clearTimeout(timer);
  }
}

/** Where runs remember their hosts (id → URL, TLS file paths), so that `clean --host ID` can reach one later. */
export function knownHostsFile(env: NodeJS.ProcessEnv = process.env): string {
  return env.TWINBENCH_HOSTS_FILE ?? "/var/lib/twinbench/hosts.json";
}

/**
 * The remembered hosts; {} when the file does not exist yet. A damaged file is a HOSTS_FILE_CORRUPT error naming
 * it: never read as empty (the next run would overwrite what it remembers).
 */
export async function readKnownHosts(file = knownHostsFile()): Promise<Record<string, HostSpec>> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return {}; // no run has remembered a host yet
    throw e;
  }
  let v: unknown;
  let reason = "not a JSON object of host id → host";
  try {
    v = JSON.parse(text);
  } catch (e) {
    reason = text.trim() === "" ? "empty" : `invalid JSON: ${(e as Error).message}`;
  }
  if (
    !v ||
    typeof v !== "object" ||
    Array.isArray(v) ||
    Object.values(v).some((h) => !h || typeof h !== "object" || typeof (h as HostSpec).engine !== "string")
  )
    throw new TwinbenchError(`the known-hosts file ${file} is damaged (${reason})`, {
      code: "HOSTS_FILE_CORRUPT",
      hint: `fix or delete ${file} (it only remembers engine URLs for \`twinbench clean --host ID\`; the next multi-host run writes it again), or give the URL: clean --host ID=URL`,
    });
  return v as Record<string, HostSpec>;
}

/** Remember these hosts (id → spec) beside the others, atomically and durably. A damaged file is left as it is. */
export async function rememberHosts(hosts: readonly HostSpec[], file = knownHostsFile()): Promise<void> {
  const all = await readKnownHosts(file);
  for (const h of hosts) all[h.id] = h;
  await writeFileAtomic(file, JSON.stringify(all, null, 2) + "\n");
}
