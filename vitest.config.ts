import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts", "test/**/*.test.tsx"],
    globalSetup: ["test/global-setup.ts"],
    // Integration tests share one Docker engine and two cores: run files one at a time.
    fileParallelism: false,
    testTimeout: 20_000,
    hookTimeout: 600_000,
    env: { TESTCONTAINERS_RYUK_DISABLED: "true" },
  },
});
