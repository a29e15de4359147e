/**
 * Prepare docker-compose.yml: make sure the base image twinbench's own image builds FROM exists (Debian-built mode,
 * cached: debootstrap runs only when the tag is missing), and write the two values compose needs into .env:
 *   TWINBENCH_BASE_IMAGE  twinbench/base:sid-<hash>  (build arg BASE_IMAGE of images/twinbench/Dockerfile)
 *   TWINBENCH_REPO        the checkout's absolute path (mounted at the same path inside the container)
 * A twinbench/self:local image built from another base is removed, so compose rebuilds it.
 * Other lines of an existing .env are kept.
 *
 *   npx tsx lab/compose-prepare.ts [--suite sid]
 */
import { readFile, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import Docker from "dockerode";
import { ensureBaseImage, loadLock } from "../src/adapters/images/index.ts";
import { formatError } from "../src/core/base/errors.ts";

const SELF_IMAGE = "twinbench/self:local";

async function main(): Promise<void> {
  const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
  const i = process.argv.indexOf("--suite");
  const suite = i > 0 ? process.argv[i + 1]! : "sid";
  const docker = new Docker();
  const lock = await loadLock(join(repo, "images", "lock.yaml"));
  const base = await ensureBaseImage(docker, suite, lock.mirrors, {
    onProgress: (ev) => process.stderr.write(`[${ev.image}] ${ev.line}\n`),
  });
  process.stderr.write(`${base.cacheHit ? "cached" : "built "} ${base.tag}\n`);

  try {
    const self = await docker.getImage(SELF_IMAGE).inspect();
    const builtFrom = self.Config?.Labels?.["twinbench.base"];
    if (builtFrom !== base.tag) {
      await docker.getImage(SELF_IMAGE).remove();
      process.stderr.write(`removed ${SELF_IMAGE} (built from ${builtFrom ?? "?"}, not ${base.tag}); compose rebuilds it\n`);
    }
  } catch (e) {
    if ((e as { statusCode?: number }).statusCode !== 404) throw e;
  }

  const envFile = join(repo, ".env");
  const values: Record<string, string> = { TWINBENCH_BASE_IMAGE: base.tag, TWINBENCH_REPO: repo };
  const old = await readFile(envFile, "utf8").catch(() => "");
  const kept = old.split("\n").filter((l) => l.trim() !== "" && !Object.keys(values).some((k) => l.startsWith(`${k}=`)));
  const text = [...kept, ...Object.entries(values).map(([k, v]) => `${k}=${v}`)].join("\n") + "\n";
  await writeFile(envFile, text);
  for (const [k, v] of Object.entries(values)) process.stdout.write(`${k}=${v}\n`);
}

main().catch((e: unknown) => {
  process.stderr.write(formatError(e) + "\n");
  process.exitCode = 1;
});
