/**
 * Debian-built mode's base images: `debootstrap --variant=minbase SUITE DIR MIRROR`, then the rootfs is streamed as a
 * tar into the engine (image import) and tagged twinbench/base:<suite>-<hash>. Cached: never redone when present.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ImageDetails, ImagePort } from "../../core/model/engine/images.ts";
import { execa } from "execa";
import { CancelledError, TwinbenchError } from "../../core/base/errors.ts";
import { baseImageChanges, baseImageSpec, debootstrapArgs, type BaseImageSpec } from "../../core/images/base.ts";
import type { BaseImageRef } from "../../core/images/context.ts";
import { mirrorChoiceFor, type Mirrors } from "../../core/images/mirror.ts";
import { readJsonStream } from "./stream.ts";

export interface ImageProgress {
  /** The image being made: a lock name, or "base:<suite>". */
  image: string;
  step: string;
  line: string;
}

export interface BaseImageOptions {
  /** The lock file the mirrors were chosen with, named when no mirror is known (default images/lock.yaml). */
  lockFile?: string;
  onProgress?: (ev: ImageProgress) => void;
  now?: () => Date;
  /** Where the rootfs is assembled (default: the OS temp dir). It needs ~300 MB. */
  workDir?: string;
  /** Stops debootstrap / the import; the promise then rejects with a CancelledError. */
  signal?: AbortSignal;
}

export interface EnsuredBaseImage extends BaseImageRef {
  cacheHit: boolean;
}

/** Status code of a dockerode/docker-modem error, if any. */
export function statusCode(e: unknown): number | undefined {
  const c = (e as { statusCode?: unknown } | null)?.statusCode;
  return typeof c === "number" ? c : undefined;
}

/** The image for a reference, or undefined when the engine has no such image (404). */
export function inspectImageId(images: ImagePort, ref: string): Promise<ImageDetails | undefined> {
  return images.inspect(ref);
}

const inFlight = new Map<string, Promise<EnsuredBaseImage>>();

/** Make sure the base image for a suite exists; builds it (~45 s) only when its tag is missing. */
export function ensureBaseImage(
  images: ImagePort,
  suite: string,
  mirrors: Mirrors,
  opts: BaseImageOptions = {},
): Promise<EnsuredBaseImage> {
  const spec = baseImageSpec(suite);
  const running = inFlight.get(spec.tag);
  if (running) return running;
  const p = (async () => {
    const have = await inspectImageId(images, spec.tag);
    if (have) return { tag: spec.tag, id: have.id, cacheHit: true };
    const id = await buildBaseImage(images, spec, mirrors, opts);
    return { tag: spec.tag, id, cacheHit: false };
  })().finally(() => inFlight.delete(spec.tag));
  inFlight.set(spec.tag, p);
  return p;
}

