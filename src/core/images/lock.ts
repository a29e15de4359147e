/**
 * The image lock file (images/lock.yaml): which Debian suite(s) and exact package versions each pinned image is
 * built from, and which official image (ref + digest) stands in for it in official mode. Pure: parsing only.
 */
import { createHash } from "node:crypto";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { InputError } from "../base/errors.ts";
import { chooseMirrors, type Mirrors } from "./mirror.ts";

export const DIGEST_PLACEHOLDER = "PLACEHOLDER";

const pkgName = z.string().regex(/^[a-z0-9][a-z0-9+.-]+$/, { message: "expected a Debian package name" });
const pkgVersion = z
  .string()
  .regex(/^[A-Za-z0-9.+~:-]+$/, { message: 'expected an exact Debian version like "1:11.8.9+ds-4"' });
const suite = z.string().regex(/^[a-z]+(-(security|updates|backports))?$/, {
  message: 'expected a Debian suite like "sid" or "bookworm-security"',
});
const digest = z.union([
  z.literal(DIGEST_PLACEHOLDER),
  z
    .string()
    .regex(/^sha256:[0-9a-f]{64}$/, { message: `expected "sha256:" and 64 hex digits, or ${DIGEST_PLACEHOLDER}` }),
]);
const imageName = z.string().regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, {
  message: "expected an image name of lowercase letters, digits, '.', '-' or '_'",
});

export const LockEntrySchema = z
  .strictObject({
    family: z.enum(["mariadb", "mysql", "sysbench"]),
    /** Upstream version, e.g. "11.8.9": what `SELECT VERSION()` (or `sysbench --version`) starts with. */
    version: z.string().regex(/^\d+(\.\d+)*$/, { message: 'expected an upstream version like "11.8.9"' }),
    /** The first suite is the base image's (debootstrap'd); the others are added as apt sources. */
    suites: z.array(suite).min(1),
    /** The main package; its pinned version is the image's `twinbench.package-version` label. */
    package: pkgName,
    /** Every package installed explicitly, with its exact version. */
    packages: z.record(pkgName, pkgVersion),
    official: z.strictObject({
      /** The tag pinned, optionally on a registry other than Docker Hub: "mariadb:11.8", "127.0.0.1:5000/library/mariadb:11.8". */
      ref: z.string().regex(/^(?:[A-Za-z0-9.-]+(?::\d+)?\/)?[a-z0-9][a-z0-9._/-]*:[A-Za-z0-9._-]+$/, {
        message: 'expected an image ref like "mariadb:11.8" or "registry.example:5000/library/mariadb:11.8"',
      }),
      digest,
    }),
  })
  .superRefine((e, ctx) => {
    if (!(e.package in e.packages)) {
      ctx.addIssue({ code: "custom", path: ["packages"], message: `must pin the main package "${e.package}"` });
    }
    const base = e.suites[0]!;
    if (/-/.test(base))
      ctx.addIssue({
        code: "custom",
        path: ["suites", 0],
        message: `the first suite must be a base suite, not "${base}"`,
      });
  });

/** A mirror URL apt can fetch from inside a build: http(s), no spaces. */
const mirrorUrl = z.string().regex(/^https?:\/\/[^\s/"'`$\\]+(\/[^\s"'`$\\]*)?$/, {
  message: 'expected an http(s) URL like "http://mirror.example/debian"',
});

export const LockSchema = z.strictObject({
  schema: z.literal(1),
  /**
   * Overrides of the Debian mirrors; by default builds take them from the host's apt sources (see mirror.ts).
   * Not part of any image hash: the packages are pinned by version.
   */
  mirrors: z.strictObject({ debian: mirrorUrl.optional(), security: mirrorUrl.optional() }).optional(),
  images: z
    .record(imageName, LockEntrySchema)
    .refine((r) => Object.keys(r).length > 0, { message: "expected at least one image" }),
});

/** One image of images/lock.yaml: family, upstream version, Debian suites, pinned packages, official ref and digest. */
export type LockEntry = z.infer<typeof LockEntrySchema>;
/**
 * images/lock.yaml, parsed and validated, with the file it came from. `mirrors` is the choice builds use: the lock's
 * own `mirrors` where it names one, else the host's (passed to parseLock), each with where it came from.
 */
export type Lock = Omit<z.infer<typeof LockSchema>, "mirrors"> & { file: string; mirrors: Mirrors };
export type Family = LockEntry["family"];

/**
 * Parse and validate a lock file's text. Errors name the file and the dot path of each problem. `host` is what the
 * host's apt sources name (none by default); the lock's own `mirrors` override it.
 */
export function parseLock(raw: string, file: string, host: Mirrors = { debian: null, security: null }): Lock {
  let doc: unknown;
  try {
    doc = parseYaml(raw);
  } catch (e) {
    throw new InputError(`${file}: not valid YAML: ${(e as Error).message.split("\n")[0]}`, {
      code: "LOCK_INVALID",
      hint: `fix the YAML syntax in ${file}`,
      problems: [`${file}: ${(e as Error).message.split("\n")[0]}`],
      cause: e,
    });
  }
  const r = LockSchema.safeParse(doc);
  if (!r.success) {
    const problems = r.error.issues.map(
      (i) => `${file}: ${i.path.length ? i.path.join(".") : "(top level)"}: ${i.message}`,
    );
    throw new InputError(
      `${file}: invalid image lock (${problems.length} problem${problems.length === 1 ? "" : "s"})`,
      {
        code: "LOCK_INVALID",
        hint: `fix the entries listed above in ${file}`,
        problems,
      },
    );
  }
  return { ...r.data, file, mirrors: chooseMirrors(r.data.mirrors, file, host) };
}

/** Look up one entry; unknown names are input errors that list the known ones. */
export function lockEntry(lock: Lock, name: string): LockEntry {
  const e = lock.images[name];
  if (!e) {
    throw new InputError(`unknown image "${name}"`, {
      code: "IMAGE_UNKNOWN",
      hint: `known images in ${lock.file}: ${Object.keys(lock.images).join(", ")}`,
    });
  }
  return e;
}

/** JSON with sorted object keys, so hashes do not depend on key order in the YAML. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(",")}]`;
  if (v && typeof v === "object") {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .filter((k) => o[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(v);
}

export function sha256(s: string): string {
  return createHash("sha256").update(s).digest("hex");
}

/**
 * Hash of one lock entry: the `twinbench.lock-hash` label. Not the mirror: every package is pinned to an exact
 * version, so any mirror that serves those versions gives the same image (and one that does not fails the build).
 */
export function lockEntryHash(entry: LockEntry): string {
  return sha256(canonicalJson({ entry }));
}
