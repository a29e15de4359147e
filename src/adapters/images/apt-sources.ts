/**
 * The host's apt sources, read for the Debian mirror the image builds use: /etc/apt/sources.list and
 * /etc/apt/sources.list.d/*.list (one-line format), /etc/apt/sources.list.d/*.sources (deb822), in apt's order
 * (sources.list first, then sources.list.d/ by file name). Parsing and the choice are in src/core/images/mirror.ts.
 */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import {
  hostMirrors,
  parseDeb822Sources,
  parseOneLineSources,
  type AptSource,
  type Mirrors,
} from "../../core/images/mirror.ts";

/** apt's configuration folder. */
export const APT_DIR = "/etc/apt";
/** The most files read from sources.list.d/ (a real host has a handful). */
const MAX_FILES = 200;
/** The most bytes read from one sources file. */
const MAX_BYTES = 1024 * 1024;

async function readText(p: string): Promise<string | null> {
  try {
    const text = await readFile(p, "utf8");
    return text.length > MAX_BYTES ? text.slice(0, MAX_BYTES) : text;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR" || code === "EACCES" || code === "EISDIR") return null; // no such file (a deb822-only host has no sources.list), or not ours to read: the next file may name the mirror
    throw e;
  }
}

/** Every `deb` source of the host's apt configuration under `dir` (default /etc/apt), in apt's order. */
export async function readAptSources(dir: string = APT_DIR): Promise<AptSource[]> {
  const out: AptSource[] = [];
  const main = join(dir, "sources.list");
  const text = await readText(main);
  if (text !== null) out.push(...parseOneLineSources(text, main));
  let names: string[] = [];
  try {
    names = (await readdir(join(dir, "sources.list.d"))).sort();
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== "ENOENT" && code !== "ENOTDIR" && code !== "EACCES") throw e; // no sources.list.d (or not ours to list): sources.list is all there is
  }
  for (const name of names.slice(0, MAX_FILES)) {
    const p = join(dir, "sources.list.d", name);
    // apt reads only these two suffixes (foo.list.disabled, foo.sources.bak… are ignored, as apt ignores them).
    if (name.endsWith(".list")) {
      const t = await readText(p);
      if (t !== null) out.push(...parseOneLineSources(t, p));
    } else if (name.endsWith(".sources")) {
      const t = await readText(p);
      if (t !== null) out.push(...parseDeb822Sources(t, p));
    }
  }
  return out;
}

/** The Debian mirrors the host's apt sources name (see hostMirrors). */
export async function readHostMirrors(dir: string = APT_DIR): Promise<Mirrors> {
  return hostMirrors(await readAptSources(dir));
}
