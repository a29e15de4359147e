/**
 * Build contexts: render a family's Dockerfile template for a mode, and compute the image's content hash.
 * Pure: the adapter reads the files from images/ and passes them in.
 *
 * Templates are `Dockerfile.debian` and `Dockerfile.official` in images/<family>/ with `{{NAME}}` placeholders.
 * Server families also get images/server-common/ (entrypoint, default my.cnf).
 */
import { TwinbenchError } from "../base/errors.ts";
import { digestRef } from "./pin.ts";
import { canonicalJson, DIGEST_PLACEHOLDER, lockEntryHash, sha256, type Family, type LockEntry } from "./lock.ts";
import { mirrorFor, type Mirrors } from "./mirror.ts";

export type BuildMode = "debian" | "official";
export type ModeChoice = BuildMode | "auto";

/** apt options every image needs: the mirror is a frozen snapshot, so Release files look expired. */
export const APT_OPTIONS = [
  "-o",
  "Acquire::Check-Valid-Until=false",
  "-o",
  "APT::Install-Recommends=false",
  "-o",
  "Dpkg::Options::=--force-confdef",
  "-o",
  "Dpkg::Options::=--force-confold",
] as const;

/** The fixed uid/gid of the `mysql` user in server images (the official images use 999 too). */
export const MYSQL_UID = 999;

/** Directories under images/ that make up one family's build context, later ones first-come (family wins). */
export function contextDirs(family: Family): string[] {
  return family === "sysbench" ? ["sysbench"] : [family, "server-common"];
}

export interface BaseImageRef {
  /** e.g. twinbench/base:sid-0123456789ab */
  tag: string;
  /** The image id (sha256:...) the tag pointed at when rendering: part of the content hash. */
  id: string;
}

export interface RenderOptions {
  /** Required in debian mode. */
  base?: BaseImageRef;
}

export interface RenderedContext {
  /** Path inside the build context → content. Always holds "Dockerfile". */
  files: Record<string, string>;
  /** sha256 (hex) over the lock entry, the rendered files and the base image id. */
  hash: string;
  /** The image tag's version part: the first 12 hex digits of `hash`. */
  tagSuffix: string;
}

/**
 * The build arguments that carry the mirrors into a build. The Dockerfiles name these arguments, never a mirror, so
 * the rendered files (and the image's content hash) are the same whichever mirror a host uses.
 */
export const MIRROR_ARG = { debian: "TWINBENCH_DEBIAN_MIRROR", security: "TWINBENCH_SECURITY_MIRROR" } as const;

const isSecuritySuite = (s: string): boolean => s.endsWith("-security");

/**
 * apt sources lines for an entry's suites, as shell words for the Dockerfile's `printf`: "bookworm" → the main
 * mirror's build argument, "bookworm-security" → the security one's (double-quoted: the shell expands them).
 */
export function aptSources(suites: readonly string[]): string[] {
  return suites.map((s) => `"deb \${${isSecuritySuite(s) ? MIRROR_ARG.security : MIRROR_ARG.debian}} ${s} main"`);
}

/** The build arguments an entry's suites need; MIRROR_NONE when the host and the lock name no mirror for one. */
export function mirrorBuildArgs(entry: LockEntry, mirrors: Mirrors, lockFile?: string): Record<string, string> {
  const args: Record<string, string> = {};
  for (const s of entry.suites)
    args[isSecuritySuite(s) ? MIRROR_ARG.security : MIRROR_ARG.debian] = mirrorFor(s, mirrors, lockFile);
  return args;
}

/** Single-quote a word for /bin/sh. */
export function shQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Replace `{{NAME}}` placeholders; a placeholder without a value is a bug in the template or the caller. */
export function renderTemplate(text: string, vars: Record<string, string>, where: string): string {
  return text.replace(/\{\{\s*([A-Z_][A-Z0-9_]*)\s*\}\}/g, (_, name: string) => {
    const v = vars[name];
    if (v === undefined) {
      throw new TwinbenchError(`${where}: unknown template placeholder {{${name}}}`, {
        code: "IMAGE_TEMPLATE",
        hint: `known placeholders: ${Object.keys(vars).join(", ")}`,
      });
    }
    return v;
  });
}

