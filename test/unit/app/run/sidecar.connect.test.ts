/** The load container's first connection: a failure names the transport, the client's error and its likely cause. */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { connectionFailure } from "../../../../src/app/run/sidecar.ts";

const fixture = (name: string) =>
  readFileSync(new URL(`../../../fixtures/sysbench/1.0/${name}.log`, import.meta.url), "utf8");
const NET = "0123456789abcdef0123456789abcdef";

describe("connectionFailure", () => {
  it("over the bridge, no answer within the check's time: the firewall on forwarded bridge traffic, with the bridge's name", () => {
    const hung =
      "Threads started!\n\n[ 1s ] thds: 1 tps: 0.00 qps: 0.00 (r/w/o: 0.00/0.00/0.00) lat (ms,95%): 0.00 err/s: 0.00 reconn/s: 0.00\n";
    const e = connectionFailure(hung, {
      server: "mysql",
      transport: "bridge",
      host: "tb-x-mysql",
      networkId: NET,
      timedOut: true,
    });
    expect(e.code).toBe("LOAD_CONNECT_FAILED");
    expect(e.message).toContain("could not connect to server mysql over the bridge transport (host name tb-x-mysql");
    expect(e.message).toMatch(/did not finish its one connection within 60 s$/);
    expect(e.hint).toContain("FORWARD policy DROP");
    expect(e.hint).toContain("iptables -I DOCKER-USER -i br-0123456789ab -o br-0123456789ab -j ACCEPT");
    expect(e.hint).toContain("load.transport: socket or loopback");
  });

  it("over the bridge, a connection that timed out (errno 110): the same cause", () => {
    const out =
      "FATAL: unable to connect to MySQL server on host 'tb-x-mysql', port 3306, aborting...\nFATAL: error 2002: Can't connect to server on 'tb-x-mysql' (110)\n";
    const e = connectionFailure(out, { server: "mysql", transport: "bridge", host: "tb-x-mysql", networkId: NET });
    expect(e.message).toContain("MySQL client error 2002 (errno 110)");
    expect(e.message).toContain("error 2002: Can't connect to server on 'tb-x-mysql' (110)");
    expect(e.hint).toContain("br-0123456789ab");
  });

  it("a name the engine's DNS does not resolve (2005) says so", () => {
    const e = connectionFailure(fixture("fail-unknown-host"), {
      server: "a",
      transport: "bridge",
      host: "nosuchhost.invalid",
      networkId: NET,
    });
    expect(e.message).toContain("MySQL client error 2005");
    expect(e.hint).toMatch(/^the engine's DNS did not resolve the server's container name nosuchhost\.invalid/);
  });

  it("any other failure points at the raw log; the socket and loopback transports are named", () => {
    const refused = connectionFailure(fixture("fail-connection-refused"), { server: "b", transport: "loopback" });
    expect(refused.message).toContain(
      "over the loopback transport (127.0.0.1 in the server's network namespace): MySQL client error 2002 (errno 115)",
    );
    expect(refused.hint).toBe("see raw/b.conninfo.log in the results folder");
    const denied = connectionFailure(fixture("fail-bad-password"), { server: "c", transport: "socket" });
    expect(denied.message).toContain("over the socket transport");
    expect(denied.hint).toBe("see raw/c.conninfo.log in the results folder");
  });
});
