/**
 * The testcontainers packages installed next to twinbench, read from their package.json files before any of them is
 * loaded: name, version and `engines.node`, and the undici each testcontainers copy loads (testcontainers 12 talks
 * to the engine through undici 8, which cannot load on Node 20). Synchronous on purpose: `twinbench/testcontainers`
 * checks them while it is being imported, before its own imports of testcontainers run.
 */
import { readFileSync } from "node:fs";
import { dirname, join, parse } from "node:path";
import { fileURLToPath } from "node:url";
import type { InstalledPackage } from "../core/hosts/node-support.ts";

const HERE = dirname(fileURLToPath(import.meta.url));

/** The most node_modules folders looked at on the way up (a deep monorepo has fewer than this). */
const MAX_DEPTH = 64;

interface Found {
  dir: string;
  pkg: InstalledPackage;
}

/** Node's lookup of a bare specifier: `node_modules/<name>/package.json` in `from` and each folder above it. */
function findPackage(name: string, from: string): Found | null {
  let dir = from;
  const root = parse(dir).root;
  for (let i = 0; i < MAX_DEPTH; i++) {
    const pkgDir = join(dir, "node_modules", name);
    const pkg = readPackageJson(pkgDir, name);
    if (pkg) return { dir: pkgDir, pkg };
    if (dir === root) return null;
    dir = dirname(dir);
  }
  return null;
}

function readPackageJson(pkgDir: string, name: string): InstalledPackage | null {
  let text: string;
  try {
    text = readFileSync(join(pkgDir, "package.json"), "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT" || (e as NodeJS.ErrnoException).code === "ENOTDIR") return null; // not installed in this folder: the lookup goes one folder up
    throw e;
  }
  let json: { name?: unknown; version?: unknown; engines?: { node?: unknown } };
  try {
    json = JSON.parse(text) as typeof json;
  } catch {
    return null; // a broken package.json: loading the package reports it in its own words, which says more than we can
  }
  if (json.name !== name || typeof json.version !== "string") return null;
  const node = json.engines?.node;
  return { name, version: json.version, ...(typeof node === "string" ? { nodeRange: node } : {}) };
}

/**
 * testcontainers, its MariaDB and MySQL modules, and the undici each testcontainers copy loads, as the package
 * that imports them (`from`, default: this package's own folder) would find them. Missing ones are left out.
 */
export function installedTestcontainers(from: string = HERE): {
  testcontainers: InstalledPackage | null;
  packages: InstalledPackage[];
} {
  const out: InstalledPackage[] = [];
  const seen = new Set<string>();
  const add = (f: Found | null, via?: string): Found | null => {
    if (!f || seen.has(f.dir)) return f;
    seen.add(f.dir);
    out.push(via ? { ...f.pkg, via } : f.pkg);
    return f;
  };
  const tc = add(findPackage("testcontainers", from));
  const copies: Found[] = tc ? [tc] : [];
  for (const module of ["@testcontainers/mariadb", "@testcontainers/mysql"]) {
    const m = add(findPackage(module, from));
    // A module whose testcontainers range the top-level copy does not meet gets its own copy, nested under it.
    const own = m ? add(findPackage("testcontainers", m.dir), `${m.pkg.name} ${m.pkg.version}`) : null;
    if (own && !copies.some((c) => c.dir === own.dir)) copies.push(own);
  }
  for (const c of copies) add(findPackage("undici", c.dir), `testcontainers ${c.pkg.version}`);
  return { testcontainers: tc?.pkg ?? null, packages: out };
}
