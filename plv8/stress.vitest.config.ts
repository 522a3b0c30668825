// The handler's stress run (`make -C plv8 stress`, after `make install`): the test harness's
// cluster, but only the *.stress.ts files, which `make test` leaves out.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    globalSetup: ["test/harness/global-setup.ts"],
    include: ["test/plv8/*.stress.ts"],
    testTimeout: 3_600_000,
    hookTimeout: 120_000,
    pool: "forks",
  },
});
