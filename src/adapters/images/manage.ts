/** Listing and removing the images twinbench built (everything labelled twinbench.image). */
import type { ImagePort } from "../../core/model/engine/images.ts";
import { TwinbenchError } from "../../core/base/errors.ts";
import { BASE_REPO } from "../../core/images/base.ts";
import { imageRepo, LABEL } from "../../core/images/context.ts";
import { statusCode } from "./base-image.ts";

export interface ListedImage {
  /** Lock name ("mariadb-11.8") or "base". */
  name: string;
  /** Its twinbench/NAME:HASH references (at least one). */
  tags: string[];
  id: string;
  labels: Record<string, string>;
  /** Seconds since the epoch. */
  created: number;
  size: number;
}

/**
 * The images twinbench built: labelled twinbench.image=NAME *and* tagged twinbench/NAME:* (twinbench/base:* for
 * base images). The tag check matters: an image built FROM a twinbench image inherits its labels.
 */
export async function listImages(images: ImagePort): Promise<ListedImage[]> {
  const infos = await images.list(LABEL.image);
  return infos
    .map((i) => {
      const name = i.labels[LABEL.image] ?? "?";
      const repo = name === "base" ? BASE_REPO : imageRepo(name);
      return {
        name,
        tags: i.repoTags.filter((t) => t.startsWith(`${repo}:`)),
        id: i.id,
        labels: i.labels,
        created: i.created,
        size: i.size,
      };
    })
    .filter((i) => i.tags.length > 0)
    .sort((a, b) => a.name.localeCompare(b.name) || b.created - a.created);
}

/**
 * Remove twinbench's images: those of the given names (lock names, or "base" for the debootstrap base images), or
 * all of them, except the tags in `keep` (see currentImageTags, for removing only stale images). Images used by a
 * container are an error naming the image; nothing is forced.
 */
export async function removeImages(
  images: ImagePort,
  names?: readonly string[],
  opts: { keep?: ReadonlySet<string> } = {},
): Promise<ListedImage[]> {
  const all = await listImages(images);
  const keep = opts.keep ?? new Set<string>();
  const chosen = (names && names.length > 0 ? all.filter((i) => names.includes(i.name)) : all)
    .map((i) => ({ ...i, tags: i.tags.filter((t) => !keep.has(t)) }))
    .filter((i) => i.tags.length > 0);
  // Built images before the base images they were built from.
  chosen.sort((a, b) => Number(a.name === "base") - Number(b.name === "base"));
  const removed: ListedImage[] = [];
  for (const img of chosen) {
    try {
      for (const ref of img.tags) await images.remove(ref);
      removed.push(img);
    } catch (e) {
      if (statusCode(e) === 404) continue;
      if (statusCode(e) === 409) {
        throw new TwinbenchError(`image ${img.tags[0] ?? img.id} is in use and was not removed`, {
          code: "IMAGE_IN_USE",
          hint: "remove the containers using it first (twinbench clean, or docker ps -a --filter ancestor=IMAGE)",
          cause: e,
        });
      }
      throw e;
    }
  }
  return removed;
}
