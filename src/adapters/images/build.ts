/**
 * Building the pinned images with dockerode (classic builder, context as a tar stream), never `docker build`.
 * An image's tag is twinbench/<name>:<contenthash12>; a present tag is a cache hit. A build is tagged only after
 * its stream ended without an error event and produced an image id, so a failure never leaves a tagged image.
 */
import { pack } from "tar-stream";
import type { ImagePort } from "../../core/model/engine/images.ts";
import { allOrAbort } from "../../core/base/all-or-abort.ts";
import { CancelledError, TwinbenchError } from "../../core/base/errors.ts";
import {
  imageLabels,
  mirrorBuildArgs,
  imageRepo,
  renderContext,
  type BuildMode,
  type ModeChoice,
  type RenderedContext,
} from "../../core/images/context.ts";
import { lockEntry, type Lock } from "../../core/images/lock.ts";
import { BuildTracker, buildFailure } from "../../core/images/stream.ts";
import { baseImageSpec } from "../../core/images/base.ts";
import { DIGEST_PLACEHOLDER } from "../../core/images/lock.ts";
import { ensureBaseImage, inspectImageId, statusCode, type ImageProgress } from "./base-image.ts";
import { imagesDir, loadLock, readContextFiles } from "./files.ts";
import { detectMode, type ModeDecision } from "./mode.ts";
import { pullOfficialBase } from "./official.ts";
import { readJsonStream } from "./stream.ts";

/** Options of {@link ensureImage} and {@link ensureImages}. */
export interface EnsureImageOptions {
  /** The parsed image lock ({@link loadLock}). */
  lock: Lock;
  /** Default "auto". */
  mode?: ModeChoice;
  onProgress?: (ev: ImageProgress) => void;
  /** Labels twinbench.session / twinbench.run put on newly built images. */
  session?: string;
  run?: string;
  now?: () => Date;
  /** Build even when the tag exists (the tag is then moved to the new image). */
  force?: boolean;
  /** Cancels debootstrap and the build; the promise then rejects with a CancelledError. Nothing is tagged. */
  signal?: AbortSignal;
}

/** A pinned image that is present in the engine (found or built). */
export interface EnsuredImage {
  name: string;
  /** twinbench/<name>:<hash12> */
  tag: string;
  /** sha256:... */
  id: string;
  labels: Record<string, string>;
  cacheHit: boolean;
  mode: BuildMode;
}

/** The context as a tar stream for the build API; shell scripts are executable. */
function contextTar(files: Record<string, string>): NodeJS.ReadableStream {
  const p = pack();
  for (const [name, text] of Object.entries(files)) {
    p.entry({ name, mode: name.endsWith(".sh") ? 0o755 : 0o644, mtime: new Date(0) }, text);
  }
  p.finalize();
  return p as unknown as NodeJS.ReadableStream;
}

async function resolveMode(
  images: ImagePort,
  lock: Lock,
  names: string[],
  choice: ModeChoice | undefined,
): Promise<ModeDecision> {
  if (choice && choice !== "auto") return { mode: choice, reason: `--mode ${choice}` };
  return detectMode(images, lock, names);
}

/** Render the context an image would be built from, ensuring the base image in debian mode. */
async function prepare(
  images: ImagePort,
  name: string,
  mode: BuildMode,
  opts: EnsureImageOptions,
): Promise<{ rendered: RenderedContext; tag: string }> {
  const entry = lockEntry(opts.lock, name);
  const files = await readContextFiles(imagesDir(opts.lock), entry.family);
  const base =
    mode === "debian"
      ? await ensureBaseImage(images, entry.suites[0]!, opts.lock.mirrors, {
          lockFile: opts.lock.file,
          onProgress: opts.onProgress,
          now: opts.now,
          signal: opts.signal,
        })
      : undefined;
  const rendered = renderContext(name, entry, mode, files, { base });
  return { rendered, tag: `${imageRepo(name)}:${rendered.tagSuffix}` };
}

/** Make sure one pinned image exists; builds it only when its content-hash tag is missing. */
export async function ensureImage(images: ImagePort, name: string, opts: EnsureImageOptions): Promise<EnsuredImage> {
  const decision = await resolveMode(images, opts.lock, [name], opts.mode);
  return ensureImageInMode(images, name, decision.mode, opts);
}

/**
 * Ensure several pinned images (default: every image in the lock) side by side, deciding the build mode once; the
 * first failure cancels the others. Present images are cache hits (found by their content-hash tag); missing ones are built with dockerode.
 * `opts.lock` defaults to the package's images/lock.yaml.
 *
 * @example
 * ```ts
 * const [img] = await ensureImages(new DockerEngine("local").images, ["mariadb-11.8"], { onProgress: (ev) => console.log(ev.step) });
 * ```
 * @throws TwinbenchError `IMAGE_BUILD_FAILED`, `IMAGE_PACKAGE_NOT_FOUND`, `IMAGE_DIGEST_PLACEHOLDER`, `IMAGE_DIGEST_MISMATCH`, `IMAGE_PULL_FAILED`, …; CancelledError on `signal`.
 */
