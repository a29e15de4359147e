/**
 * vitest global set-up: whatever the integration tests need on a fresh machine, installed once before any test.
 * - a Docker engine (`twinbench doctor --fix`: apt-get docker.io etc., start dockerd; never touches a running one)
 * - Chromium (HTML report test), tmux (TUI test) and docker-registry (official mode against a local registry), from
 *   Debian, when missing and we are root on Debian
 * - the four pinned images (Debian-built mode here: no registry), built once, cache hits afterwards; when
 *   TWINBENCH_TEST_IMAGES_BUILD names a file, a build started earlier (.ci/run starts `twinbench images build` in the
 *   background as soon as the engine runs) writes its exit code there when it ends: the set-up waits for it before
 *   it rebuilds dist/ (which that build runs from)
 * - dist/ rebuilt from the sources, so the tests that start `npx twinbench` (TUI in tmux, compose) run this code
 *   (unless TWINBENCH_TEST_DIST_BUILT=1: scripts/test-faults.sh built it just before)
 * Set TWINBENCH_TEST_UNIT_ONLY=1 to skip all of it (unit tests need none of it).
 */
import { execa } from "execa";
import { existsSync, readFileSync } from "node:fs";

/**
 * Wait for the image build started before the tests: TWINBENCH_TEST_IMAGES_BUILD names the file it writes its exit
 * code to when it ends (its output is in the same name + ".log"). Whatever it left undone, ensureImages below builds.
 */
async function waitForEarlierBuild(): Promise<void> {
  const done = process.env.TWINBENCH_TEST_IMAGES_BUILD;
  if (!done) return;
  const t0 = Date.now();
  const deadline = t0 + 30 * 60_000;
  while (!existsSync(done) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 1000));
  const waited = `${((Date.now() - t0) / 1000).toFixed(0)} s`;
  if (!existsSync(done)) {
    console.log(
      `[setup] the image build started before the tests did not end within 30 min (${waited}); building here`,
    );
    return;
  }
  const rc = readFileSync(done, "utf8").trim();
  console.log(`[setup] the image build started before the tests ended with exit code ${rc} (waited ${waited})`);
  if (rc !== "0") console.log(readFileSync(`${done}.log`, "utf8").split("\n").slice(-40).join("\n"));
}

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

  // Before dist/ is rebuilt: the earlier build runs the twinbench command from it.
  await waitForEarlierBuild();
  // scripts/test-faults.sh builds dist/ once before its groups run side by side: a build here would delete dist/
  // under the other group's running CLI.
  if (process.env.TWINBENCH_TEST_DIST_BUILT === "1") console.log("[setup] dist/ was built before this run");
  else {
    console.log("[setup] npm run build (dist/ for the tests that start the twinbench command)");
    await execa("npm", ["run", "--silent", "build"], { stdio: "inherit" });
  }

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
