/** ResultsStore (src/adapters/results/store.ts) and the folder's lock: a non-recursive create, one writer. */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LOCK_FILE } from "../../../../src/adapters/results/lock.ts";
import { ResultsStore } from "../../../../src/adapters/results/store.ts";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tb-store-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("ResultsStore", () => {
  it("create makes the run folder itself without -p and holds its lock until release", async () => {
    const out = join(dir, "results", "r1");
    const store = await ResultsStore.create(out);
    expect(readdirSync(out).sort()).toEqual([LOCK_FILE, "raw"]);
    // A second run given the folder while the first writes it: refused naming the first.
    await expect(ResultsStore.create(out)).rejects.toMatchObject({
      code: "RESULTS_LOCKED",
      message: expect.stringContaining(`pid ${process.pid}`),
    });
    await store.release();
    await expect(ResultsStore.create(out)).rejects.toMatchObject({ code: "RESULTS_EXISTS" });
    expect(readdirSync(out)).toEqual(["raw"]);
  });

  it("two runs given the same empty folder: one gets it, the other is refused naming it", async () => {
    const out = join(dir, "same");
    mkdirSync(out);
    const results = await Promise.allSettled([ResultsStore.create(out), ResultsStore.create(out)]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const refused = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
    expect(["RESULTS_LOCKED", "RESULTS_EXISTS"]).toContain((refused.reason as { code: string }).code);
    expect(existsSync(out)).toBe(true); // the winner's folder stays
  });

  it("open with the lock (resume) is refused while a run holds the folder", async () => {
    const out = join(dir, "r2");
    const run = await ResultsStore.create(out);
    writeFileSync(join(out, "run.json"), "{}");
    await expect(ResultsStore.open(out, { lock: true })).rejects.toMatchObject({
      code: "RESULTS_LOCKED",
      message: expect.stringContaining(`pid ${process.pid}`),
    });
    await run.release();
    const resumed = await ResultsStore.open(out, { lock: true });
    await resumed.release();
  });
});
