/**
 * Host-key checks for ssh:// engines (pure): an OpenSSH known_hosts text or a pinned fingerprint against the key
 * the server offers. known_hosts lines are `[marker] patterns keytype base64-key [comment]`; patterns are
 * comma-separated host names (`[host]:port` off port 22) with `*` and `?` wildcards and `!` negation, or a hashed
 * entry `|1|salt|hmac-sha1`. `@revoked` keys are refused; `@cert-authority` lines are not host keys and are skipped.
 */
import { createHash, createHmac } from "node:crypto";

/** The OpenSSH fingerprint of a public key blob: `SHA256:` and its unpadded base64 hash. */
export function fingerprintOf(key: Uint8Array): string {
  return `SHA256:${createHash("sha256").update(key).digest("base64").replace(/=+$/, "")}`;
}

/** The verdict on an offered key: accepted, or refused with a sentence that says why. */
export type HostKeyVerdict = { ok: true } | { ok: false; reason: string };

/** The name known_hosts files use for a host and port: `host`, or `[host]:port` off port 22. */
export function knownHostsName(host: string, port: number): string {
  return port === 22 ? host : `[${host}]:${port}`;
}

function globMatch(pattern: string, name: string): boolean {
  const re = new RegExp(
    `^${pattern
      .replace(/[.+^${}()|[\]\\]/g, "\\$&")
      .replace(/\*/g, ".*")
      .replace(/\?/g, ".")}$`,
    "i",
  );
  return re.test(name);
}

function hashedMatch(entry: string, name: string): boolean {
  const [, magic, salt, hash] = entry.split("|");
  if (magic !== "1" || !salt || !hash) return false;
  return createHmac("sha1", Buffer.from(salt, "base64")).update(name).digest("base64") === hash;
}

/** Whether a comma-separated pattern list names `name` (a negated pattern that matches rules it out). */
function patternsMatch(patterns: string, name: string): boolean {
  let hit = false;
  for (const p of patterns.split(",")) {
    if (p.startsWith("|")) {
      if (hashedMatch(p, name)) hit = true;
    } else if (p.startsWith("!")) {
      if (globMatch(p.slice(1), name)) return false;
    } else if (globMatch(p, name)) hit = true;
  }
  return hit;
}

/**
 * Check `key` (the raw public key blob the server offered) for `host`:`port`: against `fingerprint` when one is
 * pinned (hosts[].fingerprint), else against the known_hosts text. Unknown and changed keys are both refused.
 */
export function verifyHostKey(
  key: Uint8Array,
  o: { host: string; port: number; knownHosts?: string; knownHostsFile?: string; fingerprint?: string },
): HostKeyVerdict {
  const offered = fingerprintOf(key);
  const name = knownHostsName(o.host, o.port);
  if (o.fingerprint !== undefined) {
    const want = o.fingerprint.trim().replace(/=+$/, "");
    return want === offered
      ? { ok: true }
      : { ok: false, reason: `${name} offered the key ${offered}, not the fingerprint ${want} set for it` };
  }
  const keyB64 = Buffer.from(key).toString("base64");
  let known = false;
  for (const raw of (o.knownHosts ?? "").split("\n")) {
    const line = raw.trim();
    if (!line || line.startsWith("#")) continue;
    const fields = line.split(/\s+/);
    const marker = fields[0]!.startsWith("@") ? fields.shift() : undefined;
    const [patterns, , b64] = fields;
    if (!patterns || !b64 || marker === "@cert-authority" || !patternsMatch(patterns, name)) continue;
    if (marker === "@revoked") {
      if (b64 === keyB64) return { ok: false, reason: `the key ${offered} of ${name} is marked @revoked` };
      continue;
    }
    if (b64 === keyB64) return { ok: true };
    known = true;
  }
  const file = o.knownHostsFile ?? "known_hosts";
  return {
    ok: false,
    reason: known
      ? `${name} offered the key ${offered}, which differs from the one ${file} holds for it (the key changed, or another machine answers)`
      : `${name} is not in ${file} (it offered the key ${offered})`,
  };
}
