/** dockerode's connection options from an engine URL (src/adapters/docker/connect.ts). */
import { describe, expect, it } from "vitest";
import { SshDialAgent } from "../../../../src/adapters/docker/ssh-dial.ts";
import { dockerOptions } from "../../../../src/adapters/docker/connect.ts";

describe("dockerode options", () => {
  const read = (p: string) => Buffer.from(`PEM ${p}`);
  it("unix: socket path, DOCKER_HOST ignored", () => {
    expect(
      dockerOptions({ id: "a", engine: "unix:///run/x.sock" }, { env: { DOCKER_HOST: "tcp://elsewhere:1" } }),
    ).toEqual({ socketPath: "/run/x.sock", host: undefined, protocol: undefined });
  });
  it("tcp plain and with TLS files", () => {
    expect(dockerOptions({ id: "b", engine: "tcp://127.0.0.2:2375" }, { env: {} })).toEqual({
      protocol: "http",
      host: "127.0.0.2",
      port: 2375,
    });
    const o = dockerOptions(
      { id: "b", engine: "tcp://box", tls: { ca: "/t/ca", cert: "/t/cert", key: "/t/key" } },
      { env: {}, readFile: read },
    );
    expect(o).toMatchObject({ protocol: "https", host: "box", port: 2376 });
    expect(String(o.ca)).toBe("PEM /t/ca");
  });
  it("tcp TLS from DOCKER_CERT_PATH, or a clear error", () => {
    const o = dockerOptions(
      { id: "b", engine: "tcp://box:2376" },
      { env: { DOCKER_CERT_PATH: "/certs" }, readFile: read },
    );
    expect(String(o.key)).toBe("PEM /certs/key.pem");
    expect(() => dockerOptions({ id: "b", engine: "tcp://box:2376" }, { env: {} })).toThrow(/needs TLS material/);
    expect(() =>
      dockerOptions(
        { id: "b", engine: "tcp://box", tls: { ca: "/nope", cert: "/c", key: "/k" } },
        {
          env: {},
          readFile: () => {
            throw new Error("ENOENT");
          },
        },
      ),
    ).toThrow(/cannot read the TLS ca \/nope/);
  });
  it("ssh as plain HTTP through an agent whose connections are SSH sessions to the host", () => {
    const o = dockerOptions({ id: "c", engine: "ssh://bench@lab2" }, { env: { SSH_AUTH_SOCK: "/agent" } });
    expect(o).toMatchObject({ protocol: "http", host: "lab2", port: 22, agent: expect.any(SshDialAgent) });
    expect((o as { agent?: { config?: unknown } }).agent?.config).toEqual({
      agent: "/agent",
      hostVerifier: expect.any(Function),
      host: "lab2",
      port: 22,
      username: "bench",
    });
  });
});
