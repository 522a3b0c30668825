import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    globalSetup: ["test/harness/global-setup.ts"],
    include: ["src/**/*.test.ts", "test/**/*.test.ts", "server/**/*.test.ts"],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: "forks",
    maxWorkers: 2,
  },
});
