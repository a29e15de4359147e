/**
 * The images stage: every server image and the load image, found or built (cache hits are free). The images are
 * ensured side by side: on a fresh host the two Debian bases are debootstrapped at once, and each image's apt step
 * starts as soon as its base is there (images that share a base wait for the one build of it). While an image is
 * being made, a `progress` event says so every few seconds.
 */
import { allOrAbort } from "../../core/base/all-or-abort.ts";
import type { RunContext } from "./context.ts";
import type { ResultsSession } from "./session.ts";
import type { ImageInfo } from "./types.ts";

export const LOAD_IMAGE = "sysbench-1.0";

export async function ensureImages(ctx: RunContext, session: ResultsSession): Promise<Map<string, ImageInfo>> {
  ctx.phase("images");
  const names = [...new Set([...ctx.scenario.servers.map((s) => s.image), LOAD_IMAGE])];
  ctx.throwIfAborted();
  const infos = await ctx.time("images", () =>
    allOrAbort(ctx.signal, names, (name, signal) =>
      ctx.withProgress("images", name, async (note) => {
        const info = await ctx.deps.ensureImage(
          name,
          (step, line) => {
            const short = /^Step \d+\/\d+/.exec(step)?.[0] ?? step; // "Step 5/21", not the whole RUN line
            note(line === undefined ? step : `${short}: ${line}`);
            ctx.emit({ type: "image-progress", at: ctx.at(), image: name, step, line });
          },
          signal,
        );
        ctx.emit({ type: "image-ready", at: ctx.at(), image: name, tag: info.tag, cacheHit: info.cacheHit ?? false });
        return info;
      }),
    ),
  );
  const images = new Map(names.map((n, i) => [n, infos[i]!]));
  const load = images.get(LOAD_IMAGE)!;
  session.manifest.sysbench = {
    image: LOAD_IMAGE,
    imageId: load.id,
    version: load.version,
    packageVersion: load.packageVersion,
  };
  return images;
}
