/**
 * Files that ship with twinbench (images/ build contexts and lock, lab/my.cnf, scenarios/), found from this
 * module's own location: src/adapters/ under tsx and vitest, dist/adapters/ in the built package. Both sit two
 * levels below the package root, so one rule serves the checkout and an installed package alike.
 */
import { existsSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** The package's root directory (where package.json, images/, lab/ and scenarios/ are). */
export function packageRoot(): string {
  return ROOT;
}

/** A path inside the package, e.g. `packagePath("images", "lock.yaml")`. */
export function packagePath(...parts: string[]): string {
  return resolve(ROOT, ...parts);
}

/**
 * A path the user gave, relative to the working directory when it exists there; otherwise, for a relative path,
 * the same path inside the package when it exists there (so `twinbench plan scenarios/quick.yaml` and the default
 * `config.base: lab/my.cnf` work in any folder); otherwise the path as given, so the caller's read names it.
 */
export function resolveShippedPath(p: string): string {
  if (isAbsolute(p) || existsSync(p)) return p;
  const shipped = packagePath(p);
  return existsSync(shipped) ? shipped : p;
}
