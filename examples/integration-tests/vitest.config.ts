import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // One Docker engine, few cores: one file at a time. Servers take seconds to start; runs take minutes.
    fileParallelism: false,
    testTimeout: 900_000,
    hookTimeout: 900_000,
    // No registry here, so testcontainers' reaper (Ryuk) cannot start: twinbench's labels and its start-up
    // sweep (`twinbench clean`) stand in for it. Where a registry answers, leave Ryuk on.
    env: { TESTCONTAINERS_RYUK_DISABLED: process.env.TESTCONTAINERS_RYUK_DISABLED ?? "true" },
  },
});
