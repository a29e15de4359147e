import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineConfig } from "vitest/config";

/**
 * Runs on the local engine fold their pairs into the host's calibration (and make one when there is none): tests
 * keep that in a scratch folder of their own, never in /var/lib/twinbench/calibration.
 */
const calibrationDir =
  process.env.TWINBENCH_TEST_CALIBRATION_DIR ?? join(tmpdir(), `twinbench-test-calibration-${process.pid}`);

/** Likewise the host's run history: tests append to a scratch folder, never to /var/lib/twinbench/history. */
const historyDir = process.env.TWINBENCH_TEST_HISTORY_DIR ?? join(tmpdir(), `twinbench-test-history-${process.pid}`);

/** What every test run shares (this config's two projects, and vitest.faults.config.ts). */
export const common = {
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
  env: {
    TESTCONTAINERS_RYUK_DISABLED: "true",
    CI: "false",
    CONTINUOUS_INTEGRATION: "false",
    TWINBENCH_CALIBRATION_DIR: calibrationDir,
    TWINBENCH_HISTORY_DIR: historyDir,
  },
};

/** The set-up every test against real Docker needs (test/global-setup.ts: the engine, the images, dist/). */
export const integrationSetup = ["test/global-setup.ts"];

export default defineConfig({
  test: {
    ...common,
    // Two projects, one after the other (sequence.groupOrder): the unit tests first, then the rest.
    //  - unit: pure code on fixtures, no set-up, and no isolation between files: each file in a fresh module graph
    //    cost 119 s of imports for 37 s of tests on the project's 2-core VM; shared, the folder takes 44 s. A unit
    //    test must therefore not mock modules (vi.mock) or leave global state behind: inject instead.
    //  - integration: real Docker, each file isolated. The fault matrix (kill -9 at each phase, dockerd restarted, a
    //    full results folder) is its own script: `npm run test:faults` (vitest.faults.config.ts).
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["test/unit/**/*.test.ts", "test/unit/**/*.test.tsx"],
          isolate: false,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: "integration",
          include: ["test/**/*.test.ts", "test/**/*.test.tsx"],
          exclude: ["test/unit/**", "test/faults/**", "**/node_modules/**"],
          globalSetup: integrationSetup,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
