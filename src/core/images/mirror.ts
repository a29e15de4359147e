/**
 * Which Debian mirror the image builds fetch from, and where that came from. The host's own apt sources name the
 * mirror that works for this host (a company mirror, an offline snapshot, a nearby one), so builds take theirs;
 * images/lock.yaml may still name one (`mirrors.debian` / `mirrors.security`), and then it wins. Pure: the adapter
 * reads /etc/apt/sources.list, sources.list.d/*.list (one-line format) and sources.list.d/*.sources (deb822) and
 * passes their text in.
 *
 * The mirror is not part of any image hash: every package is pinned to an exact version, so any mirror that serves
 * that version yields the same image, and one that does not fails the build (IMAGE_PACKAGE_NOT_FOUND).
 */
import { TwinbenchError } from "../base/errors.ts";

/** One `deb` source: a URI and its suites, from the file (and line or stanza) that named it. */
export interface AptSource {
  uri: string;
  suites: string[];
  components: string[];
  /** "/etc/apt/sources.list.d/debian.sources" (stanza 1), "/etc/apt/sources.list:3". */
  from: string;
}

/** The most source entries read from one file (a real host has a handful). */
const MAX_ENTRIES = 1000;

/** Parse a one-line-format file (sources.list, *.list): `deb [options] URI SUITE [COMPONENT...]`. */
export function parseOneLineSources(text: string, file: string): AptSource[] {
  const out: AptSource[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length && out.length < MAX_ENTRIES; i++) {
    const line = lines[i]!.replace(/#.*$/, "").trim();
    if (!line) continue;
    // Options in brackets may hold spaces: [ arch=amd64 signed-by=/usr/share/keyrings/x.gpg ].
    const m = /^(deb|deb-src)\s+(?:\[[^\]]*\]\s+)?(\S+)\s+(\S+)((?:\s+\S+)*)$/.exec(line);
    if (!m || m[1] !== "deb") continue;
    out.push({
      uri: m[2]!,
      suites: [m[3]!],
      components: m[4]!.trim().split(/\s+/).filter(Boolean),
      from: `${file}:${i + 1}`,
    });
  }
  return out;
}

/** Parse a deb822 file (*.sources): stanzas of `Field: value` lines, separated by blank lines. */
export function parseDeb822Sources(text: string, file: string): AptSource[] {
  const out: AptSource[] = [];
  const stanzas: Array<{ fields: Map<string, string>; line: number }> = [];
  let cur: { fields: Map<string, string>; line: number } | null = null;
  let last: string | null = null;
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    if (/^\s*#/.test(raw)) continue;
    if (raw.trim() === "") {
      cur = null;
      last = null;
      continue;
    }
    if (/^\s/.test(raw) && cur && last) {
      // A continuation line (folded field value).
      cur.fields.set(last, `${cur.fields.get(last)} ${raw.trim()}`);
      continue;
    }
    const m = /^([A-Za-z][A-Za-z0-9-]*):\s*(.*)$/.exec(raw);
    if (!m) continue;
    if (!cur) {
      cur = { fields: new Map(), line: i + 1 };
      stanzas.push(cur);
    }
    last = m[1]!.toLowerCase();
    cur.fields.set(last, m[2]!.trim());
  }
  for (const s of stanzas.slice(0, MAX_ENTRIES)) {
    const f = s.fields;
    const words = (k: string) => (f.get(k) ?? "").split(/\s+/).filter(Boolean);
    if (!words("types").includes("deb")) continue;
    if (/^(no|false|0)$/i.test(f.get("enabled") ?? "yes")) continue;
    for (const uri of words("uris"))
      out.push({ uri, suites: words("suites"), components: words("components"), from: `${file}:${s.line}` });
  }
  return out;
}

/** Debian's release names and aliases: a source whose suite is one of these (maybe with -updates, -security…) is a Debian archive. */
const DEBIAN_SUITES = new Set([
  "buster",
  "bullseye",
  "bookworm",
  "trixie",
  "forky",
  "duke",
  "sid",
  "oldoldstable",
  "oldstable",
  "stable",
  "testing",
  "unstable",
  "experimental",
]);

