import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineConfig } from "vitest/config";

/**
 * Runs on the local engine fold their pairs into the host's calibration (and make one when there is none): tests
 * keep that in a scratch folder of their own, never in /var/lib/twinbench/calibration.
 */
const calibrationDir = process.env.TWINBENCH_TEST_CALIBRATION_DIR ?? join(tmpdir(), `twinbench-test-calibration-${process.pid}`);

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts", "test/**/*.test.tsx"],
    // The fault matrix (kill -9 at each phase, dockerd restarted, a full results folder) is its own script:
    // `npm run test:faults` (vitest.faults.config.ts).
    exclude: ["test/faults/**", "**/node_modules/**"],
    globalSetup: ["test/global-setup.ts"],
    // test/skip-reporter.ts lists every test that did not run and why (.ci/run fails on it: scripts/check-skips.mjs);
    // it needs the tests' locations to name the skipping line.
    reporters: ["default", "./test/skip-reporter.ts"],
    includeTaskLocation: true,
    // Integration tests share one Docker engine and two cores: run files one at a time.
    fileParallelism: false,
    testTimeout: 20_000,
    hookTimeout: 600_000,
    // CI=false inside the test workers: Ink (is-in-ci) renders only the last frame under CI, which the TUI
    // component tests must not inherit from the CI runner's environment.
    env: { TESTCONTAINERS_RYUK_DISABLED: "true", CI: "false", CONTINUOUS_INTEGRATION: "false", TWINBENCH_CALIBRATION_DIR: calibrationDir },
  },
});
