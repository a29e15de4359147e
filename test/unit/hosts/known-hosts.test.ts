/** Host keys checked against known_hosts lines (ports, wildcards, negation, hashed names, @revoked) or a pinned fingerprint. */
import { createHmac, randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import ssh2 from "ssh2";
import { fingerprintOf, verifyHostKey } from "../../../src/core/hosts/known-hosts.ts";

const { utils } = ssh2;

function keyPair(): { priv: string; line: string; blob: Buffer } {
  const k = utils.generateKeyPairSync("ed25519");
  const parsed = utils.parseKey(k.public);
  if (parsed instanceof Error) throw parsed;
  return { priv: k.private, line: k.public.trim(), blob: parsed.getPublicSSH() };
}

describe("verifyHostKey", () => {
  const k = keyPair();
  const other = keyPair();
  const b64 = k.blob.toString("base64");

  it("a listed key is accepted; an unknown host and a changed key are refused, each said plainly", () => {
    expect(verifyHostKey(k.blob, { host: "lab2", port: 22, knownHosts: `lab1,lab2 ssh-ed25519 ${b64}\n` })).toEqual({
      ok: true,
    });
    const unknown = verifyHostKey(k.blob, { host: "lab3", port: 22, knownHosts: `lab2 ssh-ed25519 ${b64}\n` });
    expect(unknown).toEqual({
      ok: false,
      reason: `lab3 is not in known_hosts (it offered the key ${fingerprintOf(k.blob)})`,
    });
    const changed = verifyHostKey(other.blob, { host: "lab2", port: 22, knownHosts: `lab2 ssh-ed25519 ${b64}\n` });
    expect(changed.ok).toBe(false);
    expect(!changed.ok && changed.reason).toMatch(/differs from the one known_hosts holds/);
  });

  it("ports, wildcards, negation, hashed names and @revoked", () => {
    const kh = (line: string) => ({ host: "lab2", port: 2222, knownHosts: line });
    expect(verifyHostKey(k.blob, kh(`[lab2]:2222 ssh-ed25519 ${b64}`)).ok).toBe(true);
    expect(verifyHostKey(k.blob, kh(`lab2 ssh-ed25519 ${b64}`)).ok).toBe(false);
    expect(verifyHostKey(k.blob, { host: "lab7", port: 22, knownHosts: `lab* ssh-ed25519 ${b64}` }).ok).toBe(true);
    expect(verifyHostKey(k.blob, { host: "lab7", port: 22, knownHosts: `lab*,!lab7 ssh-ed25519 ${b64}` }).ok).toBe(
      false,
    );
    const salt = randomBytes(20);
    const hashed = `|1|${salt.toString("base64")}|${createHmac("sha1", salt).update("lab2").digest("base64")}`;
    expect(verifyHostKey(k.blob, { host: "lab2", port: 22, knownHosts: `${hashed} ssh-ed25519 ${b64}` }).ok).toBe(true);
    expect(
      verifyHostKey(k.blob, {
        host: "lab2",
        port: 22,
        knownHosts: `@revoked * ssh-ed25519 ${b64}\nlab2 ssh-ed25519 ${b64}`,
      }).ok,
    ).toBe(false);
  });

  it("a pinned fingerprint decides alone", () => {
    expect(verifyHostKey(k.blob, { host: "x", port: 22, fingerprint: fingerprintOf(k.blob) }).ok).toBe(true);
    expect(verifyHostKey(k.blob, { host: "x", port: 22, fingerprint: fingerprintOf(other.blob) }).ok).toBe(false);
  });
});
