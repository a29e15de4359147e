/** Engine URLs and --host flags (src/core/hosts/url.ts). */
import { describe, expect, it } from "vitest";
import {
  displayEngineUrl,
  hostsOverride,
  parseEngineUrl,
  parseHostFlag,
  resolveHosts,
  resumeHosts,
} from "../../../src/core/hosts/url.ts";
import { InputError } from "../../../src/core/base/errors.ts";

describe("engine URLs", () => {
  it.each([
    ["unix:///var/run/docker.sock", { kind: "unix", socketPath: "/var/run/docker.sock" }],
    ["tcp://127.0.0.2:2375", { kind: "tcp", host: "127.0.0.2", port: 2375, tls: false }],
    ["tcp://10.0.0.5", { kind: "tcp", host: "10.0.0.5", port: 2375, tls: false }],
    ["tcp://box:2376", { kind: "tcp", host: "box", port: 2376, tls: true }],
    ["tcp://[::1]:2375", { kind: "tcp", host: "::1", port: 2375, tls: false }],
    ["ssh://bench@lab2", { kind: "ssh", host: "lab2", port: 22, username: "bench" }],
    ["ssh://lab2:2222", { kind: "ssh", host: "lab2", port: 2222 }],
  ])("%s", (url, want) => {
    expect(parseEngineUrl(url)).toEqual(want);
  });

  it("TLS material turns TLS on and defaults the port to 2376", () => {
    expect(parseEngineUrl("tcp://box", { tls: true })).toEqual({ kind: "tcp", host: "box", port: 2376, tls: true });
  });

  it.each([
    ["http://box:2375", /unsupported scheme http/],
    ["unix://relative.sock", /absolute path/],
    ["tcp://user@box:2375", /no user name/],
    ["tcp://box:2375/path", /unexpected path/],
    ["box:2375", /no scheme/],
  ])("refuses %s", (url, why) => {
    expect(() => parseEngineUrl(url)).toThrow(why);
    try {
      parseEngineUrl(url);
    } catch (e) {
      expect((e as InputError).code).toBe("HOST_URL_INVALID");
      expect((e as InputError).message).toContain(url);
    }
  });

  it("displays without secrets", () => {
    expect(displayEngineUrl(parseEngineUrl("tcp://box:2376"))).toBe("tcp://box:2376 (TLS)");
    expect(displayEngineUrl(parseEngineUrl("ssh://bench@lab2"))).toBe("ssh://bench@lab2");
  });
});

describe("--host flags", () => {
  it("parses ID=URL", () => {
    expect(parseHostFlag("a=unix:///var/run/docker.sock")).toEqual({ id: "a", engine: "unix:///var/run/docker.sock" });
  });
  it.each([["a"], ["=tcp://x:1"], ["A=tcp://x:1"], ["a=ftp://x"]])("refuses %s", (v) => {
    expect(() => parseHostFlag(v)).toThrow(InputError);
  });
  it("flags replace the scenario's hosts, keeping a same-id entry's TLS", () => {
    const tls = { ca: "/c/ca.pem", cert: "/c/cert.pem", key: "/c/key.pem" };
    const hosts = resolveHosts(
      [
        { id: "b", engine: "tcp://old:2376", tls },
        { id: "c", engine: "tcp://c:2375" },
      ],
      ["a=unix:///s.sock", "b=tcp://new:2376"],
    );
    expect(hosts).toEqual([
      { id: "a", engine: "unix:///s.sock" },
      { id: "b", engine: "tcp://new:2376", tls },
    ]);
    expect(resolveHosts([{ id: "c", engine: "tcp://c:2375" }], [])).toEqual([{ id: "c", engine: "tcp://c:2375" }]);
  });
  it("refuses duplicate ids", () => {
    expect(() => resolveHosts(undefined, ["a=tcp://x:1", "a=tcp://y:1"])).toThrow(/given twice/);
  });
  it("on resume, moves a recorded host to a new URL (its TLS kept) and refuses a host the run did not use", () => {
    const tls = { ca: "ca.pem", cert: "c.pem", key: "k.pem" };
    const recorded = [
      { id: "a", engine: "unix:///var/run/docker.sock" },
      { id: "b", engine: "tcp://10.0.0.2:2376", tls },
    ];
    expect(resumeHosts(recorded, [])).toEqual(recorded);
    expect(resumeHosts(recorded, ["b=tcp://10.0.0.9:2376"])).toEqual([
      recorded[0],
      { id: "b", engine: "tcp://10.0.0.9:2376", tls },
    ]);
    expect(() => resumeHosts(recorded, ["c=tcp://10.0.0.3:2375"])).toThrow(/has no host "c" \(its hosts: a, b\)/);
    expect(() => resumeHosts(recorded, ["b=http://x"])).toThrow(InputError);
  });

  it("becomes a --set override that the validator sees", () => {
    expect(hostsOverride([])).toEqual([]);
    expect(hostsOverride(["a=unix:///s.sock"])).toEqual(['hosts=[{"id":"a","engine":"unix:///s.sock"}]']);
  });
});