async function buildBaseImage(
  images: ImagePort,
  spec: BaseImageSpec,
  mirrors: Mirrors,
  opts: BaseImageOptions,
): Promise<string> {
  const image = `base:${spec.suite}`;
  // MIRROR_NONE here, before a temporary folder is made, when neither the host nor the lock names a mirror.
  const { uri: mirror, from } = mirrorChoiceFor(spec.suite, mirrors, opts.lockFile);
  const progress = (step: string, line: string) => opts.onProgress?.({ image, step, line });
  const work = await mkdtemp(join(opts.workDir ?? tmpdir(), `twinbench-rootfs-${spec.suite}-`));
  const rootfs = join(work, "rootfs");
  try {
    const argv = debootstrapArgs(spec, rootfs, mirror);
    progress("debootstrap", `debootstrap ${argv.join(" ")} (mirror from ${from})`);
    const tail: string[] = [];
    try {
      const sub = execa("debootstrap", argv, {
        all: true,
        buffer: false,
        stdin: "ignore",
        ...(opts.signal ? { cancelSignal: opts.signal } : {}),
      });
      sub.all?.setEncoding("utf8");
      let partial = "";
      sub.all?.on("data", (chunk: string) => {
        const parts = (partial + chunk).split("\n");
        partial = parts.pop() ?? "";
        for (const l of parts) {
          if (!l.trim()) continue;
          tail.push(l);
          if (tail.length > 20) tail.shift();
          progress("debootstrap", l);
        }
      });
      await sub;
    } catch (e) {
      const err = e as { code?: string; exitCode?: number };
      if (opts.signal?.aborted) throw new CancelledError();
      if (err.code === "ENOENT") {
        throw new TwinbenchError("debootstrap is not installed", {
          code: "BASE_NO_DEBOOTSTRAP",
          hint: "install it (apt-get install debootstrap, or twinbench doctor --fix), or use --mode official on a host that reaches a registry",
          cause: e,
        });
      }
      // No log: debootstrap failed before writing one; the output tail above is all there is.
      const log = await readFile(join(rootfs, "debootstrap", "debootstrap.log"), "utf8").catch(() => "");
      throw new TwinbenchError(
        `debootstrap of ${spec.suite} from ${mirror} failed (exit code ${err.exitCode ?? "?"})`,
        {
          code: "BASE_DEBOOTSTRAP_FAILED",
          hint: `debootstrap needs root, a reachable Debian mirror and ~300 MB of free disk; the mirror came from ${from} (the host's apt sources, unless images/lock.yaml's mirrors.debian overrides them)`,
          details: [...tail, ...log.split("\n").filter(Boolean).slice(-10)],
          cause: e,
        },
      );
    }
    // Leave no apt caches in the image. Best effort: a cache that stays only makes the image bigger.
    await rm(join(rootfs, "var/cache/apt/archives"), { recursive: true, force: true }).catch(() => {});
    await rm(join(rootfs, "var/lib/apt/lists"), { recursive: true, force: true }).catch(() => {}); // as above
    progress("import", `importing the ${spec.suite} rootfs into Docker as ${spec.tag}`);
    if (opts.signal?.aborted) throw new CancelledError();
    return await importRootfs(images, spec, rootfs, (opts.now ?? (() => new Date()))().toISOString(), progress);
  } finally {
    await rm(work, { recursive: true, force: true }).catch(() => {}); // best-effort teardown: the build's outcome is what counts; a temp folder may stay
  }
}

/** Import a rootfs directory untagged, and tag it only once both tar and import succeeded. */
async function importRootfs(
  images: ImagePort,
  spec: BaseImageSpec,
  rootfs: string,
  buildTime: string,
  progress: (step: string, line: string) => void,
): Promise<string> {
  const tar = execa("tar", ["--numeric-owner", "--xattrs", "-C", rootfs, "-c", "."], {
    buffer: { stdout: false, stderr: true },
    stdin: "ignore",
  });
  let id: string | undefined;
  let error: string | undefined;
  try {
    const res = await images.importTar(tar.stdout, baseImageChanges(spec, buildTime));
    await readJsonStream(res, (ev) => {
      if (ev.error || ev.errorDetail) error = ev.errorDetail?.message ?? ev.error;
      else if (ev.status && /^sha256:[0-9a-f]{64}$/.test(ev.status.trim())) id = ev.status.trim();
      else if (ev.status) progress("import", ev.status);
    });
    await tar;
  } catch (e) {
    if (id) await images.remove(id).catch(() => {}); // untagged: a later build replaces it, `images rm` finds it
    const stderr = (e as { stderr?: string }).stderr;
    throw new TwinbenchError(`importing the ${spec.suite} base image failed: ${(e as Error).message.split("\n")[0]}`, {
      code: /no space left/i.test(String(stderr ?? (e as Error).message)) ? "IMAGE_DISK_FULL" : "BASE_IMPORT_FAILED",
      hint: "check free disk space under Docker's data root (docker system df); nothing was tagged",
      details: stderr ? stderr.split("\n").slice(-10) : [],
      cause: e,
    });
  }
  if (error || !id) {
    if (id) await images.remove(id).catch(() => {}); // untagged: a later build replaces it, `images rm` finds it
    throw new TwinbenchError(
      `importing the ${spec.suite} base image failed: ${error ?? "the engine returned no image id"}`,
      {
        code: /no space left/i.test(error ?? "") ? "IMAGE_DISK_FULL" : "BASE_IMPORT_FAILED",
        hint: "check free disk space under Docker's data root (docker system df); nothing was tagged",
      },
    );
  }
  await images.tag(id, spec.repo, spec.tagSuffix);
  return id;
}
