// Long runs, not part of `make test`: `make stress-server` runs them on the harness cluster.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    globalSetup: ["test/harness/global-setup.ts"],
    include: ["test/stress/**/*.stress.ts"],
    testTimeout: 1_200_000,
    hookTimeout: 120_000,
    pool: "forks",
    maxWorkers: 1,
  },
});
