/**
 * Print the tags of the lock's images as this checkout makes them (each base image, then each pinned image), one a
 * line, building the ones the engine lacks (cache hits otherwise). lab/current-engine.sh sends these to the second
 * engine, so the tests there find every image by its tag.
 *
 *   npx tsx lab/lock-image-tags.ts
 */
import { DockerEngine } from "../src/adapters/docker/engine.ts";
import { ensureImages, loadLock } from "../src/adapters/images/index.ts";
import { baseImageSpec } from "../src/core/images/base.ts";

const lock = await loadLock();
const built = await ensureImages(new DockerEngine().images, undefined, { lock });
const bases = new Set(Object.values(lock.images).map((e) => baseImageSpec(e.suites[0]!).tag));
for (const tag of [...bases, ...built.map((b) => b.tag)]) console.log(tag);
