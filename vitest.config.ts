import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts", "test/**/*.test.tsx"],
    // The fault matrix (kill -9 at each phase, dockerd restarted, a full results folder) is its own script:
    // `npm run test:faults` (vitest.faults.config.ts).
    exclude: ["test/faults/**", "**/node_modules/**"],
    globalSetup: ["test/global-setup.ts"],
    // Integration tests share one Docker engine and two cores: run files one at a time.
    fileParallelism: false,
    testTimeout: 20_000,
    hookTimeout: 600_000,
    // CI=false inside the test workers: Ink (is-in-ci) renders only the last frame under CI, which the TUI
    // component tests must not inherit from the CI runner's environment.
    env: { TESTCONTAINERS_RYUK_DISABLED: "true", CI: "false", CONTINUOUS_INTEGRATION: "false" },
  },
});
