/** Reading the lock file and the build contexts from images/. */
import { readdir, readFile } from "node:fs/promises";
import { dirname, join, relative, resolve } from "node:path";
import { InputError } from "../../core/base/errors.ts";
import { contextDirs } from "../../core/images/context.ts";
import { parseLock, type Family, type Lock } from "../../core/images/lock.ts";
import { packagePath } from "../package-files.ts";
import { readHostMirrors } from "./apt-sources.ts";

/** The package's images/lock.yaml (found from the package root, so it works from any cwd, from src/ or dist/). */
export function defaultLockFile(): string {
  return packagePath("images", "lock.yaml");
}

/**
 * Read and validate a lock file (default: the repository's images/lock.yaml), with the Debian mirrors builds use:
 * the lock's `mirrors` where it names them, else the host's apt sources (under `aptDir`, default /etc/apt).
 */
export async function loadLock(file: string = defaultLockFile(), aptDir?: string): Promise<Lock> {
  let raw: string;
  try {
    raw = await readFile(file, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new InputError(`cannot read the image lock file ${file}: ${code ?? (e as Error).message}`, {
      code: "LOCK_NOT_FOUND",
      hint: "reinstall twinbench (its package ships images/lock.yaml), or pass the path of an images/lock.yaml",
      cause: e,
    });
  }
  const shown = relative(process.cwd(), file);
  const host = await readHostMirrors(aptDir);
  return { ...parseLock(raw, shown.startsWith("..") ? file : shown, host), file };
}

/** The directory holding the build contexts: the lock file's directory. */
export function imagesDir(lock: Lock): string {
  return dirname(resolve(lock.file));
}

async function walk(dir: string, base: string, out: Record<string, string>): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true });
  for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    const p = join(dir, e.name);
    if (e.isDirectory()) await walk(p, base, out);
    else if (e.isFile()) {
      const key = relative(base, p).split("\\").join("/");
      if (!(key in out)) out[key] = await readFile(p, "utf8");
    }
  }
}

/** A family's raw build-context files (images/<family>/ first, then shared dirs), keyed by path in the context. */
export async function readContextFiles(dir: string, family: Family): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const d of contextDirs(family)) {
    const abs = join(dir, d);
    try {
      await walk(abs, abs, out);
    } catch (e) {
      throw new InputError(
        `cannot read the build context ${abs}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
        {
          code: "IMAGE_CONTEXT_MISSING",
          hint: `restore images/${d}/ from the repository`,
          cause: e,
        },
      );
    }
  }
  return out;
}
