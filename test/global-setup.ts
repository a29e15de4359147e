/**
 * vitest global set-up: whatever the integration tests need on a fresh machine, installed once before any test.
 * - a Docker engine (`twinbench doctor --fix`: apt-get docker.io etc., start dockerd; never touches a running one)
 * - Chromium (HTML report test), tmux (TUI test) and docker-registry (official mode against a local registry), from
 *   Debian, when missing and we are root on Debian
 * - the four pinned images (Debian-built mode here: no registry), built once, cache hits afterwards
 * - dist/ rebuilt from the sources, so the tests that start `npx twinbench` (TUI in tmux, compose) run this code
 * Set TWINBENCH_TEST_UNIT_ONLY=1 to skip all of it (unit tests need none of it).
 */
import { execa } from "execa";
import { existsSync } from "node:fs";

export default async function setup(): Promise<void> {
  if (process.env.TWINBENCH_TEST_UNIT_ONLY === "1") return;
  const { ensureHost } = await import("../src/cli/commands/doctor.ts");
  await ensureHost({ out: (l) => console.log(`[setup] ${l}`), fix: true });

  const missing = [
    ["chromium", "/usr/bin/chromium"],
    ["tmux", "/usr/bin/tmux"],
    // Debian's distribution registry; its package's service is not started here (no systemd, policy-rc.d): the test
    // starts its own on 127.0.0.1 with its own config.
    ["docker-registry", "/usr/bin/docker-registry"],
  ]
    .filter(([, bin]) => !existsSync(bin!))
    .map(([pkg]) => pkg!);
  if (missing.length > 0 && process.getuid?.() === 0 && existsSync("/usr/bin/apt-get")) {
    console.log(`[setup] installing ${missing.join(", ")} from Debian`);
    await execa("apt-get", ["-o", "Acquire::Check-Valid-Until=false", "update", "-qq"], { stdio: "inherit" });
    await execa(
      "apt-get",
      ["-o", "Acquire::Check-Valid-Until=false", "install", "-y", "-qq", "--no-install-recommends", ...missing],
      { stdio: "inherit", env: { DEBIAN_FRONTEND: "noninteractive" } },
    );
  }

  console.log("[setup] npm run build (dist/ for the tests that start the twinbench command)");
  await execa("npm", ["run", "--silent", "build"], { stdio: "inherit" });

  const { DockerEngine } = await import("../src/adapters/docker/engine.ts");
  const { ensureImages, loadLock } = await import("../src/adapters/images/index.ts");
  const lock = await loadLock();
  const t0 = Date.now();
  const built = await ensureImages(new DockerEngine().images, Object.keys(lock.images), {
    lock,
    onProgress: (ev) => {
      if (ev.step && !ev.line) console.log(`[setup] image ${ev.image}: ${ev.step}`);
    },
  });
  console.log(
    `[setup] images ready in ${((Date.now() - t0) / 1000).toFixed(0)} s: ${built.map((b) => `${b.tag}${b.cacheHit ? " (cached)" : ""}`).join(", ")}`,
  );
}