export async function ensureImages(
  images: ImagePort,
  names: readonly string[] | undefined,
  options: Omit<EnsureImageOptions, "lock"> & { lock?: Lock } = {},
): Promise<EnsuredImage[]> {
  const opts: EnsureImageOptions = { ...options, lock: options.lock ?? (await loadLock()) };
  const list = names && names.length > 0 ? [...names] : Object.keys(opts.lock.images);
  for (const n of list) lockEntry(opts.lock, n);
  const decision = await resolveMode(images, opts.lock, list, opts.mode);
  opts.onProgress?.({ image: list.join(","), step: "mode", line: `build mode: ${decision.mode} (${decision.reason})` });
  // Side by side: the bases are debootstrapped at once (each once), and each image builds as soon as its base is there.
  return allOrAbort(opts.signal, list, (n, signal) => ensureImageInMode(images, n, decision.mode, { ...opts, signal }));
}

async function ensureImageInMode(
  images: ImagePort,
  name: string,
  mode: BuildMode,
  opts: EnsureImageOptions,
): Promise<EnsuredImage> {
  if (opts.signal?.aborted) throw new CancelledError();
  const { rendered, tag } = await prepare(images, name, mode, opts);
  if (!opts.force) {
    const have = await inspectImageId(images, tag);
    if (have) return { name, tag, id: have.id, labels: have.labels, cacheHit: true, mode };
  }
  const entry = lockEntry(opts.lock, name);
  // Official mode: the base is pulled by its pinned digest first (a registry without it is refused), so the build's
  // FROM <repo>@<digest> finds it in the engine.
  if (mode === "official")
    await pullOfficialBase(images, name, entry, opts.lock.file, { onProgress: opts.onProgress, signal: opts.signal });
  // The mirrors this build fetches from (MIRROR_NONE before anything starts when the host and the lock name none).
  const buildArgs = mirrorBuildArgs(entry, opts.lock.mirrors, opts.lock.file);
  const labels = imageLabels(name, entry, mode, rendered, {
    mirrors: buildArgs,
    buildTime: (opts.now ?? (() => new Date()))().toISOString(),
    session: opts.session,
    run: opts.run,
  });
  const id = await buildContext(images, name, rendered, labels, buildArgs, opts);
  const [repo, suffix] = [imageRepo(name), rendered.tagSuffix];
  if (opts.signal?.aborted) throw new CancelledError();
  await images.tag(id, repo, suffix);
  const info = await images.inspect(tag);
  if (!info)
    throw new TwinbenchError(`image "${name}": ${tag} is missing right after tagging it`, {
      code: "IMAGE_BUILD_FAILED",
      hint: "check the engine (twinbench doctor) and build again",
    });
  return { name, tag, id: info.id, labels: info.labels, cacheHit: false, mode };
}

/** Run one build; resolves to the built image id, or throws the classified failure. Never tags. */
async function buildContext(
  images: ImagePort,
  name: string,
  rendered: RenderedContext,
  labels: Record<string, string>,
  buildArgs: Record<string, string>,
  opts: EnsureImageOptions,
): Promise<string> {
  const entry = lockEntry(opts.lock, name);
  const tracker = new BuildTracker();
  const emit = (lines: { step: string; line: string }[]) => {
    for (const l of lines) opts.onProgress?.({ image: name, step: l.step, line: l.line });
  };
  let stream: NodeJS.ReadableStream;
  try {
    stream = await images.build(contextTar(rendered.files), { labels, buildArgs, signal: opts.signal });
  } catch (e) {
    if (opts.signal?.aborted) throw new CancelledError();
    const msg = (e as { json?: { message?: string } }).json?.message ?? (e as Error).message;
    throw new TwinbenchError(`image "${name}": the engine refused the build: ${msg}`, {
      code: "IMAGE_BUILD_FAILED",
      hint: `check the rendered Dockerfile (template images/${entry.family}/) and the engine (twinbench doctor)`,
      details: statusCode(e) ? [`HTTP ${statusCode(e)}`] : [],
      cause: e,
    });
  }
  try {
    await readJsonStream(stream, (ev) => emit(tracker.push(ev)));
  } catch (e) {
    if (opts.signal?.aborted) throw new CancelledError();
    tracker.error ??= `the build stream broke: ${(e as Error).message}`;
  }
  if (opts.signal?.aborted) throw new CancelledError();
  emit(tracker.flush());
  const built = tracker.imageId ?? /Successfully built ([0-9a-f]{12,64})/.exec(tracker.lines().join("\n"))?.[1];
  if (tracker.error !== undefined || !built) throw buildFailure(name, entry, opts.lock.file, tracker);
  return built;
}

/**
 * The tags the lock's images would have right now, in either mode, without building anything (a debian-mode tag
 * needs its base image present). Used to find stale images: twinbench-built tags not in this set.
 */
export async function currentImageTags(images: ImagePort, lock: Lock): Promise<Set<string>> {
  const tags = new Set<string>();
  for (const [name, entry] of Object.entries(lock.images)) {
    const files = await readContextFiles(imagesDir(lock), entry.family);
    const spec = baseImageSpec(entry.suites[0]!);
    const base = await inspectImageId(images, spec.tag);
    if (base) {
      tags.add(
        `${imageRepo(name)}:${renderContext(name, entry, "debian", files, { base: { tag: spec.tag, id: base.id } }).tagSuffix}`,
      );
      tags.add(spec.tag);
    }
    if (entry.official.digest !== DIGEST_PLACEHOLDER) {
      tags.add(`${imageRepo(name)}:${renderContext(name, entry, "official", files, {}).tagSuffix}`);
    }
  }
  return tags;
}