/** The FROM line's image for a mode. Official mode refuses placeholder digests. */
export function fromImage(
  name: string,
  entry: LockEntry,
  mode: BuildMode,
  base?: BaseImageRef,
  lockFile = "images/lock.yaml",
): string {
  if (mode === "official") {
    if (entry.official.digest === DIGEST_PLACEHOLDER) {
      throw new TwinbenchError(
        `image "${name}": official mode needs a pinned digest for ${entry.official.ref}, but ${lockFile} has ${DIGEST_PLACEHOLDER}`,
        {
          code: "IMAGE_DIGEST_PLACEHOLDER",
          hint: `run \`twinbench images pin ${name}\` (it writes images.${name}.official.digest) on a host whose engine reaches the registry; or build with --mode debian`,
        },
      );
    }
    return digestRef(entry.official.ref, entry.official.digest);
  }
  if (!base) {
    throw new TwinbenchError(`image "${name}": debian mode needs a base image for suite ${entry.suites[0]}`, {
      code: "IMAGE_NO_BASE",
      hint: "ensure the base image first (ensureBaseImage) and pass it to renderContext",
    });
  }
  return base.tag;
}

/**
 * Render one image's build context for a mode. `files` holds the raw files of the family's context dirs
 * (see contextDirs), keyed by their path inside the context; the templates `Dockerfile.debian` /
 * `Dockerfile.official` become `Dockerfile`, everything else is copied unchanged.
 */
export function renderContext(
  name: string,
  entry: LockEntry,
  mode: BuildMode,
  files: Record<string, string>,
  opts: RenderOptions,
): RenderedContext {
  const templateName = `Dockerfile.${mode}`;
  const template = files[templateName];
  if (template === undefined) {
    throw new TwinbenchError(`image "${name}": the ${entry.family} build context has no ${templateName}`, {
      code: "IMAGE_TEMPLATE",
      hint: `add images/${entry.family}/${templateName}`,
    });
  }
  const packages = Object.entries(entry.packages)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([p, v]) => `${p}=${v}`);
  const vars: Record<string, string> = {
    FROM: fromImage(name, entry, mode, opts.base),
    FAMILY: entry.family,
    VERSION: entry.version,
    IMAGE_NAME: name,
    SUITES: entry.suites.join(" "),
    APT_SOURCES: aptSources(entry.suites).join(" "),
    APT_GET: ["apt-get", ...APT_OPTIONS].join(" "),
    PACKAGES: packages.join(" "),
    MYSQL_UID: String(MYSQL_UID),
  };
  const out: Record<string, string> = {};
  for (const [path, text] of Object.entries(files).sort(([a], [b]) => a.localeCompare(b))) {
    if (/^Dockerfile\.(debian|official)$/.test(path)) continue;
    out[path] = text;
  }
  out["Dockerfile"] = renderTemplate(template, vars, `images/${entry.family}/${templateName}`);
  const hash = sha256(
    canonicalJson({
      name,
      mode,
      lock: lockEntryHash(entry),
      base: mode === "debian" ? (opts.base?.id ?? null) : null,
      files: out,
    }),
  );
  return { files: out, hash, tagSuffix: hash.slice(0, 12) };
}

/** Repository part of an image's tag: twinbench/<name>. */
export function imageRepo(name: string): string {
  return `twinbench/${name}`;
}

export const LABEL = {
  family: "twinbench.family",
  version: "twinbench.version",
  packageVersion: "twinbench.package-version",
  lockHash: "twinbench.lock-hash",
  contentHash: "twinbench.content-hash",
  buildTime: "twinbench.build-time",
  image: "twinbench.image",
  mode: "twinbench.mode",
  suite: "twinbench.suite",
  mysqlUid: "twinbench.mysql-uid",
  mirror: "twinbench.mirror",
  session: "twinbench.session",
  run: "twinbench.run",
} as const;

/** The labels every built image carries. `buildTime` is passed in (ISO 8601). */
export function imageLabels(
  name: string,
  entry: LockEntry,
  mode: BuildMode,
  rendered: RenderedContext,
  meta: { buildTime: string; session?: string; run?: string; mirrors?: Record<string, string> },
): Record<string, string> {
  const labels: Record<string, string> = {
    [LABEL.image]: name,
    [LABEL.family]: entry.family,
    [LABEL.version]: entry.version,
    [LABEL.packageVersion]:
      mode === "debian" ? entry.packages[entry.package]! : `${entry.official.ref}@${entry.official.digest}`,
    [LABEL.lockHash]: lockEntryHash(entry),
    [LABEL.contentHash]: rendered.hash,
    [LABEL.buildTime]: meta.buildTime,
    [LABEL.mode]: mode,
    [LABEL.suite]: entry.suites.join(","),
  };
  if (entry.family !== "sysbench") labels[LABEL.mysqlUid] = String(MYSQL_UID);
  // Which mirror the packages came from: a record of this build, not part of the tag's hash.
  if (meta.mirrors && Object.keys(meta.mirrors).length > 0)
    labels[LABEL.mirror] = Object.values(meta.mirrors).join(" ");
  if (meta.session) labels[LABEL.session] = meta.session;
  if (meta.run) labels[LABEL.run] = meta.run;
  return labels;
}
