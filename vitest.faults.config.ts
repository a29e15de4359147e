import { defineConfig } from "vitest/config";
import { common, integrationSetup } from "./vitest.config.ts";

/**
 * The fault matrix (`npm run test:faults`, run by .ci/run after `npm test`): twinbench killed with SIGKILL at each
 * phase, a torn cells.jsonl, dockerd restarted mid-cell, a full results filesystem, a damaged storage state file,
 * two writers of one results folder, a run in another pid namespace, kill -9 during snapshot and restore with the
 * daemons confined, a hung server, a hung sysbench and a hung dockerd.
 * Real Docker, real servers, tiny tables. Same set-up as `npm test`'s integration tests; files run one at a time in
 * each invocation. `npm run test:faults` (scripts/test-faults.sh) runs two groups of files side by side, one of them in
 * a pid namespace of its own, then the files that stop or restart dockerd alone.
 */
export default defineConfig({
  test: {
    ...common,
    globalSetup: integrationSetup,
    include: ["test/faults/**/*.test.ts"],
  },
});