const baseSuite = (suite: string): string =>
  suite.replace(/-(security|updates|backports|proposed-updates)$/, "").replace(/\/updates$/, "");
const isSecurity = (suite: string): boolean => /-security$/.test(suite) || /\/updates$/.test(suite);

/** Where a mirror came from: the lock, or a file of the host's apt sources. */
export interface MirrorChoice {
  uri: string;
  /** "images/lock.yaml mirrors.debian", "/etc/apt/sources.list.d/debian.sources:1". */
  from: string;
}

/** The mirrors builds use: the main Debian archive and the security one (null when nothing names it). */
export interface Mirrors {
  debian: MirrorChoice | null;
  security: MirrorChoice | null;
}

/**
 * The host's Debian mirrors from its apt sources, in apt's reading order (sources.list, then sources.list.d/ by
 * name): the first `deb` source with an http(s) URI and a Debian suite, and the first with a Debian security suite.
 * Sources of other archives (Ubuntu, vendors' repositories: suites like "noble" or "nodistro") are skipped, as
 * are file:, cdrom: and other URIs a container cannot reach.
 */
export function hostMirrors(sources: readonly AptSource[]): Mirrors {
  let debian: MirrorChoice | null = null;
  let security: MirrorChoice | null = null;
  for (const s of sources) {
    if (!/^https?:\/\/[^\s/]+/.test(s.uri)) continue;
    const uri = s.uri.replace(/\/+$/, "");
    if (!debian && s.suites.some((x) => DEBIAN_SUITES.has(baseSuite(x)) && !isSecurity(x)))
      debian = { uri, from: s.from };
    if (!security && s.suites.some((x) => DEBIAN_SUITES.has(baseSuite(x)) && isSecurity(x)))
      security = { uri, from: s.from };
  }
  return { debian, security };
}

/** The lock's `mirrors` block, as parsed (either field may be absent). */
export interface LockMirrors {
  debian?: string;
  security?: string;
}

/** Each mirror from the lock when it names one (an explicit override), else from the host. */
export function chooseMirrors(lock: LockMirrors | undefined, lockFile: string, host: Mirrors): Mirrors {
  const pick = (k: "debian" | "security"): MirrorChoice | null => {
    const v = lock?.[k];
    return v ? { uri: v.replace(/\/+$/, ""), from: `${lockFile} mirrors.${k}` } : host[k];
  };
  return { debian: pick("debian"), security: pick("security") };
}

/** The mirror a suite is fetched from ("bookworm-security" → the security one); an error when nothing names it. */
export function mirrorFor(suite: string, mirrors: Mirrors, lockFile?: string): string {
  return mirrorChoiceFor(suite, mirrors, lockFile).uri;
}

/** As mirrorFor, with where the mirror came from. */
export function mirrorChoiceFor(suite: string, mirrors: Mirrors, lockFile = "images/lock.yaml"): MirrorChoice {
  const security = isSecurity(suite);
  const m = security ? mirrors.security : mirrors.debian;
  if (m) return m;
  const key = security ? "security" : "debian";
  throw new TwinbenchError(
    `no Debian ${security ? "security " : ""}mirror for suite ${suite}: the host's apt sources name none, and ${lockFile} has no mirrors.${key}`,
    {
      code: "MIRROR_NONE",
      hint: `add mirrors: { ${key}: http://your-mirror/${security ? "debian-security" : "debian"} } to ${lockFile}, or a Debian source to /etc/apt/sources.list.d/`,
    },
  );
}

/** One line for doctor and plan: which mirrors builds use, and where each came from. */
export function describeMirrors(m: Mirrors): string {
  const one = (c: MirrorChoice | null, what: string) => (c ? `${c.uri} (from ${c.from})` : `no ${what} mirror`);
  return `${one(m.debian, "Debian")}; security: ${one(m.security, "security")}`;
}
