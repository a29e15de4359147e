/**
 * Remote engines verify the other end: an ssh:// engine's host key is checked against known_hosts or a pinned
 * fingerprint (an in-process ssh2 server offers a fresh key here), and plain tcp:// to another machine is refused
 * unless the host says insecure: true.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import ssh2 from "ssh2";
import { fingerprintOf } from "../../../../src/core/hosts/known-hosts.ts";
import { connectEngine, dockerOptions, pingEngine } from "../../../../src/adapters/docker/connect.ts";
import { DockerEngine, envOptions } from "../../../../src/adapters/docker/engine.ts";
import { hostKeyRefusal, SshDialAgent } from "../../../../src/adapters/docker/ssh-dial.ts";
import { request } from "node:http";
import { createEngineProbe } from "../../../../src/adapters/docker/engine-probe.ts";

const { Server, utils } = ssh2;

function keyPair(): { priv: string; line: string; blob: Buffer } {
  const k = utils.generateKeyPairSync("ed25519");
  const parsed = utils.parseKey(k.public);
  if (parsed instanceof Error) throw parsed;
  return { priv: k.private, line: k.public.trim(), blob: parsed.getPublicSSH() };
}

describe("an ssh:// engine", () => {
  const host = keyPair();
  let port = 0;
  let server: InstanceType<typeof Server>;
  /** What the stand-in host was asked to run, and the HTTP request lines it answered. */
  const seen: string[] = [];
  beforeAll(async () => {
    // A stand-in host: any user is let in; `docker system dial-stdio` answers /version and /info with a few facts
    // of Docker 28.5, /hang never, anything else with 200 "OK".
    server = new Server({ hostKeys: [host.priv] }, (client) => {
      client.on("authentication", (ctx) => ctx.accept());
      client.on("session", (accept) =>
        accept().on("exec", (acceptExec, reject, info) => {
          seen.push(info.command);
          if (info.command !== "docker system dial-stdio") return reject();
          const stream = acceptExec();
          let buf = "";
          stream.on("data", (d: Buffer) => {
            buf += d.toString("latin1");
            if (!buf.includes("\r\n\r\n")) return;
            const line = buf.split("\r\n")[0]!;
            seen.push(line);
            buf = "";
            if (/ \/hang /.test(line)) return; // never answered
            const body = / \/version /.test(line)
              ? JSON.stringify({ Version: "28.5.2", ApiVersion: "1.51" })
              : / \/info /.test(line)
                ? JSON.stringify({ Driver: "overlay2", CgroupVersion: "2" })
                : "OK";
            const type = body === "OK" ? "text/plain" : "application/json";
            stream.write(`HTTP/1.1 200 OK\r\nContent-Type: ${type}\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
          });
        }),
      );
      client.on("error", () => undefined); // the client hangs up on a refused key: nothing to do here
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => server.close());
  const dir = mkdtempSync(join(tmpdir(), "tb-kh-"));

  it("whose key is in no known_hosts is refused with HOST_KEY_REJECTED, naming the offered key", async () => {
    const spec = { id: "b", engine: `ssh://bench@127.0.0.1:${port}` };
    const engine = connectEngine(spec, { env: {}, knownHostsFile: join(dir, "none") });
    await expect(pingEngine(engine, spec, 10_000)).rejects.toMatchObject({
      code: "HOST_KEY_REJECTED",
      message: expect.stringContaining(
        `[127.0.0.1]:${port} is not in ${join(dir, "none")} (it offered the key ${fingerprintOf(host.blob)})`,
      ),
    });
  });

  it("whose key known_hosts lists is reached: each request through `docker system dial-stdio` over SSH", async () => {
    const file = join(dir, "known_hosts");
    writeFileSync(file, `[127.0.0.1]:${port} ${host.line}\n`);
    const spec = { id: "b2", engine: `ssh://bench@127.0.0.1:${port}` };
    const engine = connectEngine(spec, { env: {}, knownHostsFile: file });
    seen.length = 0;
    await pingEngine(engine, spec, 10_000);
    await engine.ping();
    expect(seen).toEqual([
      "docker system dial-stdio",
      expect.stringMatching(/^GET \/_ping HTTP\/1\.1$/),
      "docker system dial-stdio",
      expect.stringMatching(/^GET \/_ping HTTP\/1\.1$/),
    ]);
  });

  it("named by DOCKER_HOST is reached the same way, its key checked against known_hosts", async () => {
    const file = join(dir, "known_hosts");
    writeFileSync(file, `[127.0.0.1]:${port} ${host.line}\n`);
    const env = { DOCKER_HOST: `ssh://bench@127.0.0.1:${port}` };
    seen.length = 0;
    await new DockerEngine("local", envOptions("local", env, { knownHostsFile: file })).ping();
    expect(seen).toEqual(["docker system dial-stdio", expect.stringMatching(/^GET \/_ping /)]);
    const refused = new DockerEngine("local", envOptions("local", env, { knownHostsFile: join(dir, "none") }));
    await expect(refused.ping()).rejects.toMatchObject({ code: "ENGINE_UNREACHABLE" });
    expect(hostKeyRefusal("local")).toContain(`[127.0.0.1]:${port} is not in ${join(dir, "none")}`);
  });

  it("named by DOCKER_HOST answers doctor's probe, with the engine's version", async () => {
    const home = mkdtempSync(join(tmpdir(), "tb-home-"));
    mkdirSync(join(home, ".ssh"));
    writeFileSync(join(home, ".ssh", "known_hosts"), `[127.0.0.1]:${port} ${host.line}\n`);
    const env = { DOCKER_HOST: `ssh://bench@127.0.0.1:${port}`, HOME: home };
    expect(await createEngineProbe(env, 10_000, 10_000).probe()).toMatchObject({
      answers: true,
      endpoint: env.DOCKER_HOST,
      product: "docker",
      serverVersion: "28.5.2",
      apiVersion: "1.51",
      storageDriver: "overlay2",
    });
  });

  it("times a request out when the host sends nothing for that long", async () => {
    const agent = new SshDialAgent({ host: "127.0.0.1", port, username: "bench", hostVerifier: () => true });
    const t0 = Date.now();
    const outcome = await new Promise<string>((resolve) => {
      const req = request({ agent, path: "/hang", timeout: 300 }, () => resolve("answered"));
      req.on("timeout", () => {
        req.destroy();
        resolve("timeout");
      });
      req.on("error", () => undefined); // the destroy above
      req.end();
    });
    expect(outcome).toBe("timeout");
    expect(Date.now() - t0).toBeLessThan(5_000);
  });

  it("a pinned fingerprint that differs is refused", async () => {
    const spec = { id: "b3", engine: `ssh://bench@127.0.0.1:${port}`, fingerprint: fingerprintOf(keyPair().blob) };
    const engine = connectEngine(spec, { env: {}, knownHostsFile: join(dir, "known_hosts") });
    await expect(pingEngine(engine, spec, 10_000)).rejects.toMatchObject({ code: "HOST_KEY_REJECTED" });
  });
});

describe("a plain tcp:// engine", () => {
  it("to another machine is refused unless the host says insecure: true", () => {
    expect(() => dockerOptions({ id: "b", engine: "tcp://10.0.0.2:2375" }, { env: {} })).toThrow(
      expect.objectContaining({ code: "HOST_INSECURE" }),
    );
    expect(dockerOptions({ id: "b", engine: "tcp://10.0.0.2:2375", insecure: true }, { env: {} })).toMatchObject({
      protocol: "http",
      host: "10.0.0.2",
    });
  });
  it("to this machine's loopback needs nothing", () => {
    for (const h of ["127.0.0.2", "localhost", "[::1]"])
      expect(dockerOptions({ id: "b", engine: `tcp://${h}:2375` }, { env: {} })).toMatchObject({ protocol: "http" });
  });
});
