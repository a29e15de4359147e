/**
 * Official mode's registry side, through the engine (dockerode's public API: the engine does the registry's auth,
 * mirrors and insecure-registry rules, so nothing here speaks the registry protocol itself):
 * - `pinImages`: resolve each image's official tag to the digest the registry serves (GET /distribution/<ref>/json)
 *   and write it into the lock, changing nothing else;
 * - `pullOfficialBase`: pull the pinned `<repo>@sha256:…` before an official-mode build, and refuse a registry that
 *   does not serve that digest, naming the pinned digest and the one its tag resolves to.
 */
import { readFile } from "node:fs/promises";
import type { ImagePort } from "../../core/model/engine/images.ts";
import { writeFileAtomic } from "../durable-file.ts";
import { CancelledError, TwinbenchError } from "../../core/base/errors.ts";
import { DIGEST_PLACEHOLDER, lockEntry, type Lock, type LockEntry } from "../../core/images/lock.ts";
import { digestRef, formatPinDiff, setOfficialDigests, type DigestEdit } from "../../core/images/pin.ts";
import { statusCode, type ImageProgress } from "./base-image.ts";
import { readJsonStream } from "./stream.ts";

function engineMessage(e: unknown): string {
  return ((e as { json?: { message?: string } }).json?.message ?? (e as Error).message).split("\n")[0]!;
}

/** The digest the registry serves for `ref` (a tag): the manifest list / OCI index digest when there is one. */
export async function resolveOfficialDigest(images: ImagePort, ref: string): Promise<string> {
  try {
    return (await images.distribution(ref)).digest;
  } catch (e) {
    throw new TwinbenchError(`no registry answered for ${ref}: ${engineMessage(e)}`, {
      code: "IMAGE_REGISTRY",
      hint: "check that the engine reaches the registry (`docker pull` the ref by hand), or name a registry it reaches in official.ref",
      details: statusCode(e) ? [`HTTP ${statusCode(e)}`] : [],
      cause: e,
    });
  }
}

/** Options of {@link pinImages}: which images, and whether to write the lock. */
export interface PinOptions {
  /** Default: every image of the lock. */
  names?: readonly string[];
  /** Resolve and show the diff, but leave the file as it is. */
  dryRun?: boolean;
}

/** What {@link pinImages} did: the digests it changed (with their lines), the images already pinned, the diff, and whether it wrote the file. */
export interface PinOutcome {
  /** The lock file as given. */
  file: string;
  edits: DigestEdit[];
  unchanged: string[];
  /** A unified diff of the edits (empty when nothing changed). */
  diff: string[];
  written: boolean;
}

/**
 * Resolve the official tags of `names` to digests and write them into the lock (atomically; only when something
 * changed and not `dryRun`). Nothing but the `official.digest` values changes in the file.
 */
export async function pinImages(images: ImagePort, lock: Lock, opts: PinOptions = {}): Promise<PinOutcome> {
  const names = opts.names && opts.names.length > 0 ? [...opts.names] : Object.keys(lock.images);
  const digests: Record<string, string> = {};
  for (const n of names) digests[n] = await resolveOfficialDigest(images, lockEntry(lock, n).official.ref);
  const raw = await readFile(lock.file, "utf8");
  const edit = setOfficialDigests(raw, lock.file, digests);
  const written = edit.edits.length > 0 && !opts.dryRun;
  if (written) await writeFileAtomic(lock.file, edit.text);
  return {
    file: lock.file,
    edits: edit.edits,
    unchanged: edit.unchanged,
    diff: formatPinDiff(lock.file, edit.edits),
    written,
  };
}

/**
 * Make sure the pinned official image `<repo>@<digest>` is in the engine, pulling it by digest when it is not (the
 * engine checks the content against the digest). A registry without that digest is a mismatch: the error names the
 * pinned digest and the one the tag resolves to now.
 */
export async function pullOfficialBase(
  images: ImagePort,
  name: string,
  entry: LockEntry,
  lockFile: string,
  opts: { onProgress?: (ev: ImageProgress) => void; signal?: AbortSignal } = {},
): Promise<{ ref: string; id: string; pulled: boolean }> {
  if (entry.official.digest === DIGEST_PLACEHOLDER) {
    throw new TwinbenchError(
      `image "${name}": official mode needs a pinned digest for ${entry.official.ref}, but ${lockFile} has ${DIGEST_PLACEHOLDER}`,
      {
        code: "IMAGE_DIGEST_PLACEHOLDER",
        hint: `run \`twinbench images pin ${name}\` on a host whose engine reaches the registry; or build with --mode debian`,
      },
    );
  }
  const ref = digestRef(entry.official.ref, entry.official.digest);
  const known = (d: { repoDigests?: string[] } | undefined) =>
    !!d?.repoDigests?.some((r) => r.endsWith(`@${entry.official.digest}`));
  const have = await images.inspect(ref);
  if (have && known(have)) return { ref, id: have.id, pulled: false };

  opts.onProgress?.({ image: name, step: "pull", line: `pull ${ref}` });
  let failure: string | undefined;
  let status: number | undefined;
  try {
    const stream = await images.pull(ref);
    await readJsonStream(stream, (ev) => {
      if (ev.error !== undefined) failure ??= ev.errorDetail?.message ?? ev.error;
      else if (ev.status && !ev.progress)
        opts.onProgress?.({ image: name, step: "pull", line: ev.id ? `${ev.id}: ${ev.status}` : ev.status });
    });
  } catch (e) {
    if (opts.signal?.aborted) throw new CancelledError();
    failure = engineMessage(e);
    status = statusCode(e);
  }
  if (opts.signal?.aborted) throw new CancelledError();
  const got = failure === undefined ? await images.inspect(ref) : undefined;
  if (got && known(got)) return { ref, id: got.id, pulled: true };

  // Not served (or served as something else): what does the tag resolve to now?
  let current: string | undefined;
  let resolveError: string | undefined;
  try {
    current = await resolveOfficialDigest(images, entry.official.ref);
  } catch (e) {
    resolveError = (e as Error).message; // shown in the pull failure below: the registry is not answering at all
  }
  if (current !== undefined && current !== entry.official.digest) {
    throw new TwinbenchError(
      `image "${name}": the registry does not serve the pinned digest ${entry.official.digest} (${lockFile}); ${entry.official.ref} resolves to ${current}`,
      {
        code: "IMAGE_DIGEST_MISMATCH",
        hint: `if ${lockFile} was edited by mistake, restore it; if the tag moved on purpose, run \`twinbench images pin ${name}\` and review the diff`,
        details: [
          `pinned:   ${entry.official.digest}`,
          `registry: ${current}`,
          ...(failure ? [`pull: ${failure}`] : []),
        ],
      },
    );
  }
  throw new TwinbenchError(
    `image "${name}": pulling ${ref} failed: ${failure ?? `the engine does not list ${ref} after the pull`}`,
    {
      code: "IMAGE_PULL_FAILED",
      hint: "check that the engine reaches the registry (twinbench doctor; `docker pull` the ref by hand)",
      details: [...(status ? [`HTTP ${status}`] : []), ...(resolveError ? [resolveError] : [])],
    },
  );
}
