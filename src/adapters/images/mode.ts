/**
 * Choosing the build mode: `auto` means official when a registry answers through the engine, else debian.
 * The probe must fail fast on hosts without a registry (like this project's CI).
 */
import { DeadlineError, withDeadline } from "../../core/base/deadline.ts";
import type { ImagePort } from "../../core/model/engine/images.ts";
import { InputError } from "../../core/base/errors.ts";
import type { BuildMode, ModeChoice } from "../../core/images/context.ts";
import { DIGEST_PLACEHOLDER, type Lock } from "../../core/images/lock.ts";
import { inspectImageId } from "./base-image.ts";

export interface ModeDecision {
  mode: BuildMode;
  reason: string;
}

export function parseModeChoice(v: string): ModeChoice {
  if (v === "auto" || v === "debian" || v === "official") return v;
  throw new InputError(`invalid build mode "${v}"`, {
    code: "IMAGE_MODE_INVALID",
    hint: "use --mode auto, debian or official",
  });
}

/**
 * Decide the mode for the given lock entries. Official needs real digests for all of them, and either the pinned
 * image already present in the engine or a registry answering a manifest query (GET /distribution/<ref>/json, which
 * downloads no layers) within `timeoutMs`.
 */
export async function detectMode(
  images: ImagePort,
  lock: Lock,
  names: readonly string[],
  opts: { timeoutMs?: number } = {},
): Promise<ModeDecision> {
  const entries = names.map((n) => lock.images[n]).filter((e) => e !== undefined);
  const placeholder = names.filter((n) => lock.images[n]?.official.digest === DIGEST_PLACEHOLDER);
  if (placeholder.length > 0) {
    return { mode: "debian", reason: `${lock.file} has no official digest for ${placeholder.join(", ")}` };
  }
  const refs = entries.map((e) => `${e.official.ref}@${e.official.digest}`);
  let allLocal = true;
  for (const ref of refs) {
    // An engine that cannot say counts as "not local": the registry probe below then decides, and gives its reason.
    if (!(await inspectImageId(images, ref).catch(() => undefined))) allLocal = false;
  }
  if (allLocal) return { mode: "official", reason: "the pinned official images are present in the engine" };
  const probe = refs[0]!;
  try {
    await withDeadline(
      images.distribution(probe),
      opts.timeoutMs ?? 5000,
      () => new DeadlineError(opts.timeoutMs ?? 5000),
    );
    return { mode: "official", reason: `the registry answered for ${probe}` };
  } catch (e) {
    if (e instanceof DeadlineError)
      return { mode: "debian", reason: `no registry answered for ${probe} within ${e.ms} ms` };
    return { mode: "debian", reason: `no registry reachable for ${probe}: ${(e as Error).message.split("\n")[0]}` };
  }
}
