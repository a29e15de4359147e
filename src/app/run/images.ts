/** The images stage: every server image and the load image, found or built (cache hits are free). */
import type { RunContext } from "./context.ts";
import type { ResultsSession } from "./session.ts";
import type { ImageInfo } from "./types.ts";

export const LOAD_IMAGE = "sysbench-1.0";

export async function ensureImages(ctx: RunContext, session: ResultsSession): Promise<Map<string, ImageInfo>> {
  ctx.phase("images");
  const images = new Map<string, ImageInfo>();
  await ctx.time("images", async () => {
    for (const name of [...new Set([...ctx.scenario.servers.map((s) => s.image), LOAD_IMAGE])]) {
      ctx.throwIfAborted();
      const info = await ctx.deps.ensureImage(name, (step, line) => ctx.emit({ type: "image-progress", at: ctx.at(), image: name, step, line }), ctx.signal);
      images.set(name, info);
      ctx.emit({ type: "image-ready", at: ctx.at(), image: name, tag: info.tag, cacheHit: info.cacheHit ?? false });
    }
  });
  const load = images.get(LOAD_IMAGE)!;
  session.manifest.sysbench = { image: LOAD_IMAGE, imageId: load.id, version: load.version, packageVersion: load.packageVersion };
  return images;
}
